# The consumer programs every CMake consumer project builds and runs: consumer.c linked with the
# shared and with the static library (the targets animcomp::animcomp / animcomp::animcomp_static).
set(_consumer_src "${CMAKE_CURRENT_LIST_DIR}/consumer.c")
add_executable(consumer_shared "${_consumer_src}")
target_link_libraries(consumer_shared PRIVATE animcomp::animcomp m)
add_executable(consumer_static "${_consumer_src}")
target_link_libraries(consumer_static PRIVATE animcomp::animcomp_static m)
target_include_directories(consumer_shared PRIVATE "${CMAKE_CURRENT_LIST_DIR}")
target_include_directories(consumer_static PRIVATE "${CMAKE_CURRENT_LIST_DIR}")

enable_testing()
add_test(NAME shared COMMAND consumer_shared)
add_test(NAME static COMMAND consumer_static)
