# ctest's layering_is_enforced: builds the two probes of src/CMakeLists.txt
# with jit/'s include path. The allowed one must build; the forbidden one must
# fail, and fail because the header is not found.
foreach(probe allowed forbidden)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target bcast_layering_${probe}
                  RESULT_VARIABLE status_${probe} OUTPUT_VARIABLE out_${probe} ERROR_VARIABLE out_${probe})
endforeach()
if(NOT status_allowed EQUAL 0)
  message(FATAL_ERROR "the allowed probe did not build:\n${out_allowed}")
endif()
if(status_forbidden EQUAL 0)
  message(FATAL_ERROR "jit/ could include exec/'s executor.h: the layering is not enforced")
endif()
if(NOT out_forbidden MATCHES "executor.h: No such file or directory|'executor.h' file not found")
  message(FATAL_ERROR "the forbidden probe failed, but not for its include:\n${out_forbidden}")
endif()
message(STATUS "jit/ including exec/executor.h fails to compile, as it must")
