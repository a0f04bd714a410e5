// The elementwise skeleton's splits (skeletons.hpp): several elements per work-item a launch's
// width apart along the columns or the rows, computed at clamped indices and stored only inside
// the result. Checked as this device plans them and as a GPU and a CPU would, at shapes whose
// widths are no multiple of anything, with blocks, views, in-place updates and several results.
#include <set>
#include <tuple>

#include "kernel_generator/kernel_generator_support.hpp"

#include <tessera/kernel_generator/skeletons.hpp>

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;

TEST(KernelGeneratorElementwiseSplit, SplitFollowsTheShapeAndTheDevice) {
  const runtime::device_info gpu = gpu_like(132), cpu = cpu_like(16);
  EXPECT_EQ(choose_elementwise_split(gpu, 100, 100), elementwise_split::none);  // launch-bound
  EXPECT_EQ(choose_elementwise_split(gpu, 0, 1 << 20), elementwise_split::none);
  EXPECT_EQ(choose_elementwise_split(gpu, 8192, 8192), elementwise_split::columns);
  EXPECT_EQ(choose_elementwise_split(gpu, 1, 1 << 26), elementwise_split::columns);
  EXPECT_EQ(choose_elementwise_split(gpu, 1 << 26, 1), elementwise_split::rows);
  EXPECT_EQ(choose_elementwise_split(gpu, 1 << 20, 3), elementwise_split::rows);
  EXPECT_EQ(choose_elementwise_split(cpu, 1 << 26, 1), elementwise_split::none);  // PoCL vectorizes rows
  EXPECT_EQ(choose_elementwise_split(cpu, 4096, 4096), elementwise_split::columns);
  EXPECT_EQ(choose_elementwise_split(cpu, 1, 1 << 26), elementwise_split::row_vector);  // along PoCL's first dimension
  EXPECT_EQ(choose_elementwise_split(cpu, 1, 100), elementwise_split::none);
  // Every matrix's rows a multiple of four: a GPU's vectors of four rows.
  EXPECT_EQ(choose_elementwise_split(gpu, 8192, 8192, true), elementwise_split::column_vectors);
  EXPECT_EQ(choose_elementwise_split(gpu, 1 << 26, 1, true), elementwise_split::column_vectors);
  EXPECT_EQ(choose_elementwise_split(gpu, 4, 1 << 20, true), elementwise_split::column_vectors);
  EXPECT_EQ(choose_elementwise_split(gpu, 8190, 8192, true), elementwise_split::columns);  // not the result's
  EXPECT_EQ(choose_elementwise_split(gpu, 1, 1 << 26, true), elementwise_split::columns);
  EXPECT_EQ(choose_elementwise_split(gpu, 100, 100, true), elementwise_split::none);
  EXPECT_EQ(choose_elementwise_split(cpu, 4096, 4096, true), elementwise_split::column_vectors);
  EXPECT_EQ(choose_elementwise_split(cpu, 1 << 24, 1, true), elementwise_split::column_vectors);
  EXPECT_EQ(choose_elementwise_split(cpu, 1, 1 << 24, true), elementwise_split::row_vector);
  // Every matrix one row: vectors of four columns, on either device.
  EXPECT_EQ(choose_elementwise_split(cpu, 1, 1 << 24, true, true), elementwise_split::one_row_vectors);
  EXPECT_EQ(choose_elementwise_split(gpu, 1, 1 << 26, true, true), elementwise_split::one_row_vectors);
  EXPECT_EQ(choose_elementwise_split(cpu, 1, 70001, false, true), elementwise_split::one_row_vectors);
  EXPECT_EQ(choose_elementwise_split(cpu, 1, 100, true, true), elementwise_split::none);  // launch-bound
  EXPECT_EQ(choose_elementwise_split(cpu, 2, 1 << 20, false, true), elementwise_split::columns);  // not one row
}

