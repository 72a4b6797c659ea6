# Drives cargo for the animcomp library and wraps its outputs in imported targets (the way
# Corrosion does it, without depending on Corrosion): cargo is run by a custom target on every
# build and decides itself whether anything is out of date; the imported targets depend on that
# custom target, so anything linking them is built after it.
#
# Cache variables (all optional):
#   ANIMCOMP_CARGO_PROFILE     cargo profile; empty = from CMAKE_BUILD_TYPE (Debug -> dev,
#                              anything else -> release). `test` reuses what `cargo test` built.
#   ANIMCOMP_CARGO_TARGET_DIR  cargo --target-dir; empty = <source>/target when top-level (shared
#                              with plain cargo commands), <binary dir>/cargo when a subproject.
#   ANIMCOMP_CARGO_FLAGS       extra arguments for `cargo build` (a list).
#   ANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS  ON: get the full library the way `cargo test --workspace`
#                              builds it (`cargo test --workspace --no-run`, profile test), so a CI
#                              that has just run `cargo test --workspace` compiles nothing again.
#                              (`cargo build -p animcomp` resolves the build-time dependencies'
#                              features for one package, not the workspace, and so compiles the
#                              library once more; both write the same unhashed deps/libanimcomp.*.)
#   ANIMCOMP_NATIVE_STATIC_LIBS  system libraries a static Rust library needs on this platform
#                              (`cargo rustc -p animcomp --lib --crate-type staticlib -- --print
#                              native-static-libs`); preset for Linux and Apple targets.
include_guard(GLOBAL)

find_program(CARGO_EXECUTABLE cargo HINTS $ENV{HOME}/.cargo/bin)
if(NOT CARGO_EXECUTABLE)
  message(FATAL_ERROR "animcomp: cargo not found (install Rust: https://rustup.rs)")
endif()

set(ANIMCOMP_CARGO_PROFILE "" CACHE STRING "cargo profile of the library (empty: from CMAKE_BUILD_TYPE)")
set(ANIMCOMP_CARGO_TARGET_DIR "" CACHE PATH "cargo --target-dir for the library (empty: default)")
set(ANIMCOMP_CARGO_FLAGS "" CACHE STRING "extra arguments for cargo build")
option(ANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS "build the library as cargo test --workspace does (CI)" OFF)

if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(_animcomp_native_libs "gcc_s;util;rt;pthread;m;dl;c")
elseif(APPLE)
  set(_animcomp_native_libs "System;c;m")
else()
  set(_animcomp_native_libs "")
  message(WARNING "animcomp: set ANIMCOMP_NATIVE_STATIC_LIBS for ${CMAKE_SYSTEM_NAME} (cargo rustc "
                  "-p animcomp --lib --crate-type staticlib -- --print native-static-libs)")
endif()
set(ANIMCOMP_NATIVE_STATIC_LIBS "${_animcomp_native_libs}" CACHE STRING
    "system libraries the static Rust library needs (without -l)")

