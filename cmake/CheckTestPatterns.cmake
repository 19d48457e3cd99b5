# cmake -DEXE=<GoogleTest executable> -DPATTERNS=<a;b;...> -P CheckTestPatterns.cmake
# Fails when a GoogleTest pattern matches none of EXE's tests.
foreach(pattern IN LISTS PATTERNS)
  execute_process(COMMAND ${EXE} --gtest_list_tests --gtest_filter=${pattern}
                  OUTPUT_VARIABLE listed RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${rc})")
  endif()
  # Test names are listed indented under their suite.
  if(NOT listed MATCHES "\n  [A-Za-z]")
    message(FATAL_ERROR "RELEASE_ONLY or LONG pattern '${pattern}' matches no test of ${EXE}")
  endif()
  message(STATUS "${pattern}: matched")
endforeach()
