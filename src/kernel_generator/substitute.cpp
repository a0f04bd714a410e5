#include <tessera/kernel_generator/binary_operation.hpp>

namespace tessera::kernel_generator {

std::string substitute(std::string_view pattern, std::string_view first, std::string_view second) {
  std::string out;
  out.reserve(pattern.size() + first.size() + second.size());
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (pattern[k] == '$' && k + 1 < pattern.size() && (pattern[k + 1] == '1' || pattern[k + 1] == '2')) {
      out += pattern[k + 1] == '1' ? first : second;
      ++k;
    } else {
      out += pattern[k];
    }
  }
  return out;
}

}  // namespace tessera::kernel_generator
