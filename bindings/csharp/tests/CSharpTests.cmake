# The C# bindings under mono, from ctest (included by cpp_tests/CMakeLists.txt). Needs Debian's
# mono-mcs and mono-runtime (.ci/run installs them); skipped with a message when absent.
#   csharp_layout_reference   layout.g.c (generated) prints C sizes and offsets
#   csharp_reference          reference.c compresses and samples a clip through the C API
#   csharp_bindings           BindingsTest.cs (+ Runtime/*.cs) compiled with mcs, run with mono
find_program(ANIMCOMP_MCS mcs)
find_program(ANIMCOMP_MONO mono)
if(NOT ANIMCOMP_MCS OR NOT ANIMCOMP_MONO)
  message(STATUS "animcomp: mcs/mono not found, C# binding tests skipped (apt-get install mono-mcs mono-runtime)")
  return()
endif()
set(_cs "${ANIMCOMP_SOURCE_DIR}/bindings/csharp")
set(_out "${CMAKE_CURRENT_BINARY_DIR}/csharp")
file(MAKE_DIRECTORY "${_out}")

add_executable(animcomp_csharp_layout "${_cs}/tests/layout.g.c")
target_link_libraries(animcomp_csharp_layout PRIVATE ${ANIMCOMP_TEST_FULL})
add_executable(animcomp_csharp_reference "${_cs}/tests/reference.c")
set_target_properties(animcomp_csharp_reference PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
target_include_directories(animcomp_csharp_reference PRIVATE "${ANIMCOMP_SOURCE_DIR}/cpp_tests/consumers/common")
target_link_libraries(animcomp_csharp_reference PRIVATE ${ANIMCOMP_TEST_FULL} m)

file(GLOB _cs_sources CONFIGURE_DEPENDS "${_cs}/Runtime/*.cs")
add_custom_command(OUTPUT "${_out}/BindingsTest.exe"
  COMMAND "${ANIMCOMP_MCS}" -nologo -warnaserror -unsafe -langversion:7 -out:BindingsTest.exe
          ${_cs_sources} "${_cs}/tests/BindingsTest.cs"
  DEPENDS ${_cs_sources} "${_cs}/tests/BindingsTest.cs"
  WORKING_DIRECTORY "${_out}"
  COMMENT "mcs BindingsTest.exe"
  VERBATIM)
add_custom_target(animcomp_csharp_test_exe ALL DEPENDS "${_out}/BindingsTest.exe")

add_test(NAME csharp_layout_reference
  COMMAND sh -c "'$<TARGET_FILE:animcomp_csharp_layout>' > '${_out}/layout.txt'")
add_test(NAME csharp_reference COMMAND animcomp_csharp_reference "${_out}")
set_tests_properties(csharp_layout_reference csharp_reference PROPERTIES FIXTURES_SETUP animcomp_cs_ref)
# mono resolves DllImport("animcomp") to libanimcomp.so on the loader path: the shared library
# the tests use (the full one).
get_target_property(_so animcomp::animcomp IMPORTED_LOCATION)
if(ANIMCOMP_RUNTIME_ONLY)
  get_target_property(_so animcomp_test_full IMPORTED_LOCATION)
endif()
get_filename_component(_so_dir "${_so}" DIRECTORY)
add_test(NAME csharp_bindings
  COMMAND "${ANIMCOMP_MONO}" --debug "${_out}/BindingsTest.exe" "${_out}/layout.txt" "${_out}")
set_tests_properties(csharp_bindings PROPERTIES
  FIXTURES_REQUIRED animcomp_cs_ref
  ENVIRONMENT "LD_LIBRARY_PATH=${_so_dir}")
