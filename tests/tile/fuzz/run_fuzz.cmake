# Builds the fuzzer with clang and runs it for a bounded time on the seed corpus.
# cmake -DSOURCE=<this folder> -DBUILD=<build folder> -DCLANGXX=<clang++> -DSECONDS=<n> -P run_fuzz.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -DCMAKE_CXX_COMPILER=${CLANGXX}
                        -DCMAKE_BUILD_TYPE=RelWithDebInfo
                RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "configuring the Tile fuzzer failed (clang++ and libclang-rt-14-dev are needed)")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} -j2 RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "building the Tile fuzzer failed")
endif()
# New inputs go to a scratch folder; the committed corpus is only read.
file(MAKE_DIRECTORY ${BUILD}/corpus)
execute_process(COMMAND ${BUILD}/tile_fuzz ${BUILD}/corpus ${SOURCE}/corpus -max_total_time=${SECONDS}
                        -max_len=1024 -timeout=10 -rss_limit_mb=2048 -dict=${SOURCE}/tile.dict
                        -artifact_prefix=${BUILD}/
                RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "the Tile fuzzer found a crash or a hang: see the artifact in ${BUILD}")
endif()
