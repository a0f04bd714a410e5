#include <tessera/runtime/checked_size.hpp>
#include <tessera/runtime/error.hpp>

#include <limits>

#include <fmt/format.h>

namespace tessera::runtime {

namespace {
[[noreturn]] void fail(std::string_view operation, std::string_view message) {
  throw argument_error(operation.empty() ? std::string(message) : fmt::format("{}: {}", operation, message));
}
}  // namespace

std::int64_t checked_size(std::size_t value, std::string_view name, std::string_view operation) {
  if (value > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()))
    fail(operation, fmt::format("{} = {} is 2^63 or more: not a size (a negative value converted to size_t?)", name,
                                value));
  return static_cast<std::int64_t>(value);
}

namespace {
// a op b on two sizes, where overflows(a, b, &result) is the compiler's overflow-checked op.
template <typename Overflows>
std::int64_t checked_operation(std::int64_t a, std::int64_t b, Overflows overflows, std::string_view symbol,
                               std::string_view operand, std::string_view name, std::string_view operation) {
  std::int64_t result;
  const bool negative = a < 0 || b < 0;
  if (negative || overflows(a, b, &result))
    fail(operation, fmt::format("{} = {} {} {} {}", name, a, symbol, b,
                                negative ? fmt::format("has a negative {}", operand) : "overflows 64-bit sizes"));
  return result;
}
}  // namespace

std::int64_t checked_sum(std::int64_t a, std::int64_t b, std::string_view name, std::string_view operation) {
  return checked_operation(
      a, b, [](std::int64_t x, std::int64_t y, std::int64_t* sum) { return __builtin_add_overflow(x, y, sum); }, "+",
      "term", name, operation);
}

std::int64_t checked_product(std::int64_t a, std::int64_t b, std::string_view name, std::string_view operation) {
  return checked_operation(
      a, b, [](std::int64_t x, std::int64_t y, std::int64_t* product) { return __builtin_mul_overflow(x, y, product); },
      "*", "factor", name, operation);
}

std::size_t checked_bytes(std::size_t count, std::size_t element_size, std::string_view what) {
  std::size_t bytes;
  if (__builtin_mul_overflow(count, element_size, &bytes))
    throw out_of_memory_error("clCreateBuffer", CL_INVALID_BUFFER_SIZE, std::numeric_limits<std::size_t>::max(),
                              fmt::format("{}: {} elements of {} bytes overflow the address space", what, count,
                                          element_size));
  return bytes;
}

}  // namespace tessera::runtime
