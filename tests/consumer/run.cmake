# Installs the build tree into a scratch prefix, then configures and builds tests/consumer
# against it with find_package(vxk), and runs the result.
file(REMOVE_RECURSE ${VXK_WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${VXK_BUILD_DIR} --prefix ${VXK_WORK_DIR}/prefix
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${VXK_SOURCE_DIR}/tests/consumer -B ${VXK_WORK_DIR}/build
  -DCMAKE_PREFIX_PATH=${VXK_WORK_DIR}/prefix RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "consumer configure failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${VXK_WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "consumer build failed: ${rc}")
endif()
execute_process(COMMAND ${VXK_WORK_DIR}/build/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "${out}")
if(rc)
  message(FATAL_ERROR "consumer run failed: ${rc}")
endif()
# pkg-config file must be present and name the library
file(READ ${VXK_WORK_DIR}/prefix/lib/pkgconfig/vxk.pc pc)
if(NOT pc MATCHES "-lvxk")
  message(FATAL_ERROR "vxk.pc does not name -lvxk")
endif()
