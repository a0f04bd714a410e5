#pragma once
// Symbolic values: what a kernel lambda receives when it is traced into OpenCL C.
//
// The lambda is called once with these types instead of numbers. Every operation on them
// appends OpenCL C to the kernel_trace they share and returns a new symbolic value, so the
// same generic lambda that the OpenMP executor calls with float& and int64 becomes a kernel.
//
// Three kinds, so that the kernel means what the host loop means:
// - traced<T>: an immutable value (a literal, a kernel parameter, or `const T vN = ...;`).
//   Every operation is materialized at once into a fresh constant, so a value is a snapshot,
//   as on the host: `auto t = x[i] * 2; x[i] = 0; y[i] = t;` stores the old x[i] * 2.
// - traced_var<T>: a mutable local variable, made by var(...). Copies are new variables.
// - traced_ref<T>: an element of an argument (`x[i]`, `x(row, col)`). It exists only as a
//   temporary: `x[i] += v` works, `auto r = x[i];` followed by a read of r does not compile,
//   because on the host r would be a copy and here it would alias the element.
//
// What does not compile, rather than trace wrongly (each is a static_assert naming the fix):
// - a traced value in a C++ condition (`if (x[i] > 0)`, `?:`, `while`): use if_, select;
// - `&&` and `||` on traced values: they would evaluate both sides, unlike the host's
//   short-circuit; use `&` and `|` (both sides evaluated on both backends) or nested if_;
// - reading an element reference that was stored (`auto r = x[i]; y[i] = r;`): use var or value;
// - assigning to a traced<T> (values are immutable): declare it with var(...).
#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <tessera/codegen/kernel_builder.hpp>
#include <tessera/unified/kernel_trace.hpp>

namespace tessera::unified {

/// The scalar types kernels compute with (bool only as a value, never stored).
template <typename T>
concept kernel_value =
    std::same_as<T, bool> || std::same_as<T, float> || std::same_as<T, double> || std::same_as<T, std::int8_t> ||
    std::same_as<T, std::uint8_t> || std::same_as<T, std::int16_t> || std::same_as<T, std::uint16_t> ||
    std::same_as<T, std::int32_t> || std::same_as<T, std::uint32_t> || std::same_as<T, std::int64_t> ||
    std::same_as<T, std::uint64_t> || std::same_as<T, long long> || std::same_as<T, unsigned long long>;

namespace detail {
template <typename>
inline constexpr bool always_false = false;

/// T's value as an OpenCL C literal of type T.
template <kernel_value T>
std::string literal(T value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_floating_point_v<T>) {
    return codegen::float_literal(static_cast<double>(value), std::is_same_v<T, float>);
  } else {
    constexpr std::string_view suffix = sizeof(T) == 8 ? (std::is_signed_v<T> ? "L" : "UL")
                                        : std::is_signed_v<T> ? ""
                                                              : "U";
    std::string text;
    if constexpr (std::is_signed_v<T>) {
      // The most negative value has no literal: its magnitude overflows the type.
      if (value == std::numeric_limits<T>::min())
        text = "(" + std::to_string(static_cast<long long>(value) + 1) + std::string(suffix) + " - 1" +
               std::string(suffix) + ")";
      else if (value < 0)
        text = "(" + std::to_string(static_cast<long long>(value)) + std::string(suffix) + ")";
      else
        text = std::to_string(static_cast<long long>(value)) + std::string(suffix);
    } else {
      text = std::to_string(static_cast<unsigned long long>(value)) + std::string(suffix);
    }
    if constexpr (sizeof(T) < 4) text = "((" + std::string(codegen::opencl_type_name<T>()) + ")" + text + ")";
    return text;
  }
}
}  // namespace detail

/// What every symbolic object has: the trace that records it, its OpenCL C text and the
/// block that declared it.
class symbol {
 public:
  symbol(std::shared_ptr<kernel_trace> trace, std::string text, std::size_t scope)
      : trace_(std::move(trace)), text_(std::move(text)), scope_(scope) {}

  const std::shared_ptr<kernel_trace>& trace() const noexcept { return trace_; }
  /// The text, unchecked (for messages and tests).
  const std::string& text() const noexcept { return text_; }
  std::size_t scope() const noexcept { return scope_; }
  /// The text, after checking that this value may be used in the block being recorded.
  const std::string& checked_text() const {
    trace_->check_visible(scope_);
    return text_;
  }

