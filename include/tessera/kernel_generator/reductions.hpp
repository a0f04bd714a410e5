#pragma once
// Rowwise and colwise reductions: rowwise_sum(a) is the M x 1 column of a's row sums,
// colwise_sum(a) the 1 x N row of its column sums; likewise prod, max and min. Each result
// is finished (no partial results for the caller to combine), so a reduction can be used
// anywhere inside a larger expression. Floating sums are compensated (Kahan), so they stay
// within a few ulps of the exact sum however long the rows are.
//
// How it runs (reduction_skeleton.hpp): a reduction the assignment reads in place (the root,
// `s = rowwise_sum(elt_multiply(a, b))`, `n = sqrt(colwise_sum(a * a))`) is computed by
// work-groups that share each result, reading its argument once and coalesced, several
// work-groups per result when results are few, with the rest of the expression applied to the
// finished value. A reduction anywhere else (under a broadcast: `a - colwise_broadcast(
// rowwise_max(a))`) is evaluated once into a temporary before the assignment's kernel, which
// reads it. Inside a fused GEMM's store step a reduction is still a loop per element.
//
// The online rule (GPUs): a sum of exp(E - broadcast(M)), M the maximum of the same E along the
// same dimension (softmax, log-sum-exp), is computed with M in one pass over E: each lane keeps
// (maximum, sum of exp(x - maximum)) and rescales the sum when the maximum grows. The values are
// the two passes' within rounding, NaN and infinities included; one read of E instead of two.
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include <tessera/kernel_generator/argument_list.hpp>
#include <tessera/kernel_generator/as_operation.hpp>
#include <tessera/kernel_generator/binary_operators.hpp>
#include <tessera/kernel_generator/broadcast.hpp>
#include <tessera/kernel_generator/math_functions.hpp>

