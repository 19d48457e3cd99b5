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