  // A symbolic value has no C++ truth value: the host cannot know which way the kernel goes.
  template <std::same_as<bool> B>
  explicit operator B() const {
    static_assert(detail::always_false<B>,
                  "tessera::unified: a traced value cannot steer C++ control flow (if, ?:, while, &&, ||, "
                  "!= nullptr). Use if_(cond, [&] { ... }).else_([&] { ... }), select(cond, a, b) or "
                  "for_(begin, end, [&](auto k) { ... }).");
    return false;
  }

 private:
  std::shared_ptr<kernel_trace> trace_;
  std::string text_;
  std::size_t scope_;
};

/// An immutable symbolic value of type T.
template <kernel_value T>
class traced : public symbol {
 public:
  using value_type = T;
  using symbol::symbol;
  traced(const traced&) = default;
  // Deleted: traced values are immutable constants of the kernel; rebinding one inside a
  // for_ body would not carry over to the next iteration. Declare it with var(...) instead.
  traced& operator=(const traced&) = delete;
  template <typename U>
  traced& operator=(U&&) {
    static_assert(detail::always_false<U>,
                  "tessera::unified: a traced value is immutable; declare it with var(...) to assign it");
    return *this;
  }
};

template <kernel_value T>
class traced_var;
template <kernel_value T, bool Const>
class traced_ref;

namespace detail {
template <typename D>
struct operand_traits {
  static constexpr bool is_symbolic = false;
  static constexpr bool is_host = kernel_value<D>;
  static constexpr bool is_reference = false;
  using value_type = D;
};
template <typename T>
struct operand_traits<traced<T>> {
  static constexpr bool is_symbolic = true;
  static constexpr bool is_host = false;
  static constexpr bool is_reference = false;
  using value_type = T;
};
template <typename T>
struct operand_traits<traced_var<T>> : operand_traits<traced<T>> {};
template <typename T, bool Const>
struct operand_traits<traced_ref<T, Const>> : operand_traits<traced<T>> {
  static constexpr bool is_reference = true;
};
}  // namespace detail

/// A symbolic scalar: traced<T>, traced_var<T> or an element reference.
template <typename A>
concept symbolic_operand = detail::operand_traits<std::remove_cvref_t<A>>::is_symbolic;
/// A host scalar that joins symbolic arithmetic as a literal.
template <typename A>
concept host_operand = detail::operand_traits<std::remove_cvref_t<A>>::is_host;
template <typename A>
concept operand = symbolic_operand<A> || host_operand<A>;
/// The scalar type an operand stands for.
template <operand A>
using operand_value_t = typename detail::operand_traits<std::remove_cvref_t<A>>::value_type;

/// Whether an operation on A and B is recorded (at least one is symbolic).
template <typename A, typename B>
concept symbolic_pair = (symbolic_operand<A> && operand<B>) || (host_operand<A> && symbolic_operand<B>);

namespace detail {

/// The one trace shared by the symbolic objects among args; throws if two traces meet.
template <typename... A>
std::shared_ptr<kernel_trace> common_trace(const A&... args) {
  std::shared_ptr<kernel_trace> found;
  auto visit = [&](const auto& a) {
    if constexpr (std::derived_from<std::remove_cvref_t<decltype(a)>, symbol>) {
      if (!found) found = a.trace();
      else if (found != a.trace())
        found->fail("values of two different traces were combined (a symbolic value was kept from another "
                    "kernel's trace)");
    }
  };
  (visit(args), ...);
  return found;
}

/// The OpenCL C text of an operand, ready to use in an expression recorded now. Element
/// references are loaded into a constant; host values become literals.
template <typename A>
std::string text_of(kernel_trace& trace, A&& a) {
  using D = std::remove_cvref_t<A>;
  if constexpr (operand_traits<D>::is_reference) {
    static_assert(!std::is_lvalue_reference_v<A>,
                  "tessera::unified: an element reference (x[i], x(row, col)) was stored and read later; on "
                  "the host that would be a copy, in the kernel an alias. Take a copy with var(x[i]) or "
                  "value(x[i]).");
    return a.load();
  } else if constexpr (operand_traits<D>::is_symbolic) {
    return a.checked_text();
  } else {
    if constexpr (std::is_same_v<D, double>) trace.require_fp64();
    return literal<D>(a);
  }
}

/// text_of, converted to C when the operand's type differs (as C++'s usual conversions do).
template <kernel_value C, typename A>
std::string converted_text(kernel_trace& trace, A&& a) {
  std::string text = text_of(trace, std::forward<A>(a));
  if constexpr (std::is_same_v<operand_value_t<A>, C>) return text;
  else return "(" + std::string(trace.type_name<C>()) + ")" + text;
}

/// `const R vN = expression;` in the current block.
template <kernel_value R>
traced<R> make_constant(const std::shared_ptr<kernel_trace>& trace, const std::string& expression) {
  std::string name = trace->constant(trace->template type_name<R>(), expression);
  return traced<R>(trace, std::move(name), trace->scope());
}

/// A host value as a literal of trace (visible everywhere).
template <kernel_value T>
traced<T> make_literal(const std::shared_ptr<kernel_trace>& trace, T value) {
  if constexpr (std::is_same_v<T, double>) trace->require_fp64();
  return traced<T>(trace, literal<T>(value), 0);
}

/// Records `(a op b)` with both sides converted to C, as a constant of type R.
template <kernel_value R, kernel_value C, typename A, typename B>
traced<R> binary(const char* op, A&& a, B&& b) {
  auto trace = common_trace(a, b);
  std::string left = converted_text<C>(*trace, std::forward<A>(a));
  std::string right = converted_text<C>(*trace, std::forward<B>(b));
  return make_constant<R>(trace, "(" + left + " " + op + " " + right + ")");
}

/// Emits `target op value;` for an assignment to a variable or an element.
template <typename U>
void assign(kernel_trace& trace, const std::string& target, const char* op, U&& value) {
  std::string text = text_of(trace, std::forward<U>(value));
  trace.statement(target + " " + op + " " + text);
}
}  // namespace detail

