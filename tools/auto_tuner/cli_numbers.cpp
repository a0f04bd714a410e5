#include "cli_numbers.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace tessera::auto_tuner {

CLI::Validator whole_number(std::int64_t low, std::int64_t high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool whole = end == text.data() + text.size();
        if (error == std::errc::result_out_of_range || (error == std::errc() && whole && (value < low || value > high)))
          return fmt::format("{} is out of range: a whole number from {} to {}", text, low, high);
        if (error != std::errc() || !whole) return fmt::format("'{}' is not a whole number ({} to {})", text, low, high);
        return {};
      },
      fmt::format("INT in {}..{}", low, high));
}

CLI::Validator number_in(double low, double high, bool low_included) {
  const std::string range = fmt::format("{} {:g}{}", low_included ? "at least" : "above", low,
                                        std::isfinite(high) ? fmt::format(" and at most {:g}", high) : "");
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
          return fmt::format("'{}' is not a number", text);
        if (!((low_included ? value >= low : value > low) && value <= high))
          return fmt::format("{} is out of range: a number {}", text, range);
        return {};
      },
      "NUMBER " + range);
}

}  // namespace tessera::auto_tuner
