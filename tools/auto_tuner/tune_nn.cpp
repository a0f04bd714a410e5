// tune_nn: tunes GEMM with op(A) = A, op(B) = B.
#include "generated_candidates.hpp"
#include "tuner.hpp"

int main(int argc, char** argv) {
  using namespace tessera::auto_tuner;
  return tuner_main(argc, argv, "tune_nn", {{false, false, &generated_candidates<false, false>}});
}
