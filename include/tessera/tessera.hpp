#pragma once
// Everything tessera offers; include narrower headers to build faster.
#include <tessera/runtime/runtime.hpp>
