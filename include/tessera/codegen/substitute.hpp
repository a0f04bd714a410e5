#pragma once
// Filling an OpenCL C pattern with arguments: "$1" and "$2" stand for them. The operator and
// function tables of every front door are written as such patterns.
#include <string>
#include <string_view>

namespace tessera::codegen {

/// pattern with "$1" replaced by first and "$2" by second. An argument that is not a single
/// token (a name, a number, a parenthesized whole) is put in parentheses, unless it stands
/// alone between '(' or ',' and ')' or ',' (a function argument): "-$1" of "a + b" is
/// "-(a + b)", "exp($1)" of it is "exp(a + b)".
std::string substitute(std::string_view pattern, std::string_view first, std::string_view second = {});

}  // namespace tessera::codegen
