#pragma once
// matmul(a, b): the matrix product, computed by the tuned GEMM (blas::gemm's kernel families
// and its defaults table), never by a kernel of the generator's own.
//
// Its skeleton is kernel_skeleton::gemm. In an assignment where it is the root's producer
// (reached only through elementwise operations that read it in place, the one matmul of the
// assignment), the assignment is ONE kernel: the GEMM, with the rest of every expression and
// the store step generated into the GEMM's store (gemm_common.cl's GEMM_STORE_STEP hook).
// Anywhere else (under a transpose, a block, a reduction or a broadcast; two matmuls) it is
// evaluated into a temporary by blas::gemm first, and the assignment's kernel loads that.
//
// Operands are matrices or transposes of matrices (the GEMM reads them in place); evaluate
// other expressions into a matrix first. matmul(a, b, blas::math_mode::tf32) lets a float
// product run on tensor cores in TF32 (blas::math_mode), fused or not.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <tessera/blas/gemm.hpp>
#include <tessera/kernel_generator/argument_list.hpp>
#include <tessera/kernel_generator/as_operation.hpp>
#include <tessera/kernel_generator/transpose.hpp>

namespace tessera::kernel_generator {

/// What a fused assignment hands its producer: the store step's source, the arguments it
/// takes (after the GEMM's own), where C lies (the first target: it passes the GEMM's
/// argument checks, the store step writes the results) and an optional configuration.
struct fused_launch {
  std::string_view source;
  const argument_list* arguments;
  const runtime::device_buffer* c;
  std::size_t c_offset;
  index_t ldc;
  const blas::gemm_params* params;  // null: the defaults table, as blas::gemm
};

/// A GEMM operand: a matrix (load_) or the transpose of one.
template <typename Operation>
struct gemm_operand : std::false_type {};
template <typename M>
struct gemm_operand<load_<M>> : std::true_type {
  static constexpr bool transposed = false;
  static const auto& matrix_of(const load_<M>& x) { return x.matrix(); }
};
template <typename M>
struct gemm_operand<transpose_<load_<M>>> : std::true_type {
  static constexpr bool transposed = true;
  static const auto& matrix_of(const transpose_<load_<M>>& x) { return x.template argument<0>().matrix(); }
};
template <typename M>
struct gemm_operand<transpose_<const load_<M>&>> : std::true_type {
  static constexpr bool transposed = true;
  static const auto& matrix_of(const transpose_<const load_<M>&>& x) { return x.template argument<0>().matrix(); }
};

template <typename A, typename B>
class matmul_ : public operation<matmul_<A, B>, value_type_t<A>, A, B> {
  using base = operation<matmul_<A, B>, value_type_t<A>, A, B>;
  using a_operand = gemm_operand<std::remove_cvref_t<A>>;
  using b_operand = gemm_operand<std::remove_cvref_t<B>>;
  static_assert(a_operand::value && b_operand::value,
                "matmul takes matrices or transpose(matrix); evaluate other expressions into a matrix first");
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>> && std::is_floating_point_v<value_type_t<A>>,
                "matmul multiplies two float or two double matrices");

 public:
  using T = value_type_t<A>;
  using typename base::value_type;
  static constexpr kernel_skeleton skeleton = kernel_skeleton::gemm;

  template <typename X, typename Y>
  matmul_(X&& a, Y&& b, blas::math_mode math = blas::math_mode::exact)
      : base(std::forward<X>(a), std::forward<Y>(b)), math_(math) {
    // Two declarations: the operands' types differ (one `auto` for both is ill-formed; clang refuses it).
    const auto& x = this->template argument<0>();
    const auto& y = this->template argument<1>();
    if (x.cols() != y.rows())
      throw argument_error("matmul: the inner dimensions differ: " + shape_string(x.rows(), x.cols()) + " times " +
                           shape_string(y.rows(), y.cols()));
  }

  index_t rows() const noexcept { return this->template argument<0>().rows(); }
  index_t cols() const noexcept { return this->template argument<1>().cols(); }
  index_t inner() const noexcept { return this->template argument<0>().cols(); }
  blas::math_mode math() const noexcept { return math_; }
  /// The node itself: a fused kernel remembers the GEMM's value under it.
  const void* identity() const noexcept { return this; }

  /// Materialized: the temporary holding the product is this node's only parameter.
  template <typename Visitor>
  void visit_parameters(Visitor& visitor) const {
    if (materialized_) visitor.matrix(this, *materialized_, false);
    else base::visit_parameters(visitor);
  }

