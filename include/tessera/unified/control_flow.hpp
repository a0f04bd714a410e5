#pragma once
// Local variables and control flow that mean the same on both backends: on the host they are
// a copy, an if and a for; traced, they record a variable, a branch and a loop.
//
//   auto sum = var(zero(values));                       // a mutable local
//   for_(row_ptrs[row], row_ptrs[row + 1], [&](auto k) { sum += values[k] * x[cols[k]]; });
//   if_(sum > limit, [&] { y[row] = limit; }).else_([&] { y[row] = sum; });
//
// With two host bounds, for_ is a host loop even while tracing (the kernel gets it unrolled);
// with a host condition, if_ picks its branch while tracing. Both are then what the host does.
#include <concepts>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tessera/unified/symbolic.hpp>

namespace tessera::unified {

/// A copy of a: on the host its value, traced a snapshot (an immutable constant).
template <operand A>
auto value(A&& a) {
  using T = operand_value_t<A>;
  if constexpr (host_operand<A>) {
    return T(a);
  } else if constexpr (std::is_same_v<std::remove_cvref_t<A>, traced<T>>) {
    a.checked_text();
    return traced<T>(a);
  } else {
    auto trace = detail::common_trace(a);
    std::string text = detail::text_of(*trace, std::forward<A>(a));
    // An element's load is already a snapshot; a variable's current value becomes one.
    if constexpr (detail::operand_traits<std::remove_cvref_t<A>>::is_reference)
      return traced<T>(trace, std::move(text), trace->scope());
    else
      return detail::make_constant<T>(trace, text);
  }
}

/// A mutable local initialized with a: on the host a copy, traced a variable of the kernel.
template <operand A>
auto var(A&& a) {
  using T = operand_value_t<A>;
  if constexpr (host_operand<A>) {
    return T(a);
  } else {
    auto trace = detail::common_trace(a);
    std::string text = detail::text_of(*trace, std::forward<A>(a));
    return traced_var<T>(trace, trace->variable(trace->template type_name<T>(), text), trace->scope());
  }
}
/// var with an explicit type: `auto sum = var<double>(x[i]);`.
template <kernel_value T, operand A>
auto var(A&& a) {
  if constexpr (host_operand<A>) {
    return static_cast<T>(a);
  } else {
    auto trace = detail::common_trace(a);
    std::string text = detail::converted_text<T>(*trace, std::forward<A>(a));
    return traced_var<T>(trace, trace->variable(trace->template type_name<T>(), text), trace->scope());
  }
}

/// What if_ returns: .else_if_(cond, body) and .else_(body) continue the chain. Traced, each
/// later branch is its own `if` on the earlier conditions (immutable constants), so nothing
/// needs to follow the if_ directly and the chain means what the host chain means.
class branch {
 public:
  template <operand C, std::invocable F>
  branch else_if_(C&& cond, F&& body) && {
    if (taken_) return std::move(*this);
    if constexpr (host_operand<C>) {
      if (!static_cast<bool>(cond)) return std::move(*this);
      if (earlier_.empty()) {
        taken_ = true;
        std::forward<F>(body)();
      } else {
        guarded(std::forward<F>(body), {});
        taken_ = true;
      }
    } else {
      auto snapshot = value(std::forward<C>(cond));
      if (trace_ && trace_ != snapshot.trace()) trace_->fail("an if_ chain mixed conditions of two traces");
      trace_ = snapshot.trace();
      guarded(std::forward<F>(body), snapshot.text());
      earlier_.push_back(std::move(snapshot));
    }
    return std::move(*this);
  }

  template <std::invocable F>
  void else_(F&& body) && {
    if (taken_) return;
    if (earlier_.empty()) std::forward<F>(body)();
    else guarded(std::forward<F>(body), {});
  }

 private:
  // Records `if (!earlier1 && ... && cond) { body }` (cond empty: only the negations).
  template <typename F>
  void guarded(F&& body, const std::string& cond) {
    std::string test;
    for (const symbol& c : earlier_) test += (test.empty() ? "!" : " && !") + c.checked_text();
    if (!cond.empty()) test += (test.empty() ? "" : " && ") + cond;
    trace_->open_block("if (" + test + ")");
    std::forward<F>(body)();
    trace_->close_block();
  }

  std::shared_ptr<kernel_trace> trace_;
  std::vector<symbol> earlier_;
  bool taken_ = false;  // a host condition already chose a branch
};

/// Runs body when cond holds; `if_(c, then).else_(otherwise)`.
template <operand C, std::invocable F>
branch if_(C&& cond, F&& body) {
  return branch{}.else_if_(std::forward<C>(cond), std::forward<F>(body));
}

/// body(k) for k = begin, begin + 1, ..., end - 1, k of the bounds' common integer type. Both
/// bounds are read once, before the first iteration, as a host for loop reads a copy.
template <operand B, operand E, typename F>
void for_(B&& begin, E&& end, F&& body) {
  using index = std::common_type_t<operand_value_t<B>, operand_value_t<E>>;
  static_assert(std::is_integral_v<index> && !std::is_same_v<index, bool>,
                "tessera::unified: for_ bounds must be integers");
  if constexpr (host_operand<B> && host_operand<E>) {
    const index last = static_cast<index>(end);
    for (index k = static_cast<index>(begin); k < last; ++k) body(k);
  } else {
    auto trace = detail::common_trace(begin, end);
    std::string first = detail::converted_text<index>(*trace, value(std::forward<B>(begin)));
    std::string last = detail::converted_text<index>(*trace, value(std::forward<E>(end)));
    const std::string k = trace->fresh_name("k");
    const std::string type(trace->template type_name<index>());
    trace->open_block("for (" + type + " " + k + " = " + first + "; " + k + " < " + last + "; ++" + k + ")");
    body(traced<index>(trace, k, trace->scope()));
    trace->close_block();
  }
}

}  // namespace tessera::unified
