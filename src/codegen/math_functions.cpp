#include <tessera/codegen/math_functions.hpp>

#include <array>

namespace tessera::codegen {

namespace {

#define TESSERA_CODEGEN_UNARY_ENTRY(name_, opencl_, host_, keeps_zero_, low_, high_, notes_) \
  math_function{#name_, 1, opencl_, keeps_zero_,                                             \
                [](double x, double) { return math::name_::host(x); }, {low_, high_}, {}, notes_},
#define TESSERA_CODEGEN_BINARY_ENTRY(name_, opencl_, host_, keeps_zero_, x_low_, x_high_, y_low_, y_high_, notes_) \
  math_function{#name_, 2, opencl_, keeps_zero_,                                                                   \
                [](double x, double y) { return math::name_::host(x, y); }, {x_low_, x_high_}, {y_low_, y_high_},  \
                notes_},

constexpr std::array table{TESSERA_UNARY_MATH_FUNCTIONS(TESSERA_CODEGEN_UNARY_ENTRY)
                               TESSERA_BINARY_MATH_FUNCTIONS(TESSERA_CODEGEN_BINARY_ENTRY)};

#undef TESSERA_CODEGEN_UNARY_ENTRY
#undef TESSERA_CODEGEN_BINARY_ENTRY

}  // namespace

std::span<const math_function> math_functions() { return table; }

const math_function* find_math_function(std::string_view name) {
  for (const auto& f : table)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace tessera::codegen
