#pragma once
// stopping_status: per right-hand side, whether an iterative solver has stopped, why, and
// whether the solution is final. One byte, the same on the host and in OpenCL C (uchar), so
// arrays of it move between executors as bytes; traced, stop[col] is a traced_stopping_status.
#include <cstdint>
#include <string>
#include <type_traits>

#include <tessera/unified/accessors.hpp>
#include <tessera/unified/symbolic.hpp>

namespace tessera::unified {

class stopping_status {
 public:
  static constexpr std::uint8_t id_mask = 0x3f;         // which criterion stopped it (0: none)
  static constexpr std::uint8_t converged_mask = 0x40;  // stopped because it converged
  static constexpr std::uint8_t finalized_mask = 0x80;  // the solution is final

  bool has_stopped() const noexcept { return (data_ & id_mask) != 0; }
  bool has_converged() const noexcept { return (data_ & converged_mask) != 0; }
  bool is_finalized() const noexcept { return (data_ & finalized_mask) != 0; }
  std::uint8_t stopping_id() const noexcept { return data_ & id_mask; }

  /// Marks it stopped by criterion id (1..63) unless it has stopped already.
  void stop(std::uint8_t id, bool set_finalized = true) noexcept {
    if (!has_stopped()) data_ |= static_cast<std::uint8_t>((id & id_mask) | (set_finalized ? finalized_mask : 0));
  }
  /// Marks it converged by criterion id (1..63) unless it has stopped already.
  void converge(std::uint8_t id, bool set_finalized = true) noexcept {
    if (!has_stopped())
      data_ |= static_cast<std::uint8_t>(converged_mask | (id & id_mask) | (set_finalized ? finalized_mask : 0));
  }
  void reset() noexcept { data_ = 0; }

  friend bool operator==(const stopping_status&, const stopping_status&) = default;

 private:
  std::uint8_t data_ = 0;
};
static_assert(sizeof(stopping_status) == 1 && std::is_trivially_copyable_v<stopping_status>,
              "stopping_status is copied to devices as one byte");

/// stop[col] in a traced kernel: the same queries and updates, recorded on the uchar element.
template <bool Const>
class traced_stopping_status : public symbol {
 public:
  using symbol::symbol;
  traced_stopping_status(const traced_stopping_status&) = delete;
  traced_stopping_status& operator=(const traced_stopping_status&) = delete;

  traced<bool> has_stopped() && { return test(stopping_status::id_mask); }
  traced<bool> has_converged() && { return test(stopping_status::converged_mask); }
  traced<bool> is_finalized() && { return test(stopping_status::finalized_mask); }

  template <operand I>
    requires(!Const)
  void stop(I&& id, bool set_finalized = true) && {
    mark(std::forward<I>(id), set_finalized ? stopping_status::finalized_mask : 0);
  }
  template <operand I>
    requires(!Const)
  void converge(I&& id, bool set_finalized = true) && {
    mark(std::forward<I>(id), static_cast<std::uint8_t>(stopping_status::converged_mask |
                                                        (set_finalized ? stopping_status::finalized_mask : 0)));
  }
  void reset() &&
    requires(!Const)
  {
    trace()->statement(checked_text() + " = 0");
  }

 private:
  traced<bool> test(std::uint8_t mask) const {
    return detail::make_constant<bool>(trace(),
                                       "((" + checked_text() + " & " + std::to_string(mask) + ") != 0)");
  }
  template <typename I>
  void mark(I&& id, std::uint8_t flags) const {
    detail::common_trace(*this, id);
    std::string i = detail::text_of(*trace(), std::forward<I>(id));
    const std::string& element = checked_text();
    trace()->open_block("if ((" + element + " & " + std::to_string(stopping_status::id_mask) + ") == 0)");
    trace()->statement(element + " |= (uchar)((" + i + " & " + std::to_string(stopping_status::id_mask) + ") | " +
                       std::to_string(flags) + ")");
    trace()->close_block();
  }
};

template <>
struct element_traits<stopping_status> {
  using storage_type = std::uint8_t;
  template <bool Const>
  using traced_reference = traced_stopping_status<Const>;
};

}  // namespace tessera::unified
