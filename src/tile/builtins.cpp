#include <tessera/tile/builtins.hpp>

#include <array>
#include <cmath>

namespace tessera::tile {

namespace {

// clang-format off
constexpr std::array table{
  builtin_function{"sqrt",    1, "sqrt({a})",                         [](double a, double) { return std::sqrt(a); }},
  builtin_function{"exp",     1, "exp({a})",                          [](double a, double) { return std::exp(a); }},
  builtin_function{"log",     1, "log({a})",                          [](double a, double) { return std::log(a); }},
  builtin_function{"pow",     2, "pow({a}, {b})",                     [](double a, double b) { return std::pow(a, b); }},
  builtin_function{"sin",     1, "sin({a})",                          [](double a, double) { return std::sin(a); }},
  builtin_function{"cos",     1, "cos({a})",                          [](double a, double) { return std::cos(a); }},
  builtin_function{"tan",     1, "tan({a})",                          [](double a, double) { return std::tan(a); }},
  builtin_function{"tanh",    1, "tanh({a})",                         [](double a, double) { return std::tanh(a); }},
  builtin_function{"sigmoid", 1, "(({T})1 / (({T})1 + exp(-({a}))))", [](double a, double) { return 1 / (1 + std::exp(-a)); }},
  builtin_function{"abs",     1, "fabs({a})",                         [](double a, double) { return std::fabs(a); }},
  builtin_function{"min",     2, "fmin({a}, {b})",                    [](double a, double b) { return std::fmin(a, b); }},
  builtin_function{"max",     2, "fmax({a}, {b})",                    [](double a, double b) { return std::fmax(a, b); }},
  builtin_function{"floor",   1, "floor({a})",                        [](double a, double) { return std::floor(a); }},
  builtin_function{"ceil",    1, "ceil({a})",                         [](double a, double) { return std::ceil(a); }},
  builtin_function{"relu",    1, "fmax({a}, ({T})0)",                 [](double a, double) { return std::fmax(a, 0.0); }},
  builtin_function{"exp2",    1, "exp2({a})",                         [](double a, double) { return std::exp2(a); }},
  builtin_function{"log2",    1, "log2({a})",                         [](double a, double) { return std::log2(a); }},
  builtin_function{"asin",    1, "asin({a})",                         [](double a, double) { return std::asin(a); }},
  builtin_function{"acos",    1, "acos({a})",                         [](double a, double) { return std::acos(a); }},
  builtin_function{"atan",    1, "atan({a})",                         [](double a, double) { return std::atan(a); }},
  builtin_function{"sinh",    1, "sinh({a})",                         [](double a, double) { return std::sinh(a); }},
  builtin_function{"cosh",    1, "cosh({a})",                         [](double a, double) { return std::cosh(a); }},
};
// clang-format on

}  // namespace

std::span<const builtin_function> builtin_functions() { return table; }

const builtin_function* find_builtin(std::string_view name) {
  for (const auto& f : table)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace tessera::tile
