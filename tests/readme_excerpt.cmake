# cmake -DREADME=<README.md> -DSOURCE=<examples/readme/readme_example.cu> -P readme_excerpt.cmake
# The test readme_excerpt: the lines of README.md's ```cpp block between "<!-- example begin -->"
# and "<!-- example end -->" must be a contiguous run of the source's lines between the comments
# "// README begin" and "// README end", whitespace and all.
foreach(var README SOURCE)
  if(NOT EXISTS "${${var}}")
    message(FATAL_ERROR "readme_excerpt: ${var} '${${var}}' not found")
  endif()
endforeach()

# the text between two marker lines of a file (without them), each marker found exactly once
function(between file begin end out)
  file(READ "${file}" text)
  string(FIND "${text}" "${begin}" first)
  string(FIND "${text}" "${begin}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last)
    message(FATAL_ERROR "readme_excerpt: '${begin}' must be in ${file} exactly once")
  endif()
  string(FIND "${text}" "${end}" stop)
  string(FIND "${text}" "${end}" stop_last REVERSE)
  if(stop EQUAL -1 OR NOT stop EQUAL stop_last OR stop LESS first)
    message(FATAL_ERROR "readme_excerpt: '${end}' must be in ${file} exactly once, after '${begin}'")
  endif()
  # from the line after the begin marker to the line before the end marker
  string(SUBSTRING "${text}" ${first} -1 rest)
  string(FIND "${rest}" "\n" newline)
  math(EXPR start "${first} + ${newline} + 1")
  string(SUBSTRING "${text}" 0 ${stop} head)
  string(FIND "${head}" "\n" line_start REVERSE)
  math(EXPR length "${line_start} + 1 - ${start}")
  if(length LESS 0)
    set(length 0)
  endif()
  string(SUBSTRING "${text}" ${start} ${length} inner)
  set(${out} "${inner}" PARENT_SCOPE)
endfunction()

between("${README}" "<!-- example begin -->" "<!-- example end -->" block)
between("${SOURCE}" "// README begin" "// README end" excerpt)

# README's block: a ```cpp fence, the lines, a closing fence
if(NOT block MATCHES "^```cpp\n")
  message(FATAL_ERROR "readme_excerpt: README's example block does not start with a ```cpp line")
endif()
string(REGEX REPLACE "^```cpp\n" "" block "${block}")
if(NOT block MATCHES "\n```\n$")
  message(FATAL_ERROR "readme_excerpt: README's example block does not end with a ``` line")
endif()
string(REGEX REPLACE "```\n$" "" block "${block}")
string(STRIP "${block}" stripped)
if(stripped STREQUAL "")
  message(FATAL_ERROR "readme_excerpt: README's example block is empty")
endif()

# whole lines: the block (a newline before it) inside the excerpt (a newline before it)
string(FIND "\n${excerpt}" "\n${block}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "readme_excerpt: README.md's example is not a contiguous run of the lines between "
                      "'// README begin' and '// README end' in ${SOURCE}.\nREADME.md's lines:\n${block}\n"
                      "the source's lines:\n${excerpt}")
endif()
string(REGEX MATCHALL "\n" lines "${block}")
list(LENGTH lines n)
message(STATUS "readme_excerpt: README.md's example: ${n} lines of ${SOURCE}, identical")
