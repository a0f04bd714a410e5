// tune_all: tunes GEMM for all four transposes, one after the other.
#include "generated_candidates.hpp"
#include "tuner.hpp"

int main(int argc, char** argv) {
  using namespace tessera::auto_tuner;
  return tuner_main(argc, argv, "tune_all",
                    {{false, false, &generated_candidates<false, false>},
                     {false, true, &generated_candidates<false, true>},
                     {true, false, &generated_candidates<true, false>},
                     {true, true, &generated_candidates<true, true>}});
}
