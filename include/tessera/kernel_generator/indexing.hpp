#pragma once
// row_index() and col_index(): the row (column) of the element being computed, as int.
// Without a shape they adapt to their partner (`a + row_index()`); row_index(rows, cols)
// has its own.
#include <string>

#include <tessera/kernel_generator/operation.hpp>

namespace tessera::kernel_generator {

template <bool Row>
class index_ : public operation<index_<Row>, int> {
 public:
  explicit index_(index_t rows = any_size, index_t cols = any_size) : rows_(rows), cols_(cols) {
    if (rows < any_size || cols < any_size)
      throw argument_error(std::string(Row ? "row_index" : "col_index") + ": negative shape " +
                           shape_string(rows, cols));
  }
  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  std::string emit(kernel_context&, const std::string& i, const std::string& j) const { return Row ? i : j; }
  int host_value(index_t i, index_t j) const noexcept { return static_cast<int>(Row ? i : j); }

 private:
  index_t rows_, cols_;
};

inline index_<true> row_index(index_t rows = any_size, index_t cols = any_size) { return index_<true>(rows, cols); }
inline index_<false> col_index(index_t rows = any_size, index_t cols = any_size) { return index_<false>(rows, cols); }

}  // namespace tessera::kernel_generator
