#pragma once
// Everything tessera offers; include narrower headers to build faster.
#include <tessera/runtime/runtime.hpp>
#include <tessera/kernel_generator/kernel_generator.hpp>
