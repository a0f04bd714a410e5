// tune_tn: tunes GEMM with op(A) = A^T, op(B) = B.
#include "generated_candidates.hpp"
#include "tuner.hpp"

int main(int argc, char** argv) {
  using namespace tessera::auto_tuner;
  return tuner_main(argc, argv, "tune_tn", {{true, false, &generated_candidates<true, false>}});
}
