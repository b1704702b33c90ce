# Compiles every header under include/bloomkit on its own (public ones and
# detail/ ones), with the project's warnings as errors: a header that needs
# something it does not include fails here, not in a user's build.
#   cmake -DSOURCE_DIR=... -DCXX=... -DWORK=... -P headers.cmake
file(GLOB_RECURSE headers RELATIVE ${SOURCE_DIR}/include ${SOURCE_DIR}/include/bloomkit/*.hpp)
list(SORT headers)
file(MAKE_DIRECTORY ${WORK})
set(failed "")
foreach(header ${headers})
  string(MAKE_C_IDENTIFIER ${header} name)
  set(tu ${WORK}/${name}.cpp)
  file(WRITE ${tu} "#include \"${header}\"\n#include \"${header}\"  // and twice: the include guard holds\n")
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror
                          -I${SOURCE_DIR}/include ${tu}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message("${header} does not compile on its own:\n${out}")
    list(APPEND failed ${header})
  endif()
endforeach()
list(LENGTH headers count)
if(failed)
  message(FATAL_ERROR "headers that do not compile alone: ${failed}")
endif()
message("all ${count} headers compile on their own")
