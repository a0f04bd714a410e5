#pragma once
// The Tile language: parse, check, interpret on the host, lower to OpenCL, run.
#include <tessera/tile/error.hpp>
#include <tessera/tile/function.hpp>
#include <tessera/tile/host_tensor.hpp>
#include <tessera/tile/interpreter.hpp>
#include <tessera/tile/loop_nest.hpp>
#include <tessera/tile/lowering.hpp>
#include <tessera/tile/matmul.hpp>
#include <tessera/tile/parser.hpp>
#include <tessera/tile/program.hpp>
#include <tessera/tile/shapes.hpp>
#include <tessera/tile/tensor.hpp>
