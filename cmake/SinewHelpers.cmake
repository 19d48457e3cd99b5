# sinew_add_test(NAME SOURCES... [LIBS ...] [LABELS ...] [TIMEOUT SECONDS])
# One GoogleTest executable; each TEST becomes a CTest test carrying LABELS.
# TIMEOUT (default 300 s) is per test: long physics runs take several times
# longer on a machine without AVX-512 than on the one they were tuned on.
function(sinew_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main sinew_warnings sinew_sanitize)
  target_compile_definitions(${name} PRIVATE
    SINEW_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    SINEW_BINARY_DIR="${CMAKE_BINARY_DIR}"
    SINEW_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
  gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT} DISCOVERY_TIMEOUT 60)
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
