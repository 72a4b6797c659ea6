# The pkg-config route, as a Makefile or a shell would take it:
#   cc consumer.c $(pkg-config --cflags --libs animcomp)                       (shared)
#   cc consumer.c $(pkg-config --cflags animcomp) -l:libanimcomp.a $(pkg-config --static --libs-only-l ...)  (static)
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
  execute_process(COMMAND "${PKG_CONFIG}" ${ARGN} animcomp OUTPUT_VARIABLE v RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config ${ARGN} animcomp failed")
  endif()
  message(STATUS "pkg-config ${ARGN} animcomp: ${v}")
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

# Static: the same flags, the archive named explicitly, plus Libs.private.
pkg(cflags --cflags)
pkg(static_libs --static --libs)
list(TRANSFORM static_libs REPLACE "^-lanimcomp$" "-l:libanimcomp.a")
build_and_run(consumer_pc_static ${cflags} ${static_libs})