TEST(KernelGeneratorElementwiseSplit, OneRowEachAsksEveryMatrix) {
  const matrix<float> row(1, 7), other_row(1, 3), column(5, 1), not_yet_shaped;
  matrix_recorder rows;
  rows.matrix(nullptr, row, false);
  rows.matrix(nullptr, other_row, false);
  rows.matrix(nullptr, not_yet_shaped, false);
  EXPECT_TRUE(rows.one_row_each());
  rows.matrix(nullptr, column, false);
  EXPECT_FALSE(rows.one_row_each());
}

TEST(KernelGeneratorElementwiseSplit, RowsInVectorsAsksEveryMatrix) {
  const matrix<float> a(8, 3), b(12, 5), row(1, 7), odd(6, 2);
  matrix_recorder fours;
  fours.matrix(nullptr, a, false);
  fours.matrix(nullptr, b, false);
  fours.matrix(nullptr, row, false);
  EXPECT_TRUE(fours.rows_in_vectors(4));
  fours.matrix(nullptr, odd, false);
  EXPECT_FALSE(fours.rows_in_vectors(4));
  EXPECT_TRUE(fours.rows_in_vectors(2));
}

// Every element of the result is stored by exactly one (work-item, item) of the launch, and
// every item's clamped index stays inside the result.
TEST(KernelGeneratorElementwiseSplit, LaunchCoversEveryElementOnce) {
  const std::vector<std::pair<index_t, index_t>> shapes{{1, 1},     {1, 5},     {5, 1},    {3, 30011}, {30011, 3},
                                                        {257, 263},  {1, 70001}, {70001, 1}, {2, 4},    {33, 4},
                                                        {4, 70001},  {260, 263}, {70004, 1}, {8, 3}};
  for (const elementwise_split split : {elementwise_split::none, elementwise_split::columns, elementwise_split::rows,
                                        elementwise_split::row_vector, elementwise_split::column_vectors,
                                        elementwise_split::one_row_vectors})
    for (const std::size_t work_group : {std::size_t{256}, std::size_t{64}, std::size_t{1}})
      for (const auto& [rows, cols] : shapes) {
        if ((split == elementwise_split::row_vector || split == elementwise_split::one_row_vectors) && rows != 1)
          continue;  // chosen for one row only
        if (split == elementwise_split::column_vectors && rows % vector_rows != 0) continue;  // only for these
        SCOPED_TRACE(::testing::Message() << "split " << static_cast<int>(split) << ", group " << work_group << ", "
                                          << rows << "x" << cols);
        const elementwise_launch launch = plan_elementwise_launch(split, work_group, rows, cols);
        ASSERT_EQ(launch.range.dimensions, 3u);
        for (unsigned d = 0; d < 3; ++d) ASSERT_EQ(launch.range.global[d] % launch.range.local[d], 0u);
        ASSERT_LE(launch.range.global[1] / launch.range.local[1], 65535u);
        ASSERT_LE(launch.range.global[2], 65535u);
        std::vector<int> stores(static_cast<std::size_t>(rows * cols), 0);
        const int items = split == elementwise_split::none                                                ? 1
                          : split == elementwise_split::column_vectors || split == elementwise_split::one_row_vectors ? vector_rows
                                                                                                           : elementwise_items;
        for (std::size_t g2 = 0; g2 < launch.range.global[2]; ++g2)
          for (std::size_t g1 = 0; g1 < launch.range.global[1]; ++g1)
            for (std::size_t g0 = 0; g0 < launch.range.global[0]; ++g0)
              for (int u = 0; u < items; ++u) {
                auto i = static_cast<index_t>(g0);
                auto j = static_cast<index_t>(g1 + launch.range.global[1] * g2);
                if (split == elementwise_split::row_vector) {  // the columns along the first dimension
                  i = static_cast<index_t>(g1);
                  j = static_cast<index_t>(g0) + u * launch.item_step;
                }
                if (split == elementwise_split::column_vectors) i = vector_rows * i + u;  // consecutive rows
                if (split == elementwise_split::one_row_vectors) {  // consecutive columns along the first dimension
                  i = static_cast<index_t>(g1);
                  j = vector_rows * static_cast<index_t>(g0) + u;
                }
                if (split == elementwise_split::columns) j += u * launch.item_step;
                if (split == elementwise_split::rows) i += u * launch.item_step;
                if (i < rows && j < cols) ++stores[static_cast<std::size_t>(i + j * rows)];
              }
        ASSERT_EQ(std::count(stores.begin(), stores.end(), 1), rows * cols) << "an element stored twice or never";
      }
}

