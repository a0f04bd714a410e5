// The shape database's round trip, last step (tests/auto_tuner/check_defaults_round_trip.py runs
// the others: tune_nn --shapes -> select_defaults.py -> defaults_table.py): with the written
// database in TESSERA_GEMM_DEFAULTS, gemm() at each tuned shape of this device uses that shape's
// entry, and its result matches OpenBLAS on fresh random data.
#include <tessera/blas/gemm_defaults.hpp>

#include <algorithm>
#include <cstdlib>

#include "gemm_check.hpp"

namespace blas = tessera::blas;

namespace {

TEST(GemmRoundTrip, GemmUsesTheTunedEntryAtEachTunedShape) {
  const char* path = std::getenv("TESSERA_GEMM_DEFAULTS");
  ASSERT_NE(path, nullptr) << "run by check_defaults_round_trip.py, with TESSERA_GEMM_DEFAULTS set";
  const auto& device = tessera::runtime::context::get().device();
  std::size_t checked = 0;
  std::vector<std::string> shapes_seen;
  for (const auto& entry : blas::read_gemm_defaults_file(path)) {
    if (!entry.shape || device.name.find(entry.match) == std::string::npos) continue;
    const auto& s = *entry.shape;
    // A shape's first entry is the one the lookup takes; a runner-up serves where it does not fit.
    const auto shape_text = fmt::format("{}x{}x{}x{} {}", s.m, s.n, s.k, s.batch, entry.transposes);
    if (std::find(shapes_seen.begin(), shapes_seen.end(), shape_text) != shapes_seen.end()) continue;
    shapes_seen.push_back(shape_text);
    SCOPED_TRACE(entry.origin);
    tessera::testing::gemm_case c;
    c.trans_a = s.trans_a ? blas::transpose::trans : blas::transpose::none;
    c.trans_b = s.trans_b ? blas::transpose::trans : blas::transpose::none;
    c.m = s.m, c.n = s.n, c.k = s.k, c.batch = s.batch;
    const auto choice = blas::choose_default(device, 4, s);
    ASSERT_NE(choice.entry, nullptr);
    EXPECT_EQ(choice.entry->origin, entry.origin) << "the lookup took another entry at a tuned shape";
    EXPECT_EQ(blas::to_string(choice.params), blas::to_string(entry.params));
    tessera::testing::check_gemm<float>(std::nullopt, c);
    ++checked;
  }
  EXPECT_GT(checked, 0u) << path << " holds no tuned shape of " << device.name;
}

}  // namespace
