# The pkg-config route, exactly as docs/integrating.md and the README write it:
#   cc consumer.c $(pkg-config --cflags --libs animcomp) -Wl,-rpath,$(pkg-config --variable=libdir animcomp)   (shared)
#   cc consumer.c $(pkg-config --cflags --libs animcomp-static)                                             (static)
# and the shared binary also runs from a plain shell, without LD_LIBRARY_PATH.
# Run with cmake -DPREFIX=<install prefix> -DCC=<C compiler> -DWORK=<dir> -P build_and_run.cmake
find_program(PKG_CONFIG NAMES pkg-config pkgconf REQUIRED)
file(GLOB pc_file "${PREFIX}/lib*/pkgconfig/animcomp.pc" "${PREFIX}/lib/*/pkgconfig/animcomp.pc")
if(NOT pc_file)
  message(FATAL_ERROR "no animcomp.pc under ${PREFIX}")
endif()
get_filename_component(pc_dir "${pc_file}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
file(MAKE_DIRECTORY "${WORK}")

function(pkg out)
  set(_pkg animcomp)
  if(ARGV1 STREQUAL "STATIC_PC")
    set(_pkg animcomp-static)
    list(REMOVE_AT ARGN 0)
  endif()
  execute_process(COMMAND "${PKG_CONFIG}" ${ARGN} ${_pkg} OUTPUT_VARIABLE v RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config ${ARGN} ${_pkg} failed")
  endif()
  message(STATUS "pkg-config ${ARGN} ${_pkg}: ${v}")
  separate_arguments(v UNIX_COMMAND "${v}")
  set(${out} ${v} PARENT_SCOPE)
endfunction()

function(build_and_run name)
  execute_process(COMMAND "${CC}" -std=c99 -Wall -Wextra -Werror -pedantic
                          "${CMAKE_CURRENT_LIST_DIR}/../common/consumer.c" "-I${CMAKE_CURRENT_LIST_DIR}/../common" ${ARGN} -lm -o "${WORK}/${name}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: compiling with the pkg-config flags failed")
  endif()
  execute_process(COMMAND "${WORK}/${name}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: the consumer failed (${rc})")
  endif()
endfunction()

pkg(cflags_libs --cflags --libs)
pkg(libdir --variable=libdir)
# Shared: the library directory is not on the loader's path, so give the program an rpath.
build_and_run(consumer_pc_shared ${cflags_libs} "-Wl,-rpath,${libdir}")

# Static: animcomp-static.pc names the archive and the system libraries it needs.
pkg(static_flags STATIC_PC --cflags --libs)
build_and_run(consumer_pc_static ${static_flags})
# Linked statically: no libanimcomp.so dependency.
execute_process(COMMAND readelf -d "${WORK}/consumer_pc_static" OUTPUT_VARIABLE dyn)
if(dyn MATCHES "libanimcomp")
  message(FATAL_ERROR "consumer_pc_static depends on a shared libanimcomp:\n${dyn}")
endif()
# The README's one-liners, run by a shell exactly as written (the shared one through its rpath).
set(_src "${CMAKE_CURRENT_LIST_DIR}/../common/consumer.c")
set(_inc "-I${CMAKE_CURRENT_LIST_DIR}/../common")
foreach(cmd
    "${CC} ${_inc} -o '${WORK}/readme_shared' '${_src}' $(pkg-config --cflags --libs animcomp) -Wl,-rpath,$(pkg-config --variable=libdir animcomp) -lm && env -u LD_LIBRARY_PATH '${WORK}/readme_shared'"
    "${CC} ${_inc} -o '${WORK}/readme_static' '${_src}' $(pkg-config --cflags --libs animcomp-static) -lm && '${WORK}/readme_static'")
  execute_process(COMMAND sh -c "${cmd}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the README's pkg-config command failed: ${cmd}")
  endif()
endforeach()
