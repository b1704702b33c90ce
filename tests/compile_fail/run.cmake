# A key type without bytes fails to compile with a message that names
# bloomkit_key_bytes (issue 17, item 17). Inputs: SOURCE_DIR, BINARY_DIR, CXX.
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -I${SOURCE_DIR}/include
                        ${SOURCE_DIR}/tests/compile_fail/key_without_bytes.cpp
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "key_without_bytes.cpp compiled, but a type without bytes must be refused")
endif()
string(FIND "${err}" "error: static assertion failed: bloomkit: this type is not a key" at)
string(FIND "${err}" "bloomkit_key_bytes" named)
if(at EQUAL -1 OR named EQUAL -1)
  message(FATAL_ERROR "the error does not name bloomkit_key_bytes:\n${err}")
endif()
