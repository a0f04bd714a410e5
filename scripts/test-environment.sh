# Sourced by the test scripts (test.sh, test-repeat.sh, test-sanitizers.sh): the environment
# every test run shares.
#
# PoCL compiles a work-group function for each local size a kernel is launched with, unless work-
# group specialization is off; the tests launch their kernels at many shapes, and these compiles
# were most of a cold test run: all 809 tests 1,191 s -> 663 s cold on the 2 cores here (119 s
# warm), the reduction-skeleton tests 217 s -> 127 s. Off for the tests only: the benchmarks and
# the main job run PoCL's default. The three scripts share one PoCL cache, so they must agree on
# it. Override by setting it.
export POCL_WORK_GROUP_SPECIALIZATION=${POCL_WORK_GROUP_SPECIALIZATION:-0}
