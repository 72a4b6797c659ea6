# ctest proves each route from outside the tree, against this build's library (cargo is not run
# again: the subprojects share the cargo target directory and profile, so cargo finds everything
# up to date; --build-noclean, because the clean step `ctest --build-and-test` runs by default
# deletes the custom target's BYPRODUCTS, i.e. cargo's libanimcomp.so/.a, and cargo then compiled
# the library and everything above it again, a minute per consumer):
#   consumer_install             cmake --install into a temporary prefix (with the debuginfo component)
#   consumer_install_contents    SONAME, symlinks, exported symbols, stripped debug info
#   consumer_find_package        find_package(animcomp CONFIG REQUIRED), shared + static
#   consumer_add_subdirectory    add_subdirectory(<source>), shared + static
#   consumer_fetchcontent        FetchContent_MakeAvailable, shared + static
#   consumer_pkg_config          cc $(pkg-config --cflags --libs animcomp), shared + static
set(_prefix "${CMAKE_BINARY_DIR}/consumer-prefix")
set(_work "${CMAKE_BINARY_DIR}/consumers")
set(_here "${CMAKE_CURRENT_SOURCE_DIR}/consumers")
get_target_property(_profile animcomp::animcomp_static ANIMCOMP_CARGO_PROFILE)
get_target_property(_target_dir animcomp::animcomp_static ANIMCOMP_TARGET_DIR)
set(_compilers -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})

add_test(NAME consumer_install
  COMMAND "${CMAKE_COMMAND}" -E env --unset=DESTDIR
          sh -c "rm -rf '${_prefix}' && '${CMAKE_COMMAND}' --install '${CMAKE_BINARY_DIR}' --prefix '${_prefix}' && '${CMAKE_COMMAND}' --install '${CMAKE_BINARY_DIR}' --prefix '${_prefix}' --component debuginfo")
set_tests_properties(consumer_install PROPERTIES FIXTURES_SETUP animcomp_installed)

add_test(NAME consumer_install_contents
  COMMAND "${CMAKE_COMMAND}" -DPREFIX=${_prefix} -DVERSION=${PROJECT_VERSION} -DSOVERSION=${ANIMCOMP_SOVERSION}
          -P "${_here}/check_install.cmake")

add_test(NAME consumer_find_package
  COMMAND "${CMAKE_CTEST_COMMAND}" --build-and-test "${_here}/find_package" "${_work}/find_package"
          --build-noclean --build-generator "${CMAKE_GENERATOR}"
          --build-options ${_compilers} "-DCMAKE_PREFIX_PATH=${_prefix}"
          --test-command "${CMAKE_CTEST_COMMAND}" --output-on-failure)

foreach(_via add_subdirectory fetchcontent)
  add_test(NAME consumer_${_via}
    COMMAND "${CMAKE_CTEST_COMMAND}" --build-and-test "${_here}/subproject" "${_work}/${_via}"
            --build-noclean --build-generator "${CMAKE_GENERATOR}"
            --build-options ${_compilers} -DANIMCOMP_VIA=${_via} "-DANIMCOMP_SOURCE=${ANIMCOMP_SOURCE_DIR}"
                            "-DANIMCOMP_CARGO_TARGET_DIR=${_target_dir}"
                            "-DANIMCOMP_CARGO_PROFILE=${_profile}"
                            "-DANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS=${ANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS}"
            --test-command "${CMAKE_CTEST_COMMAND}" --output-on-failure)
  # One cargo at a time on the shared target directory.
  set_tests_properties(consumer_${_via} PROPERTIES RESOURCE_LOCK animcomp_cargo)
endforeach()

add_test(NAME consumer_pkg_config
  COMMAND "${CMAKE_COMMAND}" -DPREFIX=${_prefix} -DCC=${CMAKE_C_COMPILER} -DWORK=${_work}/pkg_config
          -P "${_here}/pkgconfig/build_and_run.cmake")

set_tests_properties(consumer_install_contents consumer_find_package consumer_pkg_config
  PROPERTIES FIXTURES_REQUIRED animcomp_installed)
