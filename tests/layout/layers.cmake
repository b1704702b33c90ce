# The layering rules of README.md, "How the code is laid out", checked on
# the tree as text:
#   1. include/bloomkit/detail/ is private: its headers include only other
#      detail/ headers, bloomkit/error.hpp, the standard library and xxhash.h.
#   2. The shells (tools/, web/, bench/) and the README never name detail::
#      (what they need is public API).
#   cmake -DSOURCE_DIR=<tree> -P layers.cmake     (fails listing each breach)
set(breaches "")

file(GLOB detail_headers ${SOURCE_DIR}/include/bloomkit/detail/*.hpp)
foreach(header ${detail_headers})
  file(STRINGS ${header} lines REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${lines})
    if(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
      set(target ${CMAKE_MATCH_1})
      if(NOT target MATCHES "^bloomkit/detail/" AND NOT target STREQUAL "bloomkit/error.hpp")
        file(RELATIVE_PATH rel ${SOURCE_DIR} ${header})
        list(APPEND breaches "${rel} includes \"${target}\" (detail/ may include only detail/ and error.hpp)")
      endif()
    elseif(line MATCHES "#[ \t]*include[ \t]*<([^>]+)>")
      set(target ${CMAKE_MATCH_1})
      if(target MATCHES "/" AND NOT target MATCHES "^(sys|bits)/")
        file(RELATIVE_PATH rel ${SOURCE_DIR} ${header})
        list(APPEND breaches "${rel} includes <${target}> (detail/ may include only the standard library and xxhash.h)")
      endif()
    endif()
  endforeach()
endforeach()

file(GLOB_RECURSE shell_files
  ${SOURCE_DIR}/tools/*.cpp ${SOURCE_DIR}/tools/*.hpp
  ${SOURCE_DIR}/web/*.cpp ${SOURCE_DIR}/web/*.hpp ${SOURCE_DIR}/web/*.js ${SOURCE_DIR}/web/*.mjs
  ${SOURCE_DIR}/bench/*.cpp ${SOURCE_DIR}/bench/*.hpp)
list(APPEND shell_files ${SOURCE_DIR}/README.md)
foreach(file ${shell_files})
  if(file MATCHES "/node_modules/|/dist/")
    continue()
  endif()
  if(NOT EXISTS ${file})
    continue()
  endif()
  file(STRINGS ${file} hits REGEX "detail::")
  foreach(hit ${hits})
    file(RELATIVE_PATH rel ${SOURCE_DIR} ${file})
    string(STRIP "${hit}" hit)
    list(APPEND breaches "${rel} names detail:: (\"${hit}\"): shells use the public API")
  endforeach()
endforeach()

if(breaches)
  list(JOIN breaches "\n  " text)
  message(FATAL_ERROR "layering breaches:\n  ${text}")
endif()
message("layering holds: detail/ is private, and tools/, web/, bench/, README.md name no detail::")
