#pragma once
// Triangular views: which part of a matrix may be non-zero. The one place that decides
// views, for the host (here) and for generated kernels (opencl_view_test below).
// Encoded as bits, as Stan's matrix_cl_view: bit 0 the strictly lower part, bit 1 the
// strictly upper part; the diagonal is always inside the view.
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::runtime {

enum class matrix_view : int { diagonal = 0, lower = 1, upper = 2, entire = 3 };

constexpr bool view_has_lower(matrix_view v) { return (static_cast<int>(v) & 1) != 0; }
constexpr bool view_has_upper(matrix_view v) { return (static_cast<int>(v) & 2) != 0; }

/// Whether element (row, col) may be non-zero under the view.
constexpr bool view_contains(matrix_view v, std::int64_t row, std::int64_t col) {
  return row == col || (row > col ? view_has_lower(v) : view_has_upper(v));
}

/// The smallest view holding both (e.g. lower + upper = entire): the view of a sum.
constexpr matrix_view view_union(matrix_view a, matrix_view b) {
  return static_cast<matrix_view>(static_cast<int>(a) | static_cast<int>(b));
}
/// The view of an elementwise product: non-zero only where both may be.
constexpr matrix_view view_intersection(matrix_view a, matrix_view b) {
  return static_cast<matrix_view>(static_cast<int>(a) & static_cast<int>(b));
}
/// The view of the transpose.
constexpr matrix_view view_transpose(matrix_view v) {
  return static_cast<matrix_view>(((static_cast<int>(v) & 1) << 1) | ((static_cast<int>(v) & 2) >> 1));
}

std::string_view to_string(matrix_view v);

/// OpenCL C condition, true where (row, col) is inside the view held in the int
/// expression view_expr (a kernel argument), so one kernel serves every view.
inline std::string opencl_view_test(std::string_view view_expr, std::string_view row,
                                    std::string_view col) {
  const std::string v(view_expr), r(row), c(col);
  return "(" + r + " == " + c + " || (" + r + " > " + c + " ? (" + v + " & 1) : (" + v + " & 2)))";
}

}  // namespace tessera::runtime
