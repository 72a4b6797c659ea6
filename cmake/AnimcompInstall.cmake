# Install rules for the library chosen at configure time (full, or runtime-only with
# ANIMCOMP_RUNTIME_ONLY=ON):
#
#   include/animcomp.h, include/animcomp.hpp
#   lib/libanimcomp.so.<version> + libanimcomp.so.<soversion> + libanimcomp.so   (debug info split off)
#   lib/libanimcomp.a                                                             (debug info stripped)
#   lib/cmake/animcomp/animcompConfig.cmake, animcompConfigVersion.cmake           (find_package)
#   lib/pkgconfig/animcomp.pc, animcomp-static.pc                                 (pkg-config)
#
# The debug info of the shared library goes to lib/.debug/libanimcomp.so.<version>.debug (found by
# gdb through the library's .gnu_debuglink), installed only on request:
#   cmake --install build --component debuginfo
# The unstripped libraries stay in cargo's target directory.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_target_property(_animcomp_static animcomp::animcomp_static IMPORTED_LOCATION)
get_target_property(_animcomp_shared animcomp::animcomp IMPORTED_LOCATION)
set(_animcomp_dist "${CMAKE_CURRENT_BINARY_DIR}/animcomp-dist")
set(_animcomp_so_name "${CMAKE_SHARED_LIBRARY_PREFIX}animcomp${CMAKE_SHARED_LIBRARY_SUFFIX}")
set(_animcomp_so_real "${_animcomp_so_name}.${PROJECT_VERSION}")
set(_animcomp_so_soname "${_animcomp_so_name}.${ANIMCOMP_SOVERSION}")
get_filename_component(_animcomp_a_name "${_animcomp_static}" NAME)

set(_animcomp_so_permissions OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)

# Stripped copies made at build time (cheap: objcopy over the cargo outputs).
if(CMAKE_OBJCOPY AND NOT APPLE AND NOT WIN32)
  file(MAKE_DIRECTORY "${_animcomp_dist}")
  add_custom_command(
    OUTPUT "${_animcomp_dist}/${_animcomp_so_real}" "${_animcomp_dist}/${_animcomp_so_real}.debug"
           "${_animcomp_dist}/${_animcomp_a_name}"
    COMMAND "${CMAKE_OBJCOPY}" --only-keep-debug "${_animcomp_shared}" "${_animcomp_so_real}.debug"
    COMMAND "${CMAKE_OBJCOPY}" --strip-debug --strip-unneeded
            "--add-gnu-debuglink=${_animcomp_so_real}.debug" "${_animcomp_shared}" "${_animcomp_so_real}"
    COMMAND "${CMAKE_OBJCOPY}" --strip-debug "${_animcomp_static}" "${_animcomp_a_name}"
    COMMAND "${CMAKE_COMMAND}" -E create_symlink "${_animcomp_so_real}" "${_animcomp_so_soname}"
    COMMAND "${CMAKE_COMMAND}" -E create_symlink "${_animcomp_so_soname}" "${_animcomp_so_name}"
    DEPENDS animcomp_cargo_build "${_animcomp_shared}" "${_animcomp_static}"
    WORKING_DIRECTORY "${_animcomp_dist}"
    COMMENT "animcomp: stripping the libraries to install (debug info of the .so split off)"
    VERBATIM)
  add_custom_target(animcomp_dist ALL
    DEPENDS "${_animcomp_dist}/${_animcomp_so_real}" "${_animcomp_dist}/${_animcomp_a_name}")
  # Shared libraries are installed 0755 (as CMake installs its own SHARED targets), not 0644.
  install(FILES "${_animcomp_dist}/${_animcomp_so_real}" "${_animcomp_dist}/${_animcomp_so_soname}"
                "${_animcomp_dist}/${_animcomp_so_name}"
          DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
          PERMISSIONS ${_animcomp_so_permissions})
  install(FILES "${_animcomp_dist}/${_animcomp_a_name}" DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT devel)
  install(FILES "${_animcomp_dist}/${_animcomp_so_real}.debug" DESTINATION ${CMAKE_INSTALL_LIBDIR}/.debug
          COMPONENT debuginfo EXCLUDE_FROM_ALL)
  set(_animcomp_installed_shared "${_animcomp_so_real}")
else()
  # No objcopy (MSVC, Apple): install cargo's outputs as they are.
  install(FILES "${_animcomp_shared}" DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
          PERMISSIONS ${_animcomp_so_permissions})
  install(FILES "${_animcomp_static}" DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
  get_filename_component(_animcomp_installed_shared "${_animcomp_shared}" NAME)
endif()

install(FILES "${ANIMCOMP_SOURCE_DIR}/include/animcomp.h" "${ANIMCOMP_SOURCE_DIR}/include/animcomp.hpp"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel)

# CMake package.
set(ANIMCOMP_CONFIG_DEFINES "")
set(ANIMCOMP_PC_CFLAGS "")
if(ANIMCOMP_RUNTIME_ONLY)
  set(ANIMCOMP_CONFIG_DEFINES ANIMCOMP_RUNTIME_ONLY)
  set(ANIMCOMP_PC_CFLAGS " -DANIMCOMP_RUNTIME_ONLY")
endif()
set(ANIMCOMP_INSTALLED_SHARED "${_animcomp_installed_shared}")
set(ANIMCOMP_INSTALLED_STATIC "${_animcomp_a_name}")
set(_animcomp_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/animcomp)
configure_package_config_file("${ANIMCOMP_SOURCE_DIR}/cmake/animcompConfig.cmake.in"
  "${CMAKE_CURRENT_BINARY_DIR}/animcompConfig.cmake"
  INSTALL_DESTINATION ${_animcomp_cmake_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# 0.x: a minor version may break the ABI, so only the same minor version is compatible.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_animcomp_compat SameMinorVersion)
else()
  set(_animcomp_compat SameMajorVersion)
endif()
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/animcompConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${_animcomp_compat})
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/animcompConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/animcompConfigVersion.cmake"
        DESTINATION ${_animcomp_cmake_dir} COMPONENT devel)

# pkg-config: relocatable (prefix relative to the .pc file), Libs.private for static linking.
file(RELATIVE_PATH _animcomp_pc_up "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
string(REGEX REPLACE "/$" "" _animcomp_pc_up "${_animcomp_pc_up}")
set(ANIMCOMP_PC_PREFIX "\${pcfiledir}/${_animcomp_pc_up}")
set(ANIMCOMP_PC_LIBS_PRIVATE "")
foreach(_lib IN LISTS ANIMCOMP_NATIVE_STATIC_LIBS)
  string(APPEND ANIMCOMP_PC_LIBS_PRIVATE " -l${_lib}")
endforeach()
configure_file("${ANIMCOMP_SOURCE_DIR}/cmake/animcomp.pc.in" "${CMAKE_CURRENT_BINARY_DIR}/animcomp.pc" @ONLY)
# animcomp-static.pc: the same flags naming the archive itself, so static linking is one
# `pkg-config --libs animcomp-static` (with animcomp.pc, -lanimcomp picks the .so).
set(ANIMCOMP_PC_STATIC_ARCHIVE "${_animcomp_a_name}")
configure_file("${ANIMCOMP_SOURCE_DIR}/cmake/animcomp-static.pc.in"
               "${CMAKE_CURRENT_BINARY_DIR}/animcomp-static.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/animcomp.pc" "${CMAKE_CURRENT_BINARY_DIR}/animcomp-static.pc"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)
