#pragma once
// The tools' last step: what they printed must have reached the standard output. A full disk,
// /dev/full or a closed file make a tool fail, not exit 0 with its output lost.
#include <cerrno>
#include <cstring>
#include <iostream>
#include <string_view>

#include <fmt/format.h>

namespace tessera::tools {

/// Flushes std::cout: status when that worked, else 1 after saying so on stderr, naming tool.
inline int flush_standard_output(std::string_view tool, int status) {
  errno = 0;
  if (std::cout.flush()) return status;
  std::cerr << fmt::format("{}: cannot write to the standard output: {}\n", tool,
                           errno != 0 ? std::strerror(errno) : "write error");
  return 1;
}

}  // namespace tessera::tools
