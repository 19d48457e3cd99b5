# Compiler settings shared by every Sinew target.

find_program(SINEW_CCACHE ccache)
if(SINEW_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${SINEW_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${SINEW_CCACHE})
endif()

# Warnings for our own code (third-party headers come in as SYSTEM includes).
add_library(sinew_warnings INTERFACE)
target_compile_options(sinew_warnings INTERFACE -Wall -Wextra -Wpedantic -Wno-unused-parameter)

# Sanitizers: -DSINEW_SANITIZE=address,undefined
add_library(sinew_sanitize INTERFACE)
if(SINEW_SANITIZE)
  target_compile_options(sinew_sanitize INTERFACE -fsanitize=${SINEW_SANITIZE} -fno-omit-frame-pointer
                                                  -fno-sanitize-recover=undefined)
  target_link_options(sinew_sanitize INTERFACE -fsanitize=${SINEW_SANITIZE})
endif()

# Fuzzing: -DSINEW_FUZZ=ON with clang (scripts/fuzz.sh) instruments every
# target for libFuzzer's coverage and builds the fuzz_* programs (tests/fuzz).
option(SINEW_FUZZ "Build the libFuzzer targets (clang only)" OFF)
if(SINEW_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SINEW_FUZZ needs clang (CXX=clang++): libFuzzer is clang's")
  endif()
  # -march=native: clang refuses the element kernels' 8-double vectors in
  # functions compiled without AVX-512 (GCC only warns); a fuzz build runs
  # where it was built.
  target_compile_options(sinew_sanitize INTERFACE -fsanitize=fuzzer-no-link -march=native)
endif()
