# sinew_add_test(NAME SOURCES... [LIBS ...] [LABELS ...] [TIMEOUT SECONDS] [RELEASE_ONLY PATTERN...]
#                [LONG PATTERN...])
# One GoogleTest executable; each TEST becomes a CTest test (sinew_discover_tests).
function(sinew_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS;RELEASE_ONLY;LONG" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main sinew_warnings sinew_sanitize)
  # No folder is compiled in (it would make every test a ccache miss in a fresh clone):
  # tests/TestPaths.h finds the source and build folders at run time.
  set(_forward "")
  foreach(_key TIMEOUT LABELS RELEASE_ONLY LONG)
    if(ARG_${_key})
      list(APPEND _forward ${_key} ${ARG_${_key}})
    endif()
  endforeach()
  sinew_discover_tests(${name} ${_forward})
endfunction()

# sinew_discover_tests(TARGET [LABELS ...] [TIMEOUT SECONDS] [COST N] [ENVIRONMENT VAR=VALUE]
#                      [RELEASE_ONLY PATTERN...] [LONG PATTERN...])
# Each TEST of a GoogleTest executable becomes a CTest test carrying LABELS.
# TIMEOUT (default 300 s) is per test: long physics runs take several times
# longer on a machine without AVX-512 than on the one they were tuned on.
# RELEASE_ONLY names tests (GoogleTest patterns, Suite.Name, * allowed) that
# carry the label "physics" instead: figure-sized runs and searches that take
# 5-20 times longer under the sanitizers, which the sanitizer run
# (scripts/test.sh: labels unit|import|cli) therefore skips.
# LONG names tests that carry the label "long" instead: paper-sized scenes,
# whole searches and whole-clip playbacks, minutes each on an AVX2-only Zen 3.
# They are benchmarks of a kind, not part of scripts/test.sh (which has to stay
# under an hour there); scripts/long-tests.sh runs them (docs/ARCHITECTURE.md, Tests).
# The test TARGET.TestPatternsNameTests fails if a pattern matches no test (a
# renamed test would otherwise quietly go back to every run).
function(sinew_discover_tests name)
  cmake_parse_arguments(ARG "" "TIMEOUT;COST;ENVIRONMENT" "LABELS;RELEASE_ONLY;LONG" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  # Long runs first: on a clean build (no CTest cost data yet) ctest -j2
  # otherwise starts them in declaration order and one may run alone at the end.
  if(NOT ARG_COST)
    set(ARG_COST 0)
    if("physics" IN_LIST ARG_LABELS OR "mpi" IN_LIST ARG_LABELS)
      set(ARG_COST 1000)
    endif()
  endif()
  set(_env "")
  if(ARG_ENVIRONMENT)
    set(_env ENVIRONMENT "${ARG_ENVIRONMENT}")
  endif()
  string(JOIN ":" _release_only ${ARG_RELEASE_ONLY})
  string(JOIN ":" _long ${ARG_LONG})
  string(JOIN ":" _special ${ARG_RELEASE_ONLY} ${ARG_LONG})
  set(_common DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT ${ARG_TIMEOUT} ${_env})
  if(_special)
    gtest_discover_tests(${name} TEST_FILTER "-${_special}" ${_common} LABELS "${ARG_LABELS}" COST ${ARG_COST})
  else()
    gtest_discover_tests(${name} ${_common} LABELS "${ARG_LABELS}" COST ${ARG_COST})
  endif()
  if(ARG_RELEASE_ONLY)
    set(_filter "${_release_only}")
    if(ARG_LONG)
      set(_filter "${_release_only}-${_long}")
    endif()
    gtest_discover_tests(${name} TEST_FILTER "${_filter}" ${_common} LABELS physics COST 100)
  endif()
  if(ARG_LONG)
    # An hour each: they take minutes where the suites were tuned, and 5-10 times that on a slow machine.
    gtest_discover_tests(${name} TEST_FILTER "${_long}" DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 3600 ${_env}
                         LABELS long COST 100)
  endif()
  if(_special)
    set(_patterns ${ARG_RELEASE_ONLY} ${ARG_LONG})
    add_test(NAME ${name}.TestPatternsNameTests
      COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${name}> "-DPATTERNS=${_patterns}"
              -P ${CMAKE_SOURCE_DIR}/cmake/CheckTestPatterns.cmake)
    set_tests_properties(${name}.TestPatternsNameTests PROPERTIES LABELS unit)
  endif()
endfunction()

# sinew_check_layering(TARGET DIR FORBIDDEN_REGEX DESCRIPTION)
# Adds a build step that fails when any source under DIR includes a header
# matching FORBIDDEN_REGEX, and makes TARGET depend on it.
function(sinew_check_layering target dir regex description)
  file(GLOB_RECURSE _sources CONFIGURE_DEPENDS ${dir}/*.h ${dir}/*.hpp ${dir}/*.cpp)
  set(_stamp ${CMAKE_CURRENT_BINARY_DIR}/${target}_layering.stamp)
  # The regex travels in a generated file: shells mangle it on a command line.
  set(_config ${CMAKE_CURRENT_BINARY_DIR}/${target}_layering.cmake)
  file(CONFIGURE OUTPUT ${_config} CONTENT "set(DIR [=[${dir}]=])\nset(REGEX [=[${regex}]=])\nset(DESCRIPTION [=[${description}]=])\nset(STAMP [=[${_stamp}]=])\n")
  add_custom_command(OUTPUT ${_stamp}
    COMMAND ${CMAKE_COMMAND} -DCONFIG=${_config} -P ${CMAKE_SOURCE_DIR}/cmake/CheckLayering.cmake
    DEPENDS ${_sources} ${_config} ${CMAKE_SOURCE_DIR}/cmake/CheckLayering.cmake
    COMMENT "Checking that ${dir} does not include ${description}")
  add_custom_target(${target}_layering DEPENDS ${_stamp})
  add_dependencies(${target} ${target}_layering)
endfunction()
