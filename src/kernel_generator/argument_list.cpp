#include <tessera/kernel_generator/argument_list.hpp>
#include <tessera/runtime/error.hpp>

#include <algorithm>

namespace tessera::kernel_generator {

void argument_list::push(const void* value, std::size_t size) {
  argument a{size, {}};
  std::memcpy(a.bytes, value, size);
  arguments_.push_back(a);
}

void argument_list::apply(const cl::Kernel& k, cl_uint first) const {
  for (std::size_t index = 0; index < arguments_.size(); ++index) {
    const argument& a = arguments_[index];
    runtime::check_cl(::clSetKernelArg(k(), first + static_cast<cl_uint>(index), a.size, a.bytes), "clSetKernelArg");
  }
}

std::vector<int> matrix_recorder::aliasing_pattern() const {
  std::vector<int> pattern(matrices_.size());
  for (std::size_t k = 0; k < matrices_.size(); ++k) {
    const auto first = std::find(matrices_.begin(), matrices_.end(), matrices_[k]) - matrices_.begin();
    pattern[k] = static_cast<int>(2 * first + (masked_[k] ? 1 : 0));
  }
  return pattern;
}

}  // namespace tessera::kernel_generator
