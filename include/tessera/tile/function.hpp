#pragma once
// The public entry point of Tile:
//
//   auto f = tessera::tile::compile(R"(function (A[M, L], B[L, N]) -> (C) {
//                                        C[i, j: M, N] = +(A[i, k] * B[k, j]);
//                                      })");
//   std::vector<tile::tensor<float>> outs = f(a, b);   // a, b: tile::tensor<float> or matrix<float>
//
// compile() parses and checks (throwing syntax_error or check_error with line:column); a call
// binds the shapes (shape_error), lowers to kernels once per (element type, input layouts,
// context) and caches them, then enqueues the kernels. Outputs are fresh row-major tensors, or
// the caller's own with run(inputs, outputs).
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <tessera/runtime/context.hpp>
#include <tessera/runtime/matrix.hpp>
#include <tessera/tile/lowering.hpp>
#include <tessera/tile/program.hpp>
#include <tessera/tile/tensor.hpp>

namespace tessera::tile {

namespace detail {
template <typename A>
struct element_of;
template <typename T>
struct element_of<tensor<T>> {
  using type = T;
};
template <typename T>
struct element_of<matrix<T>> {
  using type = T;
};
template <typename T>
tensor<T> as_tensor(const tensor<T>& t) {
  return t;
}
template <typename T>
tensor<T> as_tensor(const matrix<T>& m) {
  return tensor<T>(m);
}
}  // namespace detail

template <runtime::device_scalar T>
constexpr element_type element_type_of() {
  return std::is_same_v<T, float> ? element_type::float32 : element_type::float64;
}

class function {
 public:
  explicit function(program p, lowering_options options = {});

  const program& checked() const noexcept { return *program_; }
  const lowering_options& options() const noexcept { return options_; }

  /// Runs the function; inputs in header order. All inputs share one context.
  template <runtime::device_scalar T>
  std::vector<tensor<T>> run(const std::vector<tensor<T>>& inputs) const;

  /// Runs the function into outputs the caller allocated (header order): each must have the
  /// call's output shape, be dense row-major (as `tensor<T>(dims)` makes it) and share no
  /// memory with an input or another output; argument_error or shape_error otherwise.
  /// Repeated calls then allocate nothing (intermediates are reused by every call).
  template <runtime::device_scalar T>
  void run(const std::vector<tensor<T>>& inputs, const std::vector<tensor<T>>& outputs) const;

  /// f(a, b, ...) with tensor<T> and matrix<T> arguments of one element type.
  template <typename First, typename... Rest>
  auto operator()(const First& first, const Rest&... rest) const {
    using T = typename detail::element_of<First>::type;
    return run<T>(std::vector<tensor<T>>{detail::as_tensor(first), detail::as_tensor(rest)...});
  }

  /// The lowering for inputs of these layouts: kernels with their sources, GEMM calls.
  lowered_program lowering(const std::vector<tensor_layout>& inputs, element_type type) const;

  /// Plans (kernels and GEMM calls) built so far for this function.
  std::size_t cached_plans() const;

 private:
  template <runtime::device_scalar T>
  std::vector<tensor<T>> run_impl(const std::vector<tensor<T>>& inputs, const std::vector<tensor<T>>* outputs) const;

  struct cache;
  std::shared_ptr<const program> program_;
  lowering_options options_;
  std::shared_ptr<cache> cache_;
};

/// Parses and checks source; throws syntax_error or check_error.
function compile(std::string_view source, lowering_options options = {});

/// THE place where Tile runs its matrix products (the one call site of GEMM for Tile):
/// tessera::blas's tuned GEMM, strided-batched, with call's arguments (column-major, alpha = 1,
/// beta = 0, offsets and strides in elements). lowering_options can route matrix products to
/// Tile's own contraction kernel instead.
template <runtime::device_scalar T>
void lower_matmul(const runtime::context& ctx, const gemm_call& call, const runtime::device_buffer& a,
                  const runtime::device_buffer& b, const runtime::device_buffer& c);

}  // namespace tessera::tile
