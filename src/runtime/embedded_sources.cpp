#include <tessera/runtime/embedded_sources.hpp>
#include <tessera/runtime/error.hpp>

#include <fmt/format.h>

namespace tessera::runtime {

std::string_view embedded_source(std::string_view path) {
  const auto& table = embedded_source_table();
  auto it = table.find(path);
  if (it == table.end())
    throw error(fmt::format("no embedded kernel source '{}' (the build embeds src/**/*.cl)", path));
  return it->second;
}

}  // namespace tessera::runtime