namespace tessera::kernel_generator {

/// The sum: `acc` accumulates `value`; Kahan-compensated for floating types.
struct sum_reduction {
  static constexpr std::string_view name = "sum";
  static std::string combine(const std::string& a, const std::string& b) { return "(" + a + " + " + b + ")"; }
  template <typename T>
  static std::string initial() {
    return "0";
  }
  template <typename T>
  static T host_initial() {
    return T(0);
  }
};
struct prod_reduction {
  static constexpr std::string_view name = "prod";
  static std::string combine(const std::string& a, const std::string& b) { return "(" + a + " * " + b + ")"; }
  template <typename T>
  static std::string initial() {
    return "1";
  }
  template <typename T>
  static T host_initial() {
    return T(1);
  }
  template <typename T>
  static std::string accumulate(const std::string& acc, const std::string& value) {
    return acc + " * " + value;
  }
  template <typename T>
  static T host_accumulate(T acc, T value) {
    return acc * value;
  }
};
/// Maximum; NaN elements are skipped (a comparison with NaN is false), on the host likewise.
/// An empty row's maximum is -infinity (INT_MIN for int).
struct max_reduction {
  static constexpr std::string_view name = "max";
  static std::string combine(const std::string& a, const std::string& b) {
    return "(" + b + " > " + a + " ? " + b + " : " + a + ")";
  }
  template <typename T>
  static std::string initial() {
    return std::is_floating_point_v<T> ? "-INFINITY" : "INT_MIN";
  }
  template <typename T>
  static T host_initial() {
    return std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  }
  template <typename T>
  static std::string accumulate(const std::string& acc, const std::string& value) {
    return value + " > " + acc + " ? " + value + " : " + acc;
  }
  template <typename T>
  static T host_accumulate(T acc, T value) {
    return value > acc ? value : acc;
  }
};
/// Minimum; NaN elements are skipped. An empty row's minimum is +infinity (INT_MAX for int).
struct min_reduction {
  static constexpr std::string_view name = "min";
  static std::string combine(const std::string& a, const std::string& b) {
    return "(" + b + " < " + a + " ? " + b + " : " + a + ")";
  }
  template <typename T>
  static std::string initial() {
    return std::is_floating_point_v<T> ? "INFINITY" : "INT_MAX";
  }
  template <typename T>
  static T host_initial() {
    return std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
  template <typename T>
  static std::string accumulate(const std::string& acc, const std::string& value) {
    return value + " < " + acc + " ? " + value + " : " + acc;
  }
  template <typename T>
  static T host_accumulate(T acc, T value) {
    return value < acc ? value : acc;
  }
};

template <typename Op, bool Rowwise, typename A>
class reduction_;

namespace detail {
// Whether an argument is exp(E - broadcast(M)), M the maximum of E along one dimension and
// broadcast along the other (the softmax's and log-sum-exp's), and which dimension.
template <typename M, typename E, bool Rows, bool Cols>
struct online_max_of {
  static constexpr bool matches = false;
};
template <bool Rowwise, typename E2, typename E, bool Rows, bool Cols>
struct online_max_of<reduction_<max_reduction, Rowwise, E2>, E, Rows, Cols> {
  static constexpr bool matches = std::is_same_v<std::remove_cvref_t<E2>, E> && Rows == !Rowwise && Cols == Rowwise;
  static constexpr bool rowwise = Rowwise;
};
template <typename B, typename E>
struct online_broadcast_of {
  static constexpr bool matches = false;
};
template <typename M, bool Rows, bool Cols, typename E>
struct online_broadcast_of<broadcast_<M, Rows, Cols>, E> : online_max_of<std::remove_cvref_t<M>, E, Rows, Cols> {};
template <typename D>
struct online_difference {
  static constexpr bool matches = false;
};
template <typename E, typename B>
struct online_difference<binary_operation_<subtraction_op, E, B>>
    : online_broadcast_of<std::remove_cvref_t<B>, std::remove_cvref_t<E>> {};
template <typename A>
struct online_exp {
  static constexpr bool matches = false;
};
template <typename D>
struct online_exp<unary_operation_<math_function_op<codegen::math::exp>, D>>
    : online_difference<std::remove_cvref_t<D>> {};
}  // namespace detail

template <typename Op, bool Rowwise, typename A>
class reduction_ : public operation<reduction_<Op, Rowwise, A>, promoted_t<value_type_t<A>, value_type_t<A>>, A> {
  using base = operation<reduction_<Op, Rowwise, A>, promoted_t<value_type_t<A>, value_type_t<A>>, A>;

 public:
  using typename base::value_type;
  static constexpr bool has_reductions = true;

  template <typename X>
  explicit reduction_(X&& a) : base(std::forward<X>(a)) {
    const auto& arg = this->template argument<0>();
    if (length() == any_size)
      throw argument_error(std::string(Rowwise ? "rowwise_" : "colwise_") + std::string(Op::name) +
                           ": the argument (" + shape_string(arg.rows(), arg.cols()) + ") has no " +
                           (Rowwise ? "column" : "row") + " count of its own to reduce over");
  }

  /// How many elements each result element combines.
  index_t length() const noexcept {
    return Rowwise ? this->template argument<0>().cols() : this->template argument<0>().rows();
  }
  index_t rows() const noexcept { return Rowwise ? this->template argument<0>().rows() : 1; }
  index_t cols() const noexcept { return Rowwise ? 1 : this->template argument<0>().cols(); }
  access_map argument_map(const access_map&) const { return access_map::unknown(); }

  template <typename Visitor>
  void own_parameters(Visitor& visitor) const {
    visitor.integer(this, "length", length());
  }

  /// Materialized: the temporary holding the results is this node's only parameter.
  template <typename Visitor>
  void visit_parameters(Visitor& visitor) const {
    if (materialized_) visitor.matrix(this, *materialized_, false);
    else base::visit_parameters(visitor);
  }