/// A mutable local variable of the kernel (var(...) makes one).
template <kernel_value T>
class traced_var : public symbol {
 public:
  using value_type = T;
  using symbol::symbol;
  /// A copy is a new variable holding the current value, as a host copy would be.
  traced_var(const traced_var& other)
      : symbol(other.trace(), other.trace()->variable(other.trace()->template type_name<T>(), other.checked_text()),
               other.trace()->scope()) {}

  traced_var& operator=(const traced_var& other) {
    detail::common_trace(*this, other);
    detail::assign(*trace(), checked_text(), "=", other);
    return *this;
  }
  template <operand U>
    requires requires(T& t, operand_value_t<U> u) { t = u; }
  traced_var& operator=(U&& value) {
    detail::common_trace(*this, value);
    detail::assign(*trace(), checked_text(), "=", std::forward<U>(value));
    return *this;
  }

#define TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(OP)                                 \
  template <operand U>                                                          \
    requires requires(T& t, operand_value_t<U> u) { t OP u; }                   \
  traced_var& operator OP(U&& value) {                                          \
    detail::common_trace(*this, value);                                         \
    detail::assign(*trace(), checked_text(), #OP, std::forward<U>(value));      \
    return *this;                                                               \
  }
  TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(+=)
  TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(-=)
  TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(*=)
  TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(/=)
  TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(%=)
  TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(&=)
  TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(|=)
  TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(^=)
  TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(<<=)
  TESSERA_UNIFIED_COMPOUND_ASSIGNMENT(>>=)
#undef TESSERA_UNIFIED_COMPOUND_ASSIGNMENT

  traced_var& operator++()
    requires(!std::is_same_v<T, bool>)
  {
    trace()->statement("++" + checked_text());
    return *this;
  }
  traced_var& operator--()
    requires(!std::is_same_v<T, bool>)
  {
    trace()->statement("--" + checked_text());
    return *this;
  }
};

/// An element of a kernel argument, usable only as a temporary (see the top of this file).
template <kernel_value T, bool Const>
class traced_ref : public symbol {
 public:
  using value_type = T;
  using symbol::symbol;
  traced_ref(const traced_ref&) = delete;
  traced_ref& operator=(const traced_ref&) = delete;