set(ANIMCOMP_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." CACHE INTERNAL "")
get_filename_component(ANIMCOMP_SOURCE_DIR "${ANIMCOMP_SOURCE_DIR}" ABSOLUTE)

# SONAME suffix, the same rule as build.rs: <major>, or 0.<minor> while the major version is 0.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(ANIMCOMP_SOVERSION "0.${PROJECT_VERSION_MINOR}")
else()
  set(ANIMCOMP_SOVERSION "${PROJECT_VERSION_MAJOR}")
endif()

# The profile and target directory actually used.
function(_animcomp_resolve_profile out_profile out_dir)
  set(profile "${ANIMCOMP_CARGO_PROFILE}")
  if(ARGV2)
    set(profile "${ARGV2}")
  endif()
  if(profile STREQUAL "")
    if(CMAKE_BUILD_TYPE STREQUAL "Debug")
      set(profile dev)
    else()
      set(profile release)
    endif()
  endif()
  # cargo's output folder per profile: dev and test write to debug/, bench to release/.
  if(profile STREQUAL "dev" OR profile STREQUAL "test")
    set(dir debug)
  elseif(profile STREQUAL "bench")
    set(dir release)
  else()
    set(dir ${profile})
  endif()
  set(${out_profile} ${profile} PARENT_SCOPE)
  set(${out_dir} ${dir} PARENT_SCOPE)
endfunction()

# animcomp_cargo_library(SHARED <target> STATIC <target> [RUNTIME_ONLY <bool>] [TARGET_DIR <dir>]
#                        [CARGO_TARGET <name>] [PROFILE <cargo profile>])
# Defines the custom target <CARGO_TARGET> running cargo, and two imported libraries. A
# runtime-only build goes to <target dir>/runtime-only, so it never overwrites the full library.
function(animcomp_cargo_library)
  cmake_parse_arguments(ARG "" "SHARED;STATIC;RUNTIME_ONLY;TARGET_DIR;CARGO_TARGET;PROFILE" "" ${ARGN})
  if(NOT ARG_CARGO_TARGET)
    set(ARG_CARGO_TARGET ${ARG_STATIC}_cargo)
  endif()
  string(REPLACE "::" "_" ARG_CARGO_TARGET "${ARG_CARGO_TARGET}")
  set(target_dir "${ARG_TARGET_DIR}")
  if(target_dir STREQUAL "")
    # Top-level (also when called from cpp_tests/): the repository's target/, shared by every
    # build directory (build/, build-sanitize/) and by plain cargo commands.
    get_filename_component(top "${CMAKE_SOURCE_DIR}" ABSOLUTE)
    if(ANIMCOMP_SOURCE_DIR STREQUAL top)
      set(target_dir "${ANIMCOMP_SOURCE_DIR}/target")
    else()
      set(target_dir "${CMAKE_CURRENT_BINARY_DIR}/cargo")
    endif()
  endif()
  set(features "")
  set(defines "")
  if(ARG_RUNTIME_ONLY)
    set(target_dir "${target_dir}/runtime-only")
    set(features --no-default-features)
    set(defines ANIMCOMP_RUNTIME_ONLY)
  endif()
  _animcomp_resolve_profile(profile profile_dir "${ARG_PROFILE}")
  set(cargo_args build --profile ${profile} -p animcomp --lib ${features})
  if(ANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS AND NOT ARG_RUNTIME_ONLY)
    set(profile test)
    set(profile_dir debug)
    set(cargo_args test --workspace --no-run)
  endif()
  set(out "${target_dir}/${profile_dir}")
  if(ANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS AND NOT ARG_RUNTIME_ONLY)
    # A test build leaves the library in deps/ (its name carries no hash: the crate is also a
    # cdylib/staticlib); only `cargo build` copies it up to target/<profile>/.
    set(out "${out}/deps")
  endif()
  set(static_lib "${out}/${CMAKE_STATIC_LIBRARY_PREFIX}animcomp${CMAKE_STATIC_LIBRARY_SUFFIX}")
  set(shared_lib "${out}/${CMAKE_SHARED_LIBRARY_PREFIX}animcomp${CMAKE_SHARED_LIBRARY_SUFFIX}")
  set(soname_link "")
  set(link_cmd "")
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    # The linker records the SONAME; the build tree needs a file of that name next to the library.
    set(soname_link "${shared_lib}.${ANIMCOMP_SOVERSION}")
    set(link_cmd COMMAND "${CMAKE_COMMAND}" -E create_symlink
                 "${CMAKE_SHARED_LIBRARY_PREFIX}animcomp${CMAKE_SHARED_LIBRARY_SUFFIX}" "${soname_link}")
  endif()

  add_custom_target(${ARG_CARGO_TARGET}
    COMMAND "${CARGO_EXECUTABLE}" ${cargo_args}
            --manifest-path "${ANIMCOMP_SOURCE_DIR}/Cargo.toml" --target-dir "${target_dir}"
            ${ANIMCOMP_CARGO_FLAGS}
    ${link_cmd}
    WORKING_DIRECTORY "${ANIMCOMP_SOURCE_DIR}"
    BYPRODUCTS "${static_lib}" "${shared_lib}" ${soname_link}
    COMMENT "cargo ${cargo_args}"
    USES_TERMINAL
    VERBATIM)

  set(include_dir "${ANIMCOMP_SOURCE_DIR}/include")
  add_library(${ARG_STATIC} STATIC IMPORTED GLOBAL)
  set_target_properties(${ARG_STATIC} PROPERTIES
    IMPORTED_LOCATION "${static_lib}"
    INTERFACE_INCLUDE_DIRECTORIES "${include_dir}"
    INTERFACE_COMPILE_DEFINITIONS "${defines}"
    INTERFACE_LINK_LIBRARIES "${ANIMCOMP_NATIVE_STATIC_LIBS}")
  add_dependencies(${ARG_STATIC} ${ARG_CARGO_TARGET})

  add_library(${ARG_SHARED} SHARED IMPORTED GLOBAL)
  set_target_properties(${ARG_SHARED} PROPERTIES
    IMPORTED_LOCATION "${shared_lib}"
    INTERFACE_INCLUDE_DIRECTORIES "${include_dir}"
    INTERFACE_COMPILE_DEFINITIONS "${defines}")
  if(soname_link)
    set_target_properties(${ARG_SHARED} PROPERTIES
      IMPORTED_SONAME "${CMAKE_SHARED_LIBRARY_PREFIX}animcomp${CMAKE_SHARED_LIBRARY_SUFFIX}.${ANIMCOMP_SOVERSION}")
  endif()
  add_dependencies(${ARG_SHARED} ${ARG_CARGO_TARGET})

  # For install rules and tests.
  set_property(TARGET ${ARG_STATIC} PROPERTY ANIMCOMP_CARGO_PROFILE ${profile})
  set_property(TARGET ${ARG_STATIC} PROPERTY ANIMCOMP_TARGET_DIR "${target_dir}")
endfunction()
