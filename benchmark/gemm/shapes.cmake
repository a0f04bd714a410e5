# The shape-suite benchmark (issue 12): the shipped defaults over configs/shapes/*.json against
# CLBlast, OpenBLAS and cuBLAS; scripts/gpu-run.sh shapes runs it on the GPU. Included by
# benchmark/gemm and by tests/tools (which run it on the test device where benchmarks are not
# built), defined once.
if(NOT TARGET bench_gemm_shapes)
  add_executable(bench_gemm_shapes ${CMAKE_CURRENT_LIST_DIR}/bench_gemm_shapes.cpp)
  target_link_libraries(bench_gemm_shapes PRIVATE tessera::tessera tessera::baselines tessera_flags fmt::fmt
                        CLI11::CLI11 nlohmann_json::nlohmann_json)
endif()
