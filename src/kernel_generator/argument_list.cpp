#include <tessera/kernel_generator/argument_list.hpp>

#include <algorithm>

namespace tessera::kernel_generator {

std::vector<int> matrix_recorder::aliasing_pattern() const {
  std::vector<int> pattern(matrices_.size());
  for (std::size_t k = 0; k < matrices_.size(); ++k) {
    const auto first = std::find(matrices_.begin(), matrices_.end(), matrices_[k]) - matrices_.begin();
    pattern[k] = static_cast<int>(2 * first + (masked_[k] ? 1 : 0));
  }
  return pattern;
}

bool matrix_recorder::rows_in_vectors(index_t rows_per_vector) const {
  return std::all_of(rows_.begin(), rows_.end(), [&](index_t r) { return r == 1 || r % rows_per_vector == 0; });
}

bool matrix_recorder::one_row_each() const {
  return std::all_of(rows_.begin(), rows_.end(), [](index_t r) { return r <= 1; });
}

}  // namespace tessera::kernel_generator
