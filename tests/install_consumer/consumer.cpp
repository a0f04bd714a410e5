#include <tessera/tessera.hpp>

#include <iostream>
#include <vector>

int main() {
  const std::vector<float> host{1.5f, -2.25f, 3.0f, 7.75f, -0.5f, 4.0f};
  tessera::matrix<float> m(host, 2, 3);
  const bool ok = m.to_host() == host && m.rows() == 2 && m.cols() == 3;
  std::cout << (ok ? "consumer: round trip OK" : "consumer: round trip WRONG") << '\n';
  return ok ? 0 : 1;
}
