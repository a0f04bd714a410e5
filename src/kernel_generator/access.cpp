#include <tessera/kernel_generator/access.hpp>

namespace tessera::kernel_generator {

bool access_collector::writes_twice() const {
  for (std::size_t a = 0; a < writes_.size(); ++a)
    for (std::size_t b = a + 1; b < writes_.size(); ++b)
      if (writes_[a].matrix == writes_[b].matrix) return true;
  return false;
}

bool access_collector::order_dependent() const {
  for (const access& w : writes_)
    for (const access& r : reads_)
      if (r.matrix == w.matrix && (w.map.opaque || r.map.opaque || !(r.map == w.map))) return true;
  return false;
}

bool access_collector::reads_a_target() const {
  for (const access& w : writes_)
    for (const access& r : reads_)
      if (r.matrix == w.matrix) return true;
  return false;
}

}  // namespace tessera::kernel_generator
