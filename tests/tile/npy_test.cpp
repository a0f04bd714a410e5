// NumPy .npy files: written and read back, Fortran order, and the errors for what tessera
// does not read.
#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>

#include "tile_testing.hpp"

#include <tessera/tile/npy.hpp>

namespace tessera::tile {
namespace {

using ::testing::HasSubstr;

TEST(Npy, RoundTripsFloat32AndFloat64AtAnyRank) {
  for (const auto type : {element_type::float32, element_type::float64})
    for (const shape& s : {shape{}, shape{0}, shape{7}, shape{3, 5}, shape{2, 1, 4}}) {
      const auto values = tessera::testing::random_values<double>(static_cast<std::size_t>(element_count(s)));
      const npy_array back = parse_npy(format_npy(s, values, type));
      EXPECT_EQ(back.dims, s);
      EXPECT_EQ(back.type, type);
      ASSERT_EQ(back.values.size(), values.size());
      for (std::size_t i = 0; i < values.size(); ++i)
        EXPECT_EQ(back.values[i], type == element_type::float32 ? double(float(values[i])) : values[i]);
    }
}

TEST(Npy, HeaderIsPaddedTo64Bytes) {
  const std::string bytes = format_npy({2, 3}, std::vector<double>(6, 1.0), element_type::float32);
  EXPECT_EQ((bytes.size() - 6 * 4) % 64, 0u);
  EXPECT_EQ(bytes[bytes.size() - 6 * 4 - 1], '\n');
}

std::string handmade(const std::string& header, const std::vector<float>& data) {
  std::string h = header;
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(h.size());
  out += '\0';
  out += h;
  out.append(reinterpret_cast<const char*>(data.data()), data.size() * 4);
  return out;
}

TEST(Npy, ReadsFortranOrderIntoRowMajor) {
  // Column-major [[1, 2, 3], [4, 5, 6]] is stored 1 4 2 5 3 6.
  const auto a = parse_npy(handmade("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", {1, 4, 2, 5, 3, 6}));
  EXPECT_THAT(a.values, ::testing::ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(Npy, RefusesWhatItCannotRead) {
  EXPECT_THROW(parse_npy("not a numpy file"), npy_error);
  EXPECT_THAT([] { parse_npy(handmade("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", {1})); },
              ::testing::ThrowsMessage<npy_error>(HasSubstr("'>f4' is not supported")));
  EXPECT_THAT([] { parse_npy(handmade("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", {1})); },
              ::testing::ThrowsMessage<npy_error>(HasSubstr("'<i4'")));
  EXPECT_THAT([] { parse_npy(handmade("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", {1})); },
              ::testing::ThrowsMessage<npy_error>(HasSubstr("needs 12 bytes")));
  EXPECT_THAT([] { read_npy("/nonexistent/file.npy"); }, ::testing::ThrowsMessage<npy_error>(HasSubstr("cannot open")));
}

}  // namespace
}  // namespace tessera::tile