  /// Only reached materialized: a fused kernel remembers the GEMM's value at (i, j) first.
  std::string emit(kernel_context& kc, const std::string& i, const std::string& j) const {
    if (!materialized_)
      throw runtime::error("matmul: generating a kernel for a matmul that is neither fused nor materialized");
    const matrix_parameter& p = kc.matrix_parameter_of(materialized_.get());
    return kc.builder().declare_fresh(codegen::opencl_type_name<T>(), element_of(p, i, j));
  }

  /// The GEMM reads its operands anywhere; the assignment learns where it is read.
  void collect_accesses(access_collector& collector, const access_map& map) const {
    const auto& a = a_operand::matrix_of(this->template argument<0>());
    const auto& b = b_operand::matrix_of(this->template argument<1>());
    collector.produce(producer{
        this, map, std::is_same_v<T, double>,
        {&a, &b, a_operand::transposed, b_operand::transposed, std::is_same_v<T, double>},
        [this](const runtime::context& ctx) { materialize(ctx); },
        [this] { return materialized_ != nullptr; },
        [this] { return std::static_pointer_cast<void>(materialized_); },
        [this](std::shared_ptr<void> m) { materialized_ = std::static_pointer_cast<matrix<T>>(std::move(m)); },
        [this] { materialized_.reset(); }, [this](const fused_launch& f) { return launch_fused(f); }});
    base::collect_accesses(collector, map);
  }
  access_map argument_map(const access_map&) const { return access_map::unknown(); }

  value_type host_value(index_t i, index_t j) const {
    T sum = 0;
    for (index_t k = 0; k < inner(); ++k)
      sum += this->template argument<0>().host_value(i, k) * this->template argument<1>().host_value(k, j);
    return sum;
  }

  /// The blas call computing alpha = 1 times the product, C left to the caller.
  blas::gemm_arguments<T> gemm_call() const {
    const auto& a = a_operand::matrix_of(this->template argument<0>());
    const auto& b = b_operand::matrix_of(this->template argument<1>());
    blas::gemm_arguments<T> args;
    args.trans_a = a_operand::transposed ? blas::transpose::trans : blas::transpose::none;
    args.trans_b = b_operand::transposed ? blas::transpose::trans : blas::transpose::none;
    args.m = rows(), args.n = cols(), args.k = inner();
    args.alpha = T(1), args.beta = T(0);
    args.a = &a.storage(), args.lda = std::max<index_t>(1, a.rows());
    args.b = &b.storage(), args.ldb = std::max<index_t>(1, b.rows());
    args.math = math_;
    return args;
  }

  /// Evaluates the product into a temporary, which the assignment's kernel then loads.
  void materialize(const runtime::context& ctx) const {
    auto product = std::make_shared<matrix<T>>(rows(), cols(), matrix_view::entire, ctx);
    if (rows() > 0 && cols() > 0) {
      blas::gemm_arguments<T> args = gemm_call();
      args.c = &product->storage(), args.ldc = std::max<index_t>(1, rows());
      blas::gemm(args);
    }
    materialized_ = std::move(product);
  }

  /// The one kernel of a fused assignment: the GEMM with the store step f.source.
  cl::Event launch_fused(const fused_launch& f) const {
    blas::gemm_arguments<T> args = gemm_call();
    args.c = f.c, args.c_offset = f.c_offset, args.ldc = f.ldc;
    const blas::detail::gemm_epilogue epilogue{"kernel generator store step", f.source, f.arguments->arguments()};
    return f.params != nullptr ? blas::detail::gemm_with_epilogue(*f.params, args, epilogue)
                               : blas::detail::gemm_with_epilogue(args, epilogue);
  }

 private:
  blas::math_mode math_;
  mutable std::shared_ptr<matrix<T>> materialized_;
};

/// The matrix product a * b (a m x k, b k x n); a and b are matrices or transpose(matrix).
/// math: the arithmetic the GEMM may use (blas::math_mode; exact by default).
template <operand A, operand B>
auto matmul(A&& a, B&& b, blas::math_mode math = blas::math_mode::exact) {
  return matmul_<as_operation_t<A>, as_operation_t<B>>(as_operation(std::forward<A>(a)),
                                                        as_operation(std::forward<B>(b)), math);
}

}  // namespace tessera::kernel_generator
