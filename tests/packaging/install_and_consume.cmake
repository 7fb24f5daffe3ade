# Configures and builds a consumer project in a fresh directory. With LINREC_BUILD_DIR set, first
# installs that linrec build into a fresh prefix, which the consumer finds with find_package.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix_args)
if(DEFINED LINREC_BUILD_DIR)
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${LINREC_BUILD_DIR} --prefix ${WORK_DIR}/prefix
    COMMAND_ERROR_IS_FATAL ANY)
  if(NOT EXISTS ${WORK_DIR}/prefix/include/linrec/linrec.cuh)
    message(FATAL_ERROR "install did not place the headers")
  endif()
  set(prefix_args -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build ${prefix_args}
  ${CONSUMER_ARGS} COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build COMMAND_ERROR_IS_FATAL ANY)
