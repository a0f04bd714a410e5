#pragma once
// Matrix products written as contractions go to GEMM. match_matmul recognises
// `C[b.., i.., j..] = +(A[b.., i.., k..] * B[b.., k.., j..])` up to the order of the groups
// in each tensor (transposes), any number of batch, row, column and reduction indices (each
// group flattened where the strides allow it), and yields one column-major strided-batched
// GEMM call: C_b = op(A_b) * op(B_b), as tessera::blas::gemm takes it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tessera/tile/program.hpp>
#include <tessera/tile/shapes.hpp>

namespace tessera::tile {

/// Where a tensor's elements lie in its buffer: element (i0, .., ik) is at
/// offset + sum i_d * strides[d] (in elements).
struct tensor_layout {
  shape dims;
  std::vector<std::int64_t> strides;
  std::int64_t offset = 0;

  static tensor_layout row_major(shape dims);
  bool is_row_major() const;
  friend bool operator==(const tensor_layout&, const tensor_layout&) = default;
};

/// One column-major GEMM per batch: C + b*stride_c = op(A + b*stride_a) * op(B + b*stride_b),
/// alpha = 1, beta = 0. a, b, c name the Tile tensors (ids) whose buffers hold A, B and C.
struct gemm_call {
  bool transpose_a = false;
  bool transpose_b = false;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 1, ldb = 1, ldc = 1;
  std::int64_t offset_a = 0, offset_b = 0, offset_c = 0;
  std::int64_t batch_count = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  std::size_t a = 0, b = 0, c = 0;

  std::string to_string() const;
};

/// The GEMM that computes c, or nothing when c is not a matrix product of its operands
/// (constraints, offsets, padding, strides that do not flatten, ...). layouts: per tensor id.
std::optional<gemm_call> match_matmul(const contraction& c, const index_space& space,
                                      const std::vector<tensor_layout>& layouts);

}  // namespace tessera::tile
