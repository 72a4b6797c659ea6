# What the install step must produce, checked on the installed files:
# SONAME and version symlinks, only animcomp_* symbols exported, no debug info in the installed
# libraries, the debug info of the .so (component debuginfo) linked by .gnu_debuglink, headers,
# CMake package and pkg-config files. Run with cmake -DPREFIX=<prefix> -DVERSION=<x.y.z>
# -DSOVERSION=<so> -P check_install.cmake
set(lib "${PREFIX}/lib")
foreach(f include/animcomp.h include/animcomp.hpp lib/libanimcomp.a lib/libanimcomp.so
          lib/libanimcomp.so.${SOVERSION} lib/libanimcomp.so.${VERSION} lib/.debug/libanimcomp.so.${VERSION}.debug
          lib/cmake/animcomp/animcompConfig.cmake lib/cmake/animcomp/animcompConfigVersion.cmake
          lib/pkgconfig/animcomp.pc lib/pkgconfig/animcomp-static.pc)
  if(NOT EXISTS "${PREFIX}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# The shared library is installed executable (0755), like CMake's own SHARED targets.
execute_process(COMMAND stat -c %a "${lib}/libanimcomp.so.${VERSION}" OUTPUT_VARIABLE so_mode
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT so_mode STREQUAL "755")
  message(FATAL_ERROR "libanimcomp.so.${VERSION} installed with mode ${so_mode}, not 755")
endif()
foreach(link libanimcomp.so libanimcomp.so.${SOVERSION})
  if(NOT IS_SYMLINK "${lib}/${link}")
    message(FATAL_ERROR "${link} is not a symlink")
  endif()
endforeach()

execute_process(COMMAND readelf -d "${lib}/libanimcomp.so.${VERSION}" OUTPUT_VARIABLE dyn)
if(NOT dyn MATCHES "Library soname: \\[libanimcomp\\.so\\.${SOVERSION}\\]")
  message(FATAL_ERROR "SONAME is not libanimcomp.so.${SOVERSION}:\n${dyn}")
endif()

execute_process(COMMAND nm -D --defined-only "${lib}/libanimcomp.so.${VERSION}" OUTPUT_VARIABLE syms)
string(REGEX MATCHALL "[^\n]+" syms "${syms}")
set(exported 0)
foreach(line IN LISTS syms)
  if(NOT line MATCHES " animcomp_[a-z0-9_]+$")
    message(FATAL_ERROR "exported symbol outside the animcomp_ namespace: ${line}")
  endif()
  math(EXPR exported "${exported} + 1")
endforeach()
if(exported LESS 10)
  message(FATAL_ERROR "only ${exported} animcomp_ symbols exported")
endif()

foreach(f libanimcomp.so.${VERSION} libanimcomp.a)
  execute_process(COMMAND objdump -h "${lib}/${f}" OUTPUT_VARIABLE sections)
  if(sections MATCHES "\\.debug_info")
    message(FATAL_ERROR "${f} still holds debug info")
  endif()
endforeach()
execute_process(COMMAND objdump -h "${lib}/.debug/libanimcomp.so.${VERSION}.debug" OUTPUT_VARIABLE sections)
if(NOT sections MATCHES "\\.debug_info")
  message(FATAL_ERROR "the split debug file holds no debug info")
endif()
execute_process(COMMAND readelf --string-dump=.gnu_debuglink "${lib}/libanimcomp.so.${VERSION}" OUTPUT_VARIABLE link)
if(NOT link MATCHES "libanimcomp\\.so\\.${VERSION}\\.debug")
  message(FATAL_ERROR "no .gnu_debuglink to the split debug info")
endif()
file(SIZE "${lib}/libanimcomp.so.${VERSION}" so_size)
file(SIZE "${lib}/libanimcomp.a" a_size)
message(STATUS "installed: ${exported} exported animcomp_ symbols, libanimcomp.so ${so_size} bytes, libanimcomp.a ${a_size} bytes")
