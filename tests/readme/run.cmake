# The README's C++ examples compile clean and run (issue 17, item 17): each
# ```cpp block of README.md is written to its own file, compiled with
# -Wall -Wextra -Wpedantic -Werror against the source tree's headers, and run
# in a scratch folder. Inputs: SOURCE_DIR, BINARY_DIR, CXX.
set(work ${BINARY_DIR}/readme-examples)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})
file(READ ${SOURCE_DIR}/README.md readme)
# CMake lists split on ';': hide the code's semicolons while matching.
string(REPLACE ";" "@SEMICOLON@" readme "${readme}")
string(REGEX MATCHALL "```cpp\n[^`]*```" blocks "${readme}")
list(LENGTH blocks count)
if(count LESS 2)
  message(FATAL_ERROR "expected at least two ```cpp examples in README.md, found ${count}")
endif()
set(index 0)
foreach(block IN LISTS blocks)
  math(EXPR index "${index} + 1")
  string(REGEX REPLACE "^```cpp\n" "" code "${block}")
  string(REGEX REPLACE "```$" "" code "${code}")
  string(REPLACE "@SEMICOLON@" ";" code "${code}")
  set(source ${work}/example_${index}.cpp)
  file(WRITE ${source} "${code}")
  execute_process(COMMAND ${CXX} -std=c++20 -O1 -Wall -Wextra -Wpedantic -Werror -I${SOURCE_DIR}/include
                          ${source} -o ${work}/example_${index} -pthread
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "README example ${index} does not compile clean:\n${code}\n${out}${err}")
  endif()
  execute_process(COMMAND ${work}/example_${index} WORKING_DIRECTORY ${work} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "README example ${index} exits ${rc}:\n${out}${err}")
  endif()
  message(STATUS "README example ${index}: ${out}")
endforeach()
