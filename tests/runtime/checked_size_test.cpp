// The one home of size arithmetic on caller values: each overflow names what it computed.
#include <tessera/runtime/checked_size.hpp>
#include <tessera/runtime/error.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace rt = tessera::runtime;
using ::testing::HasSubstr;

namespace {

template <typename Call>
std::string argument_error_of(Call call) {
  try {
    call();
  } catch (const rt::argument_error& e) {
    return e.what();
  }
  return "no argument_error";
}

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

TEST(checked_size, sizes_below_2_to_63_pass_unchanged) {
  EXPECT_EQ(rt::checked_size(0, "n"), 0);
  EXPECT_EQ(rt::checked_size(static_cast<std::size_t>(int64_max), "n"), int64_max);
  EXPECT_EQ(rt::checked_sum(int64_max - 7, 7, "n"), int64_max);
  EXPECT_EQ(rt::checked_product(std::int64_t{1} << 31, std::int64_t{1} << 31, "n"), std::int64_t{1} << 62);
  EXPECT_EQ(rt::checked_product(0, int64_max, "n"), 0);
}

TEST(checked_size, an_unsigned_size_of_2_to_63_or_more_names_the_argument_and_the_operation) {
  EXPECT_THAT(argument_error_of([] { rt::checked_size(std::size_t(-16), "c_offset", "tessera::blas::gemm"); }),
              HasSubstr("tessera::blas::gemm: c_offset = 18446744073709551600 is 2^63 or more"));
  EXPECT_THAT(argument_error_of([] { rt::checked_size(std::size_t{1} << 63, "size"); }),
              HasSubstr("size = 9223372036854775808 is 2^63 or more"));
}

TEST(checked_size, sums_and_products_that_overflow_name_the_quantity_and_its_terms) {
  EXPECT_THAT(argument_error_of([] { rt::checked_sum(int64_max, 1, "span", "op"); }),
              HasSubstr("op: span = 9223372036854775807 + 1 overflows 64-bit sizes"));
  EXPECT_THAT(argument_error_of([] { rt::checked_product(4, std::int64_t{1} << 62, "(batch - 1) * stride"); }),
              HasSubstr("(batch - 1) * stride = 4 * 4611686018427387904 overflows"));
}

TEST(checked_size, negative_terms_are_refused_rather_than_summed) {
  EXPECT_THAT(argument_error_of([] { rt::checked_sum(-1, 5, "n"); }), HasSubstr("negative term"));
  EXPECT_THAT(argument_error_of([] { rt::checked_product(3, -2, "n"); }), HasSubstr("negative factor"));
}

TEST(checked_size, byte_counts_that_overflow_size_t_are_out_of_memory) {
  EXPECT_EQ(rt::checked_bytes(1000, 8, "matrix"), 8000u);
  EXPECT_THROW(rt::checked_bytes(std::size_t{1} << 62, 8, "matrix"), rt::out_of_memory_error);
}

}  // namespace
