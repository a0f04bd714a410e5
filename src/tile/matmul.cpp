#include <tessera/tile/matmul.hpp>

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace tessera::tile {

tensor_layout tensor_layout::row_major(shape dims) {
  tensor_layout l;
  l.strides = row_major_strides(dims);
  l.dims = std::move(dims);
  return l;
}

bool tensor_layout::is_row_major() const { return offset == 0 && strides == row_major_strides(dims); }

std::string gemm_call::to_string() const {
  return fmt::format("gemm({}, {}, m={}, n={}, k={}, A=#{}+{} lda={}, B=#{}+{} ldb={}, C=#{}+{} ldc={}, batch={} "
                     "strides {}/{}/{})",
                     transpose_a ? "T" : "N", transpose_b ? "T" : "N", m, n, k, a, offset_a, lda, b, offset_b, ldb, c,
                     offset_c, ldc, batch_count, stride_a, stride_b, stride_c);
}

namespace {

/// The variable a row reads when it is exactly `x_v` (coefficient 1, no constant).
std::optional<std::size_t> plain_variable(const index_row& row) {
  if (!row.constant.is_zero()) return std::nullopt;
  std::optional<std::size_t> found;
  for (std::size_t v = 0; v < row.coefficients.size(); ++v) {
    const rational& c = row.coefficients[v];
    if (c.is_zero()) continue;
    if (found || !(c == rational(1))) return std::nullopt;
    found = v;
  }
  return found;
}

struct operand_matrix {
  bool transposed;
  std::int64_t ld;
};

/// A rows x cols matrix at strides (row_stride, col_stride) as a column-major BLAS operand.
std::optional<operand_matrix> as_column_major(std::int64_t rows, std::int64_t cols, std::int64_t row_stride,
                                              std::int64_t col_stride) {
  if (rows <= 1) row_stride = 1;
  if (cols <= 1) col_stride = std::max<std::int64_t>(rows, 1);
  if (row_stride == 1 && col_stride >= std::max<std::int64_t>(rows, 1)) return operand_matrix{false, col_stride};
  if (cols <= 1 && rows > 1) col_stride = 1;  // a column vector may also be read as a row
  if (col_stride == 1 && row_stride >= std::max<std::int64_t>(cols, 1)) return operand_matrix{true, row_stride};
  return std::nullopt;
}

}  // namespace

std::optional<gemm_call> match_matmul(const contraction& c, const index_space& space,
                                      const std::vector<tensor_layout>& layouts) {
  if (c.agg != aggregation::sum || c.comb != combination::multiply || c.operands.size() != 2 ||
      !space.constraint_rows.empty())
    return std::nullopt;
  const std::size_t n = space.variables;
  // Per tensor (0: output, 1: A, 2: B): the variable of each axis.
  std::vector<std::vector<std::size_t>> axes(3);
  const std::vector<const std::vector<index_row>*> row_lists{&space.output_rows, &space.operand_rows[0],
                                                             &space.operand_rows[1]};
  const std::vector<std::size_t> ids{c.output, c.operands[0].tensor, c.operands[1].tensor};
  std::vector<std::int64_t> size(n, -1);
  std::vector<std::array<std::optional<std::size_t>, 3>> axis_of(n);
  for (std::size_t t = 0; t < 3; ++t) {
    for (std::size_t a = 0; a < row_lists[t]->size(); ++a) {
      const auto v = plain_variable((*row_lists[t])[a]);
      if (!v || axis_of[*v][t]) return std::nullopt;
      const std::int64_t extent = (*row_lists[t])[a].bound;
      if (size[*v] >= 0 && size[*v] != extent) return std::nullopt;  // padding or truncation
      size[*v] = extent;
      axis_of[*v][t] = a;
      axes[t].push_back(*v);
    }
  }
  enum group { batch, rows, cols, reduction };
  std::array<std::vector<std::size_t>, 4> groups;
  // Canonical order within a group: the output's order (the first operand's for reduction).
  for (std::size_t t : {0u, 1u, 2u})
    for (const auto v : axes[t]) {
      const bool o = axis_of[v][0].has_value(), a = axis_of[v][1].has_value(), b = axis_of[v][2].has_value();
      int g;
      if (o && a && b) g = batch;
      else if (o && a) g = rows;
      else if (o && b) g = cols;
      else if (a && b) g = reduction;
      else return std::nullopt;  // an index in one tensor only: a broadcast or a partial sum
      auto& list = groups[g];
      if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
    }

  struct flat {
    std::int64_t extent = 1;
    std::array<std::int64_t, 3> stride{0, 0, 0};  // per tensor
  };
  std::array<flat, 4> flats;
  for (int g = 0; g < 4; ++g) {
    flat& f = flats[g];
    std::vector<std::int64_t> weight(groups[g].size());
    std::int64_t w = 1;
    for (std::size_t i = groups[g].size(); i-- > 0;) {
      weight[i] = w;
      w = checked_mul(w, size[groups[g][i]]);
    }
    f.extent = w;
    for (std::size_t t = 0; t < 3; ++t) {
      std::optional<std::int64_t> s;
      for (std::size_t i = 0; i < groups[g].size(); ++i) {
        const std::size_t v = groups[g][i];
        if (size[v] <= 1 || !axis_of[v][t]) continue;
        const std::int64_t actual = layouts[ids[t]].strides[*axis_of[v][t]];
        if (!s) {
          if (actual % weight[i] != 0) return std::nullopt;
          s = actual / weight[i];
        }
        if (checked_mul(*s, weight[i]) != actual) return std::nullopt;  // the group does not flatten
      }
      f.stride[t] = s.value_or(0);
    }
  }
  const flat& fb = flats[batch];
  const flat& fi = flats[rows];
  const flat& fj = flats[cols];
  const flat& fk = flats[reduction];

  gemm_call call;
  call.k = fk.extent;
  call.batch_count = fb.extent;
  // C (M x N at strides (ci, cj)) must be a plain column-major matrix; otherwise compute
  // C^T = B^T A^T, whose column-major form it then is.
  const auto c_plain = as_column_major(fi.extent, fj.extent, fi.stride[0], fj.stride[0]);
  const auto c_swapped = as_column_major(fj.extent, fi.extent, fj.stride[0], fi.stride[0]);
  std::optional<operand_matrix> first, second;
  if (c_plain && !c_plain->transposed) {
    call.m = fi.extent;
    call.n = fj.extent;
    call.ldc = c_plain->ld;
    first = as_column_major(fi.extent, fk.extent, fi.stride[1], fk.stride[1]);   // A: M x K
    second = as_column_major(fk.extent, fj.extent, fk.stride[2], fj.stride[2]);  // B: K x N
    call.a = ids[1];
    call.b = ids[2];
    call.offset_a = layouts[ids[1]].offset;
    call.offset_b = layouts[ids[2]].offset;
    call.stride_a = fb.stride[1];
    call.stride_b = fb.stride[2];
  } else if (c_swapped && !c_swapped->transposed) {
    call.m = fj.extent;
    call.n = fi.extent;
    call.ldc = c_swapped->ld;
    first = as_column_major(fj.extent, fk.extent, fj.stride[2], fk.stride[2]);   // B^T: N x K
    second = as_column_major(fk.extent, fi.extent, fk.stride[1], fi.stride[1]);  // A^T: K x M
    call.a = ids[2];
    call.b = ids[1];
    call.offset_a = layouts[ids[2]].offset;
    call.offset_b = layouts[ids[1]].offset;
    call.stride_a = fb.stride[2];
    call.stride_b = fb.stride[1];
  } else {
    return std::nullopt;
  }
  if (!first || !second) return std::nullopt;
  call.transpose_a = first->transposed;
  call.lda = first->ld;
  call.transpose_b = second->transposed;
  call.ldb = second->ld;
  call.c = ids[0];
  call.offset_c = layouts[ids[0]].offset;
  call.stride_c = fb.stride[0];
  if (call.batch_count <= 1) call.stride_a = call.stride_b = call.stride_c = 0;
  return call;
}

}  // namespace tessera::tile