// Shapes past the split threshold, with widths that leave every kind of remainder.
// Rows a multiple of four take a GPU's vectors of four rows.
// One row: vectors of four columns, a last partial one (70001, 65539) or none (65540).
const std::vector<test_shape> split_shapes{{257, 263}, {3, 30011},  {30011, 3}, {1, 70001}, {70001, 1},
                                           {65537, 2}, {260, 263},  {4, 30011}, {70004, 1}, {30012, 3},
                                           {1, 65540}, {1, 65539}};

template <typename T>
void check_split_assignments() {
  for (const test_shape s : split_shapes) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols), b = random_matrix<T>(s.rows, s.cols),
                    c = random_matrix<T>(s.rows, s.cols);
    const double tol = elementwise_tolerance<T>();
    // One input, three inputs, a broadcast scalar.
    matrix<T> d;
    d = exp(a);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(exp(a)), tol));
    d = elt_multiply(c, a + b) - 2;
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(elt_multiply(c, a + b) - 2), tol));
    // In place: the target is read where it is written.
    matrix<T> e;
    e = a + 0;
    const auto expected = host_evaluate<T>(2 * a + b);
    e = 2 * e + b;
    EXPECT_TRUE(matches_host(e, expected, tol));
    // Two results of one kernel.
    matrix<T> sum, difference;
    results(sum, difference) = expressions(a + b, a - b);
    EXPECT_TRUE(matches_host(sum, host_evaluate<T>(a + b), tol));
    EXPECT_TRUE(matches_host(difference, host_evaluate<T>(a - b), tol));
    // A block of a larger target, the rest untouched; a triangular view read.
    matrix<T> big = random_matrix<T>(s.rows + 2, s.cols + 3);
    const auto before = host_evaluate<T>(big);
    block(big, 1, 2, s.rows, s.cols) = a - c;
    const auto after = host_evaluate<T>(big), block_expected = host_evaluate<T>(a - c);
    std::size_t wrong = 0;
    for (index_t j = 0; j < big.cols(); ++j)
      for (index_t i = 0; i < big.rows(); ++i) {
        const bool inside = i >= 1 && i < 1 + s.rows && j >= 2 && j < 2 + s.cols;
        const T want = inside ? block_expected(i - 1, j - 2) : before(i, j);
        wrong += std::abs(static_cast<double>(after(i, j) - want)) > tol * std::max(1.0, std::abs(double(want)));
      }
    EXPECT_EQ(wrong, 0u) << "the block assignment";
    const matrix<T> lower = random_matrix<T>(s.rows, s.cols, T(-1), T(1), matrix_view::lower);
    d = lower + a;
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(lower + a), tol));
    // A column and a row broadcast, a transposed operand, a block read at an odd row.
    const matrix<T> column = random_matrix<T>(s.rows, 1), row = random_matrix<T>(1, s.cols),
                    at = random_matrix<T>(s.cols, s.rows), taller = random_matrix<T>(s.rows + 4, s.cols);
    d = elt_multiply(a, colwise_broadcast(column)) + rowwise_broadcast(row) - transpose(at) +
        block(taller, 1, 0, s.rows, s.cols);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(elt_multiply(a, colwise_broadcast(column)) + rowwise_broadcast(row) -
                                                 transpose(at) + block(taller, 1, 0, s.rows, s.cols)),
                             tol));
    // A block target at an odd row of a matrix whose rows are a multiple of four when the
    // result's are: the block's elements are written one by one, the rest untouched.
    matrix<T> framed = random_matrix<T>(s.rows + 4, s.cols);
    const auto framed_before = host_evaluate<T>(framed);
    block(framed, 3, 0, s.rows, s.cols) = a * T(2);
    const auto framed_after = host_evaluate<T>(framed), doubled = host_evaluate<T>(a * T(2));
    wrong = 0;
    for (index_t j = 0; j < framed.cols(); ++j)
      for (index_t i = 0; i < framed.rows(); ++i) {
        const bool inside = i >= 3 && i < 3 + s.rows;
        const T want = inside ? doubled(i - 3, j) : framed_before(i, j);
        wrong += std::abs(static_cast<double>(framed_after(i, j) - want)) > tol * std::max(1.0, std::abs(double(want)));
      }
    EXPECT_EQ(wrong, 0u) << "the framed block assignment";
  }
}

