# Sanitizer configuration for the C/C++ test harness (include from the top-level CMakeLists.txt
# BEFORE the test targets are added):
#
#   include(cmake/Sanitizers.cmake)
#
# -DANIMCOMP_SANITIZE=ON compiles and links every C/C++ target defined after the include with
# AddressSanitizer + UndefinedBehaviorSanitizer. Any UB report aborts the test (no recovery), so
# ctest fails on the first finding. The Rust static library is built by cargo and is not
# instrumented: ASan still intercepts its malloc/free, and checks every access the C++ side makes
# to buffers the library fills (blobs, poses). Run it with `.ci/sanitize.sh`.
include_guard(GLOBAL)

option(ANIMCOMP_SANITIZE "Build the C/C++ tests with -fsanitize=address,undefined" OFF)

if(ANIMCOMP_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "ANIMCOMP_SANITIZE needs GCC or Clang (got ${CMAKE_CXX_COMPILER_ID})")
  endif()
  set(ANIMCOMP_SANITIZE_FLAGS
      -fsanitize=address,undefined
      -fno-omit-frame-pointer
      -fno-sanitize-recover=all
      # Line tables only: reports keep file:line; full debug info was about 7 % of this build.
      -g1)
  add_compile_options(${ANIMCOMP_SANITIZE_FLAGS})
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "animcomp: C/C++ tests built with ASan + UBSan")
endif()
