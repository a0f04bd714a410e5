# Runs the tuner with one row made wrong (OPTION --fault-config or --fault-baseline, FAULT its
# name) and checks that it is reported as wrong_result (KIND config or baseline) and is neither
# in the ranked table nor in the BEST / DEFAULT KEPT line.
execute_process(COMMAND ${TUNER} --m 37 --n 29 --k 31 --reps 1 "${OPTION}=${FAULT}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "tuner exited with ${status}:\n${out}\n${err}")
endif()
string(FIND "${out}" "FAILED ${KIND}" reported)
string(FIND "${out}" "wrong_result  ${FAULT}:" named)
if(reported EQUAL -1 OR named EQUAL -1)
  message(FATAL_ERROR "the wrong ${KIND} was not reported as wrong_result:\n${out}")
endif()
string(REGEX MATCHALL "\n  ${KIND} [^\n]*" ranked "${out}")
string(REGEX MATCH "(BEST|DEFAULT KEPT) [^\n]*" best "${out}")
foreach(line IN LISTS ranked best)
  string(FIND "${line}" "${FAULT}" found)
  if(NOT found EQUAL -1)
    message(FATAL_ERROR "the wrong ${KIND} was ranked: ${line}")
  endif()
endforeach()
message(STATUS "wrong ${KIND} reported and not ranked")
