# sinew_add_test(NAME SOURCES... [LIBS ...] [LABELS ...] [TIMEOUT SECONDS] [RELEASE_ONLY PATTERN...])
# One GoogleTest executable; each TEST becomes a CTest test carrying LABELS.
# TIMEOUT (default 300 s) is per test: long physics runs take several times
# longer on a machine without AVX-512 than on the one they were tuned on.
# RELEASE_ONLY names tests (GoogleTest patterns, Suite.Name, * allowed) that
# carry the label "physics" instead: long searches and figure-sized runs, which
# take 5-20 times longer under the sanitizers and which the sanitizer run
# (scripts/test.sh: labels unit|import|cli) therefore skips. The test
# NAME.ReleaseOnlyPatternsNameTests fails if a pattern matches no test (a
# renamed test would otherwise quietly go back to every run).
function(sinew_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS;RELEASE_ONLY" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main sinew_warnings sinew_sanitize)
  target_compile_definitions(${name} PRIVATE
    SINEW_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    SINEW_BINARY_DIR="${CMAKE_BINARY_DIR}"
    SINEW_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
  # Long runs first: on a clean build (no CTest cost data yet) ctest -j2
  # otherwise starts them in declaration order and one may run alone at the end.
  set(_cost 0)
  if("physics" IN_LIST ARG_LABELS)
    set(_cost 1000)
  endif()
  if(ARG_RELEASE_ONLY)
    string(JOIN ":" _release_only ${ARG_RELEASE_ONLY})
    gtest_discover_tests(${name} TEST_FILTER "-${_release_only}"
      PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT} COST ${_cost} DISCOVERY_TIMEOUT 60)
    gtest_discover_tests(${name} TEST_FILTER "${_release_only}"
      PROPERTIES LABELS physics TIMEOUT ${ARG_TIMEOUT} COST 100 DISCOVERY_TIMEOUT 60)
    add_test(NAME ${name}.ReleaseOnlyPatternsNameTests
      COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${name}> "-DPATTERNS=${ARG_RELEASE_ONLY}"
              -P ${CMAKE_SOURCE_DIR}/cmake/CheckTestPatterns.cmake)
    set_tests_properties(${name}.ReleaseOnlyPatternsNameTests PROPERTIES LABELS unit)
  else()
    gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT} COST ${_cost}
                         DISCOVERY_TIMEOUT 60)
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
