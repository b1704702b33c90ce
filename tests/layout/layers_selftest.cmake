# Proves layers.cmake can fail: copies a minimal tree with one breach of each
# rule into a scratch folder and expects layers.cmake to reject it (and to
# accept the same tree without the breaches).
#   cmake -DSOURCE_DIR=... -DWORK=... -P layers_selftest.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/include/bloomkit/detail ${WORK}/tools ${WORK}/web ${WORK}/bench)
file(WRITE ${WORK}/include/bloomkit/detail/ok.hpp "#include <cstdint>\n#include \"bloomkit/error.hpp\"\n#include \"bloomkit/detail/bits.hpp\"\n")
file(WRITE ${WORK}/tools/ok.cpp "int main() { return 0; }\n")
file(WRITE ${WORK}/README.md "no private names here\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK} -P ${SOURCE_DIR}/tests/layout/layers.cmake
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "layers.cmake rejected a clean tree")
endif()
foreach(breach "include/bloomkit/detail/bad.hpp|#include \"bloomkit/hash.hpp\"\n"
               "tools/bad.cpp|int f() { return bloomkit::detail::x; }\n"
               "web/bad.hpp|using bloomkit::detail::y;\n"
               "bench/bad.cpp|auto z = bloomkit::detail::z;\n")
  string(REPLACE "|" ";" parts "${breach}")
  list(GET parts 0 path)
  list(GET parts 1 text)
  file(WRITE ${WORK}/${path} "${text}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK} -P ${SOURCE_DIR}/tests/layout/layers.cmake
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    message(FATAL_ERROR "layers.cmake accepted a tree where ${path} breaks the layering")
  endif()
  file(REMOVE ${WORK}/${path})
endforeach()
message("layers.cmake rejects each planted breach and accepts the clean tree")
