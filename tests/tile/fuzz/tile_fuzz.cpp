// libFuzzer target: the Tile front end (lexer, parser, checker) on arbitrary bytes, then, for
// programs that declare every input's dimensions, shape binding and loop-nest derivation on
// small shapes. Every failure must be a tessera error with a message: anything else (a crash,
// another exception, undefined behaviour, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <tessera/tile/loop_nest.hpp>
#include <tessera/tile/program.hpp>
#include <tessera/tile/shapes.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace tile = tessera::tile;
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  try {
    const tile::program p = tile::check(source);
    std::vector<tile::shape> shapes;
    for (const auto id : p.inputs) {
      const auto& t = p.tensors[id];
      if (!t.declares_dimensions) return 0;
      tile::shape s;
      for (const auto d : t.dimensions) s.push_back(static_cast<std::int64_t>(2 + d % 3));
      shapes.push_back(s);
    }
    const tile::binding b = tile::bind_shapes(p, shapes);
    for (std::size_t s = 0; s < p.statements.size(); ++s)
      if (b.spaces[s]) tile::derive_loop_nest(*b.spaces[s], std::get<tile::contraction>(p.statements[s]).index_names);
  } catch (const tessera::error&) {
    // A located, typed error: what bad input should get.
  }
  return 0;
}
