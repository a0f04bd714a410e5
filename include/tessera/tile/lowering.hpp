#pragma once
// Lowering a bound Tile program to OpenCL kernels (through codegen::kernel_builder) and GEMM
// calls. Pure: it produces sources and a schedule; function.hpp builds and runs them.
//
// - Each contraction becomes one output-parallel kernel: a work item computes whole output
//   elements (no atomics), with the loop nest of loop_nest.hpp; elements without a valid
//   point get zero, so outputs are always fully written.
// - Elementwise statements that follow a contraction with the contraction's shape are fused
//   into its store; other consecutive elementwise statements of one shape share one kernel.
//   Only tensors read by a later kernel, or returned, are written to memory.
// - A contraction that is a matrix product goes to GEMM (see matmul.hpp, lower_matmul).
#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <tessera/runtime/kernel.hpp>
#include <tessera/tile/loop_nest.hpp>
#include <tessera/tile/matmul.hpp>
#include <tessera/tile/program.hpp>
#include <tessera/tile/shapes.hpp>

namespace tessera::tile {

enum class element_type { float32, float64 };

/// One kernel: its source, the tensors bound to its buffer parameters (in order) and the range.
struct kernel_launch {
  std::string name;
  std::string source;
  std::vector<std::size_t> tensors;
  runtime::launch_range range;
  std::string summary;  // "contraction O (+ 2 fused elementwise)" and the like
};

/// A matrix product: the GEMM call and, until blas::gemm is wired in, the contraction kernel
/// that computes the same thing (see lower_matmul in function.hpp).
struct matmul_launch {
  gemm_call call;
  kernel_launch fallback;
};

using lowered_step = std::variant<kernel_launch, matmul_launch>;

struct lowering_options {
  /// Route matrix-product contractions through lower_matmul (else: the contraction kernel).
  bool dispatch_matmul = true;
  /// Outputs each work item of a contraction computes along the output's last axis, where
  /// the loop bounds do not depend on that axis (register blocking); 1 disables it.
  int register_block = 4;
  /// Operations (nodes of the statements' expressions) fused into one kernel at most: a
  /// driver's compile time and memory grow faster than a kernel's size (a 0.5 MB program fused
  /// into one kernel took PoCL 71 s and 730 MB), so longer runs of elementwise statements are
  /// split into several kernels, their intermediates kept in memory.
  std::size_t max_fused_operations = 2048;
};

struct lowered_program {
  binding shapes;
  std::vector<tensor_layout> layouts;  // per tensor id (meaningful where materialized)
  std::vector<bool> materialized;      // per tensor id: has a buffer (inputs, outputs, intermediates read later)
  std::vector<lowered_step> steps;
};

/// Lowers p for inputs of the given layouts and element type.
lowered_program lower(const program& p, const std::vector<tensor_layout>& input_layouts, element_type type,
                      const lowering_options& options = {});

}  // namespace tessera::tile