  template <operand U>
    requires(!Const) && requires(T& t, operand_value_t<U> u) { t = u; }
  void operator=(U&& value) && {
    detail::common_trace(*this, value);
    detail::assign(*trace(), checked_text(), "=", std::forward<U>(value));
  }

#define TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(OP)                                  \
  template <operand U>                                                          \
    requires(!Const) && requires(T& t, operand_value_t<U> u) { t OP u; }        \
  void operator OP(U&& value) && {                                              \
    detail::common_trace(*this, value);                                         \
    detail::assign(*trace(), checked_text(), #OP, std::forward<U>(value));      \
  }
  TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(+=)
  TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(-=)
  TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(*=)
  TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(/=)
  TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(%=)
  TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(&=)
  TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(|=)
  TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(^=)
  TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(<<=)
  TESSERA_UNIFIED_ELEMENT_ASSIGNMENT(>>=)
#undef TESSERA_UNIFIED_ELEMENT_ASSIGNMENT

  /// Records `const T vN = element;` and returns vN (what reading the element means).
  std::string load() const { return trace()->constant(trace()->template type_name<T>(), checked_text()); }
};

// --- operators -------------------------------------------------------------------------
// One list: the C++ operator and whether its result is the operands' common type or bool.
#define TESSERA_UNIFIED_ARITHMETIC_OPERATORS(X) X(+) X(-) X(*) X(/) X(%) X(&) X(|) X(^)
#define TESSERA_UNIFIED_COMPARISON_OPERATORS(X) X(<) X(>) X(<=) X(>=) X(==) X(!=)

#define TESSERA_UNIFIED_BINARY_OPERATOR(OP)                                                              \
  template <typename A, typename B>                                                                      \
    requires symbolic_pair<A, B> &&                                                                      \
             requires(operand_value_t<A> a, operand_value_t<B> b) { a OP b; }                            \
  auto operator OP(A&& a, B&& b) {                                                                       \
    using result = decltype(std::declval<operand_value_t<A>>() OP std::declval<operand_value_t<B>>());   \
    using common = decltype(std::declval<operand_value_t<A>>() + std::declval<operand_value_t<B>>());    \
    return detail::binary<result, common>(#OP, std::forward<A>(a), std::forward<B>(b));                  \
  }
TESSERA_UNIFIED_ARITHMETIC_OPERATORS(TESSERA_UNIFIED_BINARY_OPERATOR)
TESSERA_UNIFIED_COMPARISON_OPERATORS(TESSERA_UNIFIED_BINARY_OPERATOR)
#undef TESSERA_UNIFIED_BINARY_OPERATOR

// Shifts: the result has the promoted type of the left side; the right side is not converted.
#define TESSERA_UNIFIED_SHIFT_OPERATOR(OP)                                                               \
  template <typename A, typename B>                                                                      \
    requires symbolic_pair<A, B> && std::is_integral_v<operand_value_t<A>> &&                            \
             std::is_integral_v<operand_value_t<B>> &&                                                   \
             (!std::is_same_v<operand_value_t<A>, bool>) && (!std::is_same_v<operand_value_t<B>, bool>)  \
  auto operator OP(A&& a, B&& b) {                                                                       \
    using result = decltype(std::declval<operand_value_t<A>>() OP std::declval<operand_value_t<B>>());   \
    auto trace = detail::common_trace(a, b);                                                             \
    std::string left = detail::converted_text<result>(*trace, std::forward<A>(a));                       \
    std::string right = detail::text_of(*trace, std::forward<B>(b));                                     \
    return detail::make_constant<result>(trace, "(" + left + " " #OP " " + right + ")");                 \
  }
TESSERA_UNIFIED_SHIFT_OPERATOR(<<)
TESSERA_UNIFIED_SHIFT_OPERATOR(>>)
#undef TESSERA_UNIFIED_SHIFT_OPERATOR

template <typename A, typename B>
  requires symbolic_pair<A, B>
traced<bool> operator&&(A&&, B&&) {
  static_assert(detail::always_false<A>,
                "tessera::unified: && on traced values would evaluate both sides (the host short-circuits). "
                "Write (a) & (b) when both sides are safe to evaluate, or nest if_ to guard the right side.");
  return {nullptr, {}, 0};
}
template <typename A, typename B>
  requires symbolic_pair<A, B>
traced<bool> operator||(A&&, B&&) {
  static_assert(detail::always_false<A>,
                "tessera::unified: || on traced values would evaluate both sides (the host short-circuits). "
                "Write (a) | (b) when both sides are safe to evaluate, or use if_/else_.");
  return {nullptr, {}, 0};
}

template <symbolic_operand A>
traced<bool> operator!(A&& a) {
  auto trace = detail::common_trace(a);
  std::string text = detail::text_of(*trace, std::forward<A>(a));
  return detail::make_constant<bool>(trace, "(!" + text + ")");
}

#define TESSERA_UNIFIED_UNARY_OPERATOR(OP)                                                   \
  template <symbolic_operand A>                                                              \
    requires requires(operand_value_t<A> a) { OP a; }                                        \
  auto operator OP(A&& a) {                                                                  \
    using result = decltype(OP std::declval<operand_value_t<A>>());                          \
    auto trace = detail::common_trace(a);                                                    \
    std::string text = detail::converted_text<result>(*trace, std::forward<A>(a));           \
    return detail::make_constant<result>(trace, "(" #OP + text + ")");                       \
  }
TESSERA_UNIFIED_UNARY_OPERATOR(-)
TESSERA_UNIFIED_UNARY_OPERATOR(+)
TESSERA_UNIFIED_UNARY_OPERATOR(~)
#undef TESSERA_UNIFIED_UNARY_OPERATOR

}  // namespace tessera::unified
