// tune_tt: tunes GEMM with op(A) = A^T, op(B) = B^T.
#include "generated_candidates.hpp"
#include "tuner.hpp"

int main(int argc, char** argv) {
  using namespace tessera::auto_tuner;
  return tuner_main(argc, argv, "tune_tt", {{true, true, &generated_candidates<true, true>}});
}
