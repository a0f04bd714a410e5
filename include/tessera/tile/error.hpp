#pragma once
// Errors of the Tile language. Every one names a place in the source (line:column), so that
// the user can find what to fix; what() reads "line:column: message".
#include <cstddef>
#include <string>

#include <tessera/runtime/error.hpp>

namespace tessera::tile {

/// A place in Tile source: 1-based line and column (columns count bytes).
struct source_position {
  std::size_t line = 1;
  std::size_t column = 1;
  friend bool operator==(const source_position&, const source_position&) = default;
};

/// "line:column".
std::string to_string(const source_position& position);

/// Base of the Tile errors: a message about a place in the source.
class error : public tessera::error {
 public:
  error(source_position position, std::string message);
  const source_position& position() const noexcept { return position_; }
  /// The message without the "line:column: " prefix.
  const std::string& message() const noexcept { return message_; }

 private:
  source_position position_;
  std::string message_;
};

/// The text is not Tile: an unexpected character or token, a malformed number.
class syntax_error : public error {
 public:
  using error::error;
};

/// The program is Tile but breaks a rule that needs no shapes: names, ranks where declared,
/// unbounded contractions, `=` aggregations that may write twice.
class check_error : public error {
 public:
  using error::error;
};

/// The program cannot run on the shapes it was given: dimensions that contradict each other,
/// ranks, broadcasting, negative sizes, division by zero in a size. Raised at call time.
class shape_error : public error {
 public:
  using error::error;
};

/// The program is valid and bound, but tessera cannot lower it (its exact loop bounds would
/// need too many inequalities). Raised at call time.
class lowering_error : public error {
 public:
  using error::error;
};

}  // namespace tessera::tile
