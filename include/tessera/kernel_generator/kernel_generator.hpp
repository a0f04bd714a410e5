#pragma once
// The kernel generator: expressions on device matrices become one fused OpenCL kernel per
// assignment, generated and built once per expression type (README.md in this folder).
//
//   using namespace tessera::kernel_generator;
//   matrix<float> d = c * (a + b);                       // one kernel
//   results(s, t) = expressions(exp(a) + b, rowwise_sum(a));
#include <tessera/kernel_generator/as_operation.hpp>
#include <tessera/kernel_generator/assignment.hpp>
#include <tessera/kernel_generator/binary_operators.hpp>
#include <tessera/kernel_generator/block.hpp>
#include <tessera/kernel_generator/broadcast.hpp>
#include <tessera/kernel_generator/diagonal.hpp>
#include <tessera/kernel_generator/host_evaluation.hpp>
#include <tessera/kernel_generator/indexing.hpp>
#include <tessera/kernel_generator/load.hpp>
#include <tessera/kernel_generator/matmul.hpp>
#include <tessera/kernel_generator/math_functions.hpp>
#include <tessera/kernel_generator/reductions.hpp>
#include <tessera/kernel_generator/scalar.hpp>
#include <tessera/kernel_generator/select.hpp>
#include <tessera/kernel_generator/transpose.hpp>
#include <tessera/kernel_generator/unary_operation.hpp>