template <typename T>
class KernelGeneratorElementwiseSplitTyped : public ::testing::Test {};
TYPED_TEST_SUITE(KernelGeneratorElementwiseSplitTyped, value_types);

TYPED_TEST(KernelGeneratorElementwiseSplitTyped, MatchesTheHostWithThisDevicesSplit) {
  TESSERA_SKIP_WITHOUT_PRECISION(TypeParam);
  check_split_assignments<TypeParam>();
}

TYPED_TEST(KernelGeneratorElementwiseSplitTyped, MatchesTheHostWithAGpusSplit) {
  TESSERA_SKIP_WITHOUT_PRECISION(TypeParam);
  const planned_as gpu(gpu_like(132));  // rows split for the column vectors
  check_split_assignments<TypeParam>();
}

// One-term reductions (a column sum of one row, a row max of one column) are computed by the
// elementwise skeleton: with the split, each work-item reduces several.
TYPED_TEST(KernelGeneratorElementwiseSplitTyped, OneTermReductionsAreSplitToo) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const planned_as gpu(gpu_like(132));
  const matrix<T> row = random_matrix<T>(1, 70001), column = random_matrix<T>(70001, 1),
                  fours = random_matrix<T>(1, 70004);
  matrix<T> d;
  d = colwise_sum(row);
  EXPECT_TRUE(matches_host(d, host_evaluate<T>(colwise_sum(row)), elementwise_tolerance<T>()));
  d = colwise_max(fours);
  EXPECT_TRUE(matches_host(d, host_evaluate<T>(colwise_max(fours)), elementwise_tolerance<T>()));
  d = rowwise_max(column);
  EXPECT_TRUE(matches_host(d, host_evaluate<T>(rowwise_max(column)), elementwise_tolerance<T>()));
}

TEST(KernelGeneratorElementwiseSplit, KernelSourceShowsTheSplitItRuns) {
  const planned_as gpu(gpu_like(132));
  const matrix<float> wide(301, 300), tall(70001, 1), small(4, 4), quads(300, 300), column(300, 1),
      wider(300, 301), odd(301, 300);
  EXPECT_NE(kernel_source(wide + 1.0f).find("item_step"), std::string::npos);
  EXPECT_NE(kernel_source(tall + 1.0f).find("const int i3 = i + 3 * item_step"), std::string::npos);
  EXPECT_EQ(kernel_source(small + 1.0f).find("item_step"), std::string::npos);
  // Vectors of four rows: one load per matrix, one store, the column vector's too.
  const std::string vectors = kernel_source(elt_multiply(quads, colwise_broadcast(column)) + 1.0f);
  EXPECT_EQ(vectors.find("item_step"), std::string::npos);
  EXPECT_NE(vectors.find("*(global const float4*)("), std::string::npos) << vectors;
  EXPECT_NE(vectors.find("*(global float4*)("), std::string::npos) << vectors;
  // A matrix of 301 rows in the assignment: no vectors.
  EXPECT_EQ(kernel_source(wider + transpose(odd)).find("float4"), std::string::npos);
  // One-row matrices alone: vectors of four columns, a one-term column sum's too; a taller
  // matrix's block in the assignment: none.
  const matrix<float> row(1, 70001), other_row(1, 70001), taller(3, 70001);
  const std::string columns = kernel_source(elt_multiply(row, other_row) + 1.0f);
  EXPECT_EQ(columns.find("item_step"), std::string::npos) << columns;
  EXPECT_NE(columns.find("*(global const float4*)("), std::string::npos) << columns;
  EXPECT_NE(columns.find("*(global float4*)("), std::string::npos) << columns;
  EXPECT_NE(kernel_source(colwise_sum(row)).find("*(global const float4*)("), std::string::npos);
  EXPECT_EQ(kernel_source(row + block(taller, 1, 0, 1, 70001)).find("float4"), std::string::npos);
}

