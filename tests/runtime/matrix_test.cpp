#include <tessera/runtime/matrix.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_data.hpp"

namespace rt = tessera::runtime;
using tessera::testing::random_values;
using ::testing::HasSubstr;

template <typename T>
class MatrixTest : public ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MatrixTest, ScalarTypes);

TYPED_TEST(MatrixTest, RoundTripsHostDataAtOddAndEmptyShapes) {
  using T = TypeParam;
  for (auto [rows, cols] : {std::pair<rt::index_t, rt::index_t>{0, 0}, {0, 5}, {5, 0}, {1, 1}, {7, 13}, {1000, 3}}) {
    SCOPED_TRACE(rt::shape_string(rows, cols));
    const auto host = random_values<T>(static_cast<std::size_t>(rows * cols));
    rt::matrix<T> m(host, rows, cols);
    EXPECT_EQ(m.rows(), rows);
    EXPECT_EQ(m.cols(), cols);
    EXPECT_EQ(m.to_host(), host);
  }
}

TYPED_TEST(MatrixTest, ConstructsFromAPointerAndSizes) {
  using T = TypeParam;
  const auto host = random_values<T>(7 * 13);
  rt::matrix<T> m(host.data(), 7, 13);
  EXPECT_EQ(m.to_host(), host);
}

TYPED_TEST(MatrixTest, CopyIsDeepAndExplicit) {
  using T = TypeParam;
  static_assert(!std::is_copy_constructible_v<rt::matrix<T>>, "copies must be explicit");
  const auto first = random_values<T>(7 * 13);
  const auto second = random_values<T>(7 * 13);
  rt::matrix<T> original(first, 7, 13, rt::matrix_view::lower);
  rt::matrix<T> copied = original.copy();
  original.write(second);
  EXPECT_EQ(copied.view(), rt::matrix_view::lower);
  EXPECT_EQ(copied.to_host_raw(), first);
  EXPECT_EQ(original.to_host_raw(), second);
}

TYPED_TEST(MatrixTest, MovesTransferTheStorage) {
  using T = TypeParam;
  const auto host = random_values<T>(1000 * 3);
  rt::matrix<T> a(host, 1000, 3);
  rt::matrix<T> b(std::move(a));
  EXPECT_EQ(b.to_host(), host);
  rt::matrix<T> c;
  c = std::move(b);
  EXPECT_EQ(c.rows(), 1000);
  EXPECT_EQ(c.to_host(), host);
}

TYPED_TEST(MatrixTest, ViewsReadAsZeroOutsideTheirTriangle) {
  using T = TypeParam;
  const rt::index_t rows = 7, cols = 5;
  const auto host = random_values<T>(rows * cols);
  for (auto view : {rt::matrix_view::entire, rt::matrix_view::lower, rt::matrix_view::upper, rt::matrix_view::diagonal}) {
    SCOPED_TRACE(rt::to_string(view));
    rt::matrix<T> m(host, rows, cols, view);
    const auto seen = m.to_host();
    for (rt::index_t j = 0; j < cols; ++j)
      for (rt::index_t i = 0; i < rows; ++i) {
        const bool inside = i == j || (i > j && view_has_lower(view)) || (i < j && view_has_upper(view));
        EXPECT_EQ(seen[i + j * rows], inside ? host[i + j * rows] : T(0)) << i << "," << j;
      }
    EXPECT_EQ(m.to_host_raw(), host);
  }
}

TEST(MatrixView, AlgebraOfViews) {
  using rt::matrix_view;
  EXPECT_EQ(rt::view_union(matrix_view::lower, matrix_view::upper), matrix_view::entire);
  EXPECT_EQ(rt::view_intersection(matrix_view::lower, matrix_view::upper), matrix_view::diagonal);
  EXPECT_EQ(rt::view_transpose(matrix_view::lower), matrix_view::upper);
  EXPECT_EQ(rt::view_transpose(matrix_view::entire), matrix_view::entire);
  EXPECT_TRUE(rt::view_contains(matrix_view::diagonal, 3, 3));
  EXPECT_FALSE(rt::view_contains(matrix_view::upper, 3, 2));
}

TEST(MatrixErrors, WrongHostSizeNamesBothCounts) {
  std::vector<float> host(10, 1.0f);
  try {
    rt::matrix<float> m(host, 3, 4);
    FAIL();
  } catch (const rt::argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("host vector holds 10 elements, a 3x4 matrix needs 12"));
  }
}

TEST(MatrixErrors, NegativeShapeIsRejected) {
  EXPECT_THROW(rt::matrix<float>(-1, 3), rt::argument_error);
}

TEST(MatrixErrors, AllocationLargerThanTheDeviceIsAnError) {
  const auto& dev = rt::context::get().device();
  const auto too_many = static_cast<rt::index_t>(dev.max_allocation_bytes / sizeof(float) + 1);
  try {
    rt::matrix<float> m(too_many, 1);
    FAIL() << "expected out_of_memory_error";
  } catch (const rt::out_of_memory_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("allows at most"));
    EXPECT_EQ(e.requested_bytes(), static_cast<std::size_t>(too_many) * sizeof(float));
  }
  // A product that overflows size_t is caught too, not wrapped around.
  EXPECT_THROW(rt::matrix<double>(rt::index_t{1} << 40, rt::index_t{1} << 40), rt::out_of_memory_error);
}

TEST(MatrixErrors, ResizeGrowsStorageOnlyWhenNeeded) {
  const auto host = random_values<float>(12);
  rt::matrix<float> m(host, 3, 4);
  m.resize(2, 6);
  EXPECT_EQ(m.to_host(), host);  // same storage, reinterpreted
  m.resize(10, 10);
  EXPECT_EQ(m.size(), 100);
  EXPECT_GE(m.storage().bytes(), 100 * sizeof(float));
}