  /// Registers this reduction with the assignment (access.hpp: reduction_site), then the reads
  /// of its argument, which it reads anywhere.
  void collect_accesses(access_collector& collector, const access_map& map) const {
    constexpr bool compensated = std::is_same_v<Op, sum_reduction> && std::is_floating_point_v<value_type>;
    reduction_site site{
        this, map, Rowwise, Rowwise ? rows() : cols(), length(), std::string(codegen::opencl_type_name<value_type>()),
        sizeof(value_type), compensated, Op::template initial<value_type>(),
        [this](kernel_context& kc, const std::string& row, const std::string& col) {
          return this->template argument<0>().generate(kc, row, col);
        },
        [](const std::string& a, const std::string& b) { return Op::combine(a, b); },
        [this](const runtime::context& ctx) { return materialize(ctx); }, [this] { return materialized_ != nullptr; },
        [this] { materialized_.reset(); }, [this](const runtime::context& ctx) { return materializing_source(ctx); },
        [this](const runtime::context& ctx) {
          materialized_ = std::make_shared<matrix<value_type>>(0, 0, matrix_view::entire, ctx);
        },
        [this](bool one_term) { one_term_ = one_term; }};
    if constexpr (online_softmax_sum) {
      // The rule holds when the E beside the maximum and the E it reduces read the same values.
      parameter_values beside, reduced;
      online_e().visit_parameters(beside);
      online_max().template argument<0>().visit_parameters(reduced);
      if (beside == reduced) {
        site.online_max = &online_max();
        site.online_term = [this](kernel_context& kc, const std::string& row, const std::string& col) {
          return online_e().generate(kc, row, col);
        };
        site.materialize_with_max = [this](const runtime::context& ctx) { return materialize_with_max(ctx); };
        site.materializing_with_max_source = [this](const runtime::context& ctx) {
          return materializing_with_max_source(ctx);
        };
      }
    }
    collector.reduce(std::move(site));
    base::collect_accesses(collector, map);
  }

  /// A sum of exp(E - broadcast(max(E))) along this reduction's dimension, E of this value type
  /// and elementwise: the online maximum-and-sum rule applies (access.hpp: reduction_site::online_max).
  static constexpr bool online_softmax_sum = [] {
    if constexpr (std::is_same_v<Op, sum_reduction> && std::is_floating_point_v<value_type> &&
                  detail::online_exp<std::remove_cvref_t<A>>::matches) {
      using difference = std::remove_cvref_t<decltype(std::declval<const A&>().template argument<0>())>;
      using E = std::remove_cvref_t<decltype(std::declval<const difference&>().template argument<0>())>;
      return detail::online_exp<std::remove_cvref_t<A>>::rowwise == Rowwise &&
             std::is_same_v<value_type_t<E>, value_type> && !E::has_reductions &&
             E::skeleton == kernel_skeleton::elementwise;
    } else {
      return false;
    }
  }();

  /// Evaluates this sum and the maximum it subtracts into their temporaries in one pass
  /// (online_softmax_sum; defined in assignment.hpp).
  cl::Event materialize_with_max(const runtime::context& ctx) const;
  std::string materializing_with_max_source(const runtime::context& ctx) const;

  /// Evaluates the results into a temporary, which the assignment's kernels then read
  /// (defined in assignment.hpp).
  cl::Event materialize(const runtime::context& ctx) const;
  /// The kernels materialize runs (defined in assignment.hpp).
  std::string materializing_source(const runtime::context& ctx) const;

  /// Reached when the reduction is materialized (a load), or inside a fused GEMM's store
  /// step (a loop over the reduced dimension per element); a root's value is remembered by
  /// the reduction skeleton before the rest of the expression is generated.
  std::string emit(kernel_context& kc, const std::string& i, const std::string& j) const {
    if (materialized_) {
      const matrix_parameter& p = kc.matrix_parameter_of(materialized_.get());
      return kc.builder().declare_fresh(std::string(codegen::opencl_type_name<value_type>()), element_of(p, i, j));
    }
    return emit_loop(kc, i, j);
  }

