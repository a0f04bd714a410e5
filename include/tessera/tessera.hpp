#pragma once
// Everything tessera offers; include narrower headers to build faster.
#include <tessera/blas/blas.hpp>
#include <tessera/runtime/runtime.hpp>
#include <tessera/tile/tile.hpp>
#include <tessera/unified/unified.hpp>
