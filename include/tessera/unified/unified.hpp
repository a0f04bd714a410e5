#pragma once
// Unified kernels: one generic lambda, run natively by the OpenMP executor and traced into
// OpenCL C by the OpenCL executor. Start with run_kernel.hpp; README.md's "Unified kernels"
// section has the rules a kernel lambda follows.
#include <tessera/unified/accessors.hpp>
#include <tessera/unified/arguments.hpp>
#include <tessera/unified/array.hpp>
#include <tessera/unified/control_flow.hpp>
#include <tessera/unified/dense.hpp>
#include <tessera/unified/dim.hpp>
#include <tessera/unified/executor.hpp>
#include <tessera/unified/math.hpp>
#include <tessera/unified/reduction.hpp>
#include <tessera/unified/run_kernel.hpp>
#include <tessera/unified/stopping_status.hpp>
#include <tessera/unified/symbolic.hpp>