 private:
  /// A loop over the terms; for one term (one_term_), the loop's one step alone, the same
  /// arithmetic (so the same bits) without the loop.
  std::string emit_loop(kernel_context& kc, const std::string& i, const std::string& j) const {
    auto& b = kc.builder();
    const std::string type(codegen::opencl_type_name<value_type>());
    const std::string acc = b.fresh_name("r");
    const std::string k = one_term_ ? "0" : b.fresh_name("k");
    constexpr bool compensated = std::is_same_v<Op, sum_reduction> && std::is_floating_point_v<value_type>;
    b.declare(type, acc, Op::template initial<value_type>());
    if constexpr (compensated) b.declare(type, acc + "_c", "0");
    if (!one_term_)
      kc.open_scope("for (int " + k + " = 0; " + k + " < " + kc.integer_parameter_of(this, "length") + "; ++" + k + ")");
    const std::string value = this->template argument<0>().generate(kc, Rowwise ? i : k, Rowwise ? k : j);
    if constexpr (compensated) {
      // Kahan: acc_c carries the low-order bits lost by the previous addition.
      b.declare("const " + type, acc + "_y", value + " - " + acc + "_c");
      b.declare("const " + type, acc + "_t", acc + " + " + acc + "_y");
      b.assign(acc + "_c", "(" + acc + "_t - " + acc + ") - " + acc + "_y");
      b.assign(acc, acc + "_t");
    } else if constexpr (std::is_same_v<Op, sum_reduction>) {
      b.assign(acc, value, "+=");
    } else {
      b.assign(acc, Op::template accumulate<value_type>(acc, value));
    }
    if (!one_term_) kc.close_scope();
    return acc;
  }

  /// The parts of exp(E - broadcast(M)) (online_softmax_sum only).
  const auto& online_e() const {
    return this->template argument<0>().template argument<0>().template argument<0>();
  }
  const auto& online_max() const {
    return this->template argument<0>().template argument<0>().template argument<1>().template argument<0>();
  }

  template <typename, bool, typename>
  friend class reduction_;  // materialize_with_max sets the maximum's temporary

  mutable std::shared_ptr<matrix<value_type>> materialized_;
  mutable bool one_term_ = false;

 public:
  value_type host_value(index_t i, index_t j) const {
    const auto& arg = this->template argument<0>();
    value_type acc = Op::template host_initial<value_type>();
    value_type compensation = 0;
    for (index_t k = 0; k < length(); ++k) {
      const auto value = static_cast<value_type>(Rowwise ? arg.host_value(i, k) : arg.host_value(k, j));
      if constexpr (std::is_same_v<Op, sum_reduction> && std::is_floating_point_v<value_type>) {
        const value_type y = value - compensation;
        const value_type t = acc + y;
        compensation = (t - acc) - y;
        acc = t;
      } else if constexpr (std::is_same_v<Op, sum_reduction>) {
        acc += value;
      } else {
        acc = Op::template host_accumulate<value_type>(acc, value);
      }
    }
    return acc;
  }
};

// name: rowwise_NAME(a) and colwise_NAME(a) for each reduction.
#define TESSERA_KERNEL_GENERATOR_REDUCTIONS(X) X(sum) X(prod) X(max) X(min)

#define TESSERA_KERNEL_GENERATOR_DEFINE_REDUCTION(name_)                                                 \
  template <operand A>                                                                                   \
  auto rowwise_##name_(A&& a) {                                                                          \
    return reduction_<name_##_reduction, true, as_operation_t<A>>(as_operation(std::forward<A>(a)));     \
  }                                                                                                      \
  template <operand A>                                                                                   \
  auto colwise_##name_(A&& a) {                                                                          \
    return reduction_<name_##_reduction, false, as_operation_t<A>>(as_operation(std::forward<A>(a)));    \
  }
TESSERA_KERNEL_GENERATOR_REDUCTIONS(TESSERA_KERNEL_GENERATOR_DEFINE_REDUCTION)
#undef TESSERA_KERNEL_GENERATOR_DEFINE_REDUCTION

}  // namespace tessera::kernel_generator
