// tune_nt: tunes GEMM with op(A) = A, op(B) = B^T.
#include "generated_candidates.hpp"
#include "tuner.hpp"

int main(int argc, char** argv) {
  using namespace tessera::auto_tuner;
  return tuner_main(argc, argv, "tune_nt", {{false, true, &generated_candidates<false, true>}});
}
