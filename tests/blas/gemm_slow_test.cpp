// The slow GEMM tests (CTest label slow): the defaults table's configurations for NT, TN
// and TT (gemm_api_test.cpp checks NN). Slow on PoCL because the CPU's default kernels are
// large and PoCL takes seconds to build each.
#include <gtest/gtest.h>

#include "blas/gemm_check.hpp"

namespace blas = tessera::blas;

namespace {

template <typename T>
class GemmDefaultsOtherTransposes : public ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GemmDefaultsOtherTransposes, ScalarTypes);

TYPED_TEST(GemmDefaultsOtherTransposes, DefaultConfigurationMatchesOpenBlasForNTTNAndTT) {
  for (auto [ta, tb] : {std::pair{blas::transpose::none, blas::transpose::trans},
                        std::pair{blas::transpose::trans, blas::transpose::none},
                        std::pair{blas::transpose::trans, blas::transpose::trans}}) {
    tessera::testing::check_default_gemm<TypeParam>(ta, tb, 1030, 1027, 260);
    tessera::testing::check_default_gemm<TypeParam>(ta, tb, 257, 257, 257);
    tessera::testing::check_default_gemm<TypeParam>(ta, tb, 7, 127, 64);
    tessera::testing::check_default_gemm<TypeParam>(ta, tb, 64, 64, 64, 5);
  }
}

}  // namespace