// The row vector's accesses (kernel_context): aligned vector loads and stores of exactly the
// vector's rows; a shifted row, a masked matrix or a type without vectors stays scalar; a store
// of only some rows is written element by element.
TEST(KernelGeneratorElementwiseSplit, RowVectorAccessesOnlyTheVectorsRows) {
  codegen::kernel_builder b("probe");
  kernel_context kc(b);
  const matrix_parameter m{"m1", "m1_rows", "m1_view", false}, masked{"m2", "m2_rows", "m2_view", true};
  kc.begin_row_vector("i", {"i", "i1", "i2", "i3"});
  const std::string lane2 = kc.load_element(m, "float", "i2", "j");
  EXPECT_EQ(kc.load_element(m, "float", "i", "j"), lane2.substr(0, lane2.size() - 1) + "0") << "one load per column";
  EXPECT_EQ(kc.load_element(m, "float", "(i + 1)", "j"), element_of(m, "(i + 1)", "j"));
  EXPECT_EQ(kc.load_element(masked, "float", "i", "j"), element_of(masked, "i", "j"));
  EXPECT_EQ(kc.load_element(m, "half", "i", "j"), element_of(m, "i", "j"));
  for (const char* row : {"i", "i1", "i2", "i3"}) kc.store_element(m, "double", row, "j", std::string("x_") + row);
  kc.store_element(m, "double", "i1", "k", "y");  // one row of column k only
  kc.end_row_vector();
  const std::string source = b.source();
  EXPECT_NE(source.find("float4 v"), std::string::npos) << source;
  EXPECT_NE(source.find("*(global const float4*)(m1 + (i + (long)j * m1_rows))"), std::string::npos) << source;
  EXPECT_NE(source.find("*(global double4*)(m1 + (i + (long)j * m1_rows)) = (double4)((double)x_i, (double)x_i1, "
                        "(double)x_i2, (double)x_i3)"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("m1[i1 + (long)k * m1_rows] = (double)y"), std::string::npos) << source;
  EXPECT_EQ(kc.load_element(m, "float", "i", "j"), element_of(m, "i", "j")) << "after the vector";
}

// The column vector's accesses: the same along the columns of one-row matrices, at any row.
TEST(KernelGeneratorElementwiseSplit, ColumnVectorAccessesOnlyTheVectorsColumns) {
  codegen::kernel_builder b("probe");
  kernel_context kc(b);
  const matrix_parameter m{"m1", "1", "m1_view", false}, masked{"m2", "1", "m2_view", true};
  kc.begin_column_vector("j", {"j", "j1", "j2", "j3"});
  const std::string lane3 = kc.load_element(m, "float", "i", "j3");
  EXPECT_EQ(kc.load_element(m, "float", "i", "j"), lane3.substr(0, lane3.size() - 1) + "0") << "one load per row";
  EXPECT_EQ(kc.load_element(m, "float", "i", "(j + 1)"), element_of(m, "i", "(j + 1)"));
  EXPECT_EQ(kc.load_element(masked, "float", "i", "j"), element_of(masked, "i", "j"));
  for (const char* col : {"j", "j1", "j2", "j3"}) kc.store_element(m, "float", "i", col, std::string("x_") + col);
  kc.store_element(m, "float", "0", "j2", "y");  // one column only
  kc.end_row_vector();
  const std::string source = b.source();
  EXPECT_NE(source.find("*(global const float4*)(m1 + (i + (long)j * 1))"), std::string::npos) << source;
  EXPECT_NE(source.find("*(global float4*)(m1 + (i + (long)j * 1)) = (float4)((float)x_j, (float)x_j1, "
                        "(float)x_j2, (float)x_j3)"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("m1[0 + (long)j2 * 1] = (float)y"), std::string::npos) << source;
}

}  // namespace
