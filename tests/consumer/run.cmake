# Installs bloomkit from BINARY_DIR into a scratch prefix, then builds and runs
# the consumer project against it. Fails on any step.
set(prefix ${BINARY_DIR}/consumer-prefix)
set(build ${BINARY_DIR}/consumer-build)
file(REMOVE_RECURSE ${prefix} ${build})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix} --component Unspecified)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${build} -G ${GENERATOR}
     -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix})
step(${CMAKE_COMMAND} --build ${build})
step(${build}/consumer)
step(${build}/consumer_sharding ${build}/shards)
