#include <tessera/tile/tensor.hpp>

#include <fmt/format.h>

namespace tessera::tile {

namespace {

template <typename T>
runtime::device_buffer allocate(const runtime::context& ctx, const shape& dims) {
  if constexpr (std::is_same_v<T, double>) runtime::require_fp64(ctx.device());
  for (const auto d : dims)
    if (d < 0) throw argument_error(fmt::format("tensor: negative size in shape {}", to_string(dims)));
  std::int64_t count;
  try {
    count = element_count(dims);
  } catch (const arithmetic_overflow&) {
    throw argument_error(fmt::format("tensor: shape {} has more than 2^63 elements", to_string(dims)));
  }
  return runtime::device_buffer(ctx, runtime::checked_bytes(static_cast<std::size_t>(count), sizeof(T), "tensor"));
}

}  // namespace

template <runtime::device_scalar T>
tensor<T>::tensor() : context_(nullptr), layout_(tensor_layout::row_major({0})) {}

template <runtime::device_scalar T>
tensor<T>::tensor(shape dims, const runtime::context& ctx)
    : context_(&ctx), layout_(tensor_layout::row_major(dims)), storage_(allocate<T>(ctx, dims)) {}

template <runtime::device_scalar T>
tensor<T>::tensor(shape dims, std::span<const T> values, const runtime::context& ctx) : tensor(std::move(dims), ctx) {
  if (static_cast<std::int64_t>(values.size()) != size())
    throw argument_error(fmt::format("tensor: {} values given for shape {}, which holds {}", values.size(),
                                     to_string(layout_.dims), size()));
  storage_.write(0, values.size() * sizeof(T), values.data());
}

template <runtime::device_scalar T>
tensor<T>::tensor(const matrix<T>& m)
    : context_(&m.ctx()),
      layout_{{m.rows(), m.cols()}, {1, std::max<std::int64_t>(m.rows(), 1)}, 0},
      storage_(m.storage()) {}

template <runtime::device_scalar T>
tensor<T>::tensor(runtime::device_buffer storage, tensor_layout layout, const runtime::context& ctx)
    : context_(&ctx), layout_(std::move(layout)), storage_(std::move(storage)) {
  // The furthest element must lie inside the buffer.
  std::int64_t last = layout_.offset;
  if (element_count(layout_.dims) > 0)
    for (std::size_t k = 0; k < layout_.dims.size(); ++k) last += (layout_.dims[k] - 1) * layout_.strides[k];
  if (element_count(layout_.dims) > 0 &&
      (layout_.offset < 0 || static_cast<std::size_t>(last + 1) * sizeof(T) > storage_.bytes()))
    throw argument_error(fmt::format("tensor: a view of shape {} reaches element {} of a buffer of {} bytes",
                                     to_string(layout_.dims), last, storage_.bytes()));
}

template <runtime::device_scalar T>
std::vector<T> tensor<T>::to_host() const {
  const std::int64_t count = size();
  std::vector<T> out(static_cast<std::size_t>(count));
  if (count == 0) return out;
  if (layout_.is_row_major()) {
    storage_.read(0, out.size() * sizeof(T), out.data());
    return out;
  }
  std::vector<T> raw(storage_.bytes() / sizeof(T));
  storage_.read(0, raw.size() * sizeof(T), raw.data());
  std::vector<std::int64_t> index(layout_.dims.size(), 0);
  for (std::int64_t e = 0; e < count; ++e) {
    std::int64_t o = layout_.offset;
    for (std::size_t k = 0; k < index.size(); ++k) o += index[k] * layout_.strides[k];
    out[static_cast<std::size_t>(e)] = raw[static_cast<std::size_t>(o)];
    for (std::size_t k = index.size(); k-- > 0;) {
      if (++index[k] < layout_.dims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

template <runtime::device_scalar T>
matrix<T> to_matrix(const tensor<T>& t) {
  if (t.rank() > 2)
    throw argument_error(fmt::format("to_matrix: a tensor of shape {} has rank {}; a matrix has at most 2",
                                     to_string(t.dims()), t.rank()));
  const std::int64_t rows = t.rank() >= 1 ? t.dims()[0] : 1;
  const std::int64_t cols = t.rank() == 2 ? t.dims()[1] : 1;
  const std::vector<T> row_major = t.to_host();
  std::vector<T> column_major(row_major.size());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      column_major[static_cast<std::size_t>(i + j * rows)] = row_major[static_cast<std::size_t>(i * cols + j)];
  return matrix<T>(column_major, rows, cols, matrix_view::entire, t.ctx());
}

template class tensor<float>;
template class tensor<double>;
template matrix<float> to_matrix(const tensor<float>&);
template matrix<double> to_matrix(const tensor<double>&);

}  // namespace tessera::tile
