// Golden kernels: the generated OpenCL C of representative expressions, kept in golden/ so
// that every change to generated code shows in review. To accept a change, regenerate them:
//   TESSERA_UPDATE_GOLDEN=1 ./build/tests/kernel_generator/tessera_kernel_generator_tests
//       --gtest_filter='KernelGeneratorGolden.*'
// and commit the diff of tests/kernel_generator/golden/.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "kernel_generator/kernel_generator_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;

void expect_golden(const std::string& name, const std::string& source) {
  const std::string path = std::string(TESSERA_GOLDEN_DIR) + "/" + name + ".cl";
  const char* update = std::getenv("TESSERA_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << source;
    std::cout << "rewrote " << path << '\n';
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "no golden file " << path << "; create it with TESSERA_UPDATE_GOLDEN=1";
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(source, golden.str()) << "the generated kernel changed; if intended, regenerate " << path
                                  << " with TESSERA_UPDATE_GOLDEN=1 (see golden_test.cpp)";
}

TEST(KernelGeneratorGolden, ScaledSum) {
  const matrix<float> a(4, 4), b(4, 4);
  expect_golden("scaled_sum_float", kernel_source(2.0f * (a + b)));
}

TEST(KernelGeneratorGolden, SixOperations) {
  const matrix<float> a(4, 4), b(4, 4), c(4, 4), d(4, 4);
  expect_golden("six_operations_float", kernel_source(elt_multiply(a + b, c - d) * 0.5f + exp(a)));
}

TEST(KernelGeneratorGolden, ElementwiseSplitAlongColumns) {  // past the split threshold: 4 columns per item
  const planned_as cpu(cpu_like(2));  // (rows a multiple of 4 would take vectors of four rows)
  const matrix<float> a(301, 300), b(301, 300), c(301, 300);
  expect_golden("elementwise_split_columns_float", kernel_source(elt_multiply(c, a + b)));
}

TEST(KernelGeneratorGolden, ElementwiseVectorsOfFourRowsOnAGpu) {  // every matrix's rows a multiple of 4
  const planned_as gpu(gpu_like(132));
  const matrix<float> a(300, 300), b(300, 300), column(300, 1), row(1, 300);
  expect_golden("elementwise_vectors_float",
                kernel_source(elt_multiply(a + b, colwise_broadcast(column)) - rowwise_broadcast(row)));
}

TEST(KernelGeneratorGolden, TransposeAndSelectOfATriangularMatrixInDouble) {
  if (device_lacks_precision<double>()) GTEST_SKIP() << "the device has no fp64";
  const matrix<double> a(4, 4, matrix_view::lower), b(4, 4);  // a's loads test its view
  expect_golden("transpose_select_double", kernel_source(select(transpose(a) > b, sigmoid(b), -a)));
}

TEST(KernelGeneratorGolden, StoreStepOfAFusedGemm) {
  const matrix<float> a(4, 3), b(3, 5), bias(4, 1);
  matrix<float> c(4, 5);
  // What the generator puts before the GEMM's kernels: the store step and the hooks' macros.
  expect_golden("fused_gemm_store_step_float", kernel_source(c, relu(2.0f * matmul(a, b) + colwise_broadcast(bias))));
}

TEST(KernelGeneratorGolden, SoftmaxAlongRows) {
  const planned_as cpu(cpu_like(2));  // a CPU's walk (pass_walk), whatever the device
  const matrix<float> a(4, 64);       // rows long enough for the reduction skeleton
  const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
  expect_golden("softmax_float", kernel_source(elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)))));
}

TEST(KernelGeneratorGolden, SoftmaxAlongRowsInThreeKernelsOnAGpu) {
  // Too few rows for the fused levels on 132 units: the online pass of (maximum, sum) pairs
  // with its 8-term steps, its finishing pass, then the map in vectors of four rows.
  const planned_as gpu(gpu_like(132));
  const matrix<float> a(64, 4096);
  const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
  expect_golden("softmax_online_float", kernel_source(elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)))));
}

TEST(KernelGeneratorGolden, SoftmaxAlongRowsAsOneKernelOnAGpu) {  // the fused levels, elements held
  const planned_as gpu(gpu_like(1));
  const matrix<float> a(64, 64);
  const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
  expect_golden("softmax_fused_levels_float",
                kernel_source(elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)))));
}

TEST(KernelGeneratorGolden, SoftmaxAlongLongRowsReadsThemPerLevel) {  // too long to hold: read again
  const planned_as gpu(gpu_like(1));
  const matrix<float> a(8, 4000);
  const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
  expect_golden("softmax_fused_levels_rereading_float",
                kernel_source(elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)))));
}

TEST(KernelGeneratorGolden, RowNormsAndMaximaShareOnePass) {
  const planned_as cpu(cpu_like(2));  // the CPU's pass in row blocks, whatever the device
  matrix<float> norms, maxima;
  const matrix<float> a(64, 64);
  expect_golden("row_norms_and_maxima_float",
                kernel_source(results(norms, maxima), expressions(sqrt(rowwise_sum(elt_multiply(a, a))), rowwise_max(a))));
}

TEST(KernelGeneratorGolden, ColumnSumOfABlock) {  // columns of two: each work-item sums its own
  const matrix<float> a(4, 4);
  expect_golden("colwise_sum_block_float", kernel_source(colwise_sum(block(a, 1, 1, 2, 2))));
}

TEST(KernelGeneratorGolden, BlockTargetUpdatedInPlace) {
  matrix<float> d(4, 4);
  const matrix<float> a(2, 2);
  expect_golden("block_target_float", kernel_source(block(d, 1, 1, 2, 2), block(d, 1, 1, 2, 2) + fmax(a, 0)));
}

TEST(KernelGeneratorGolden, TwoResults) {
  matrix<float> x, y;
  const matrix<float> a(4, 4), b(4, 4);
  expect_golden("two_results_float", kernel_source(results(x, y), expressions(a + b, (a < b) && (b < 1))));
}

}  // namespace
