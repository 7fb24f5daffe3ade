# Copy-in vendoring: copies include/linrec alone into a fresh tree and compiles a consumer with
# nothing but nvcc and that include path.
file(REMOVE_RECURSE ${WORK_DIR})
file(COPY ${SOURCE_INCLUDE} DESTINATION ${WORK_DIR}/vendor)
execute_process(COMMAND ${NVCC} -std=c++17 -arch=sm_${ARCH} -I${WORK_DIR}/vendor ${CONSUMER}
  -o ${WORK_DIR}/consumer COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${WORK_DIR}/consumer COMMAND_ERROR_IS_FATAL ANY)
