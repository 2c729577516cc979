# Installs the bcast build in BUILD_DIR into a scratch prefix, then configures,
# builds and runs the consumer program in SOURCE_DIR against it.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# The tools are installed and run from the prefix, and so are the pages
# (BINDIR and DOCDIR: the build's GNUInstallDirs, relative to the prefix).
step(${prefix}/${BINDIR}/bcast-run add f32[3,1] f32[4] --check)
step(${prefix}/${BINDIR}/bcast-cache --help)
# Each tool's --help ends with its installed manual page.
foreach(tool_page bcast-run:cli.md bcast-cache:cache.md)
  string(REPLACE ":" ";" tool_page ${tool_page})
  list(GET tool_page 0 tool)
  list(GET tool_page 1 page)
  execute_process(COMMAND ${prefix}/${BINDIR}/${tool} --help OUTPUT_VARIABLE help)
  file(REAL_PATH ${prefix}/${DOCDIR}/${page} manual)
  string(FIND "${help}" "Manual: ${manual}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${tool} --help does not name its installed manual ${manual}:\n${help}")
  endif()
endforeach()
# The Python module, from the install: imported and called with the
# installed package's path alone.
if(PYTHON_DIR)
  set(ENV{PYTHONPATH} ${prefix}/${PYTHON_DIR})
  step(${CMAKE_COMMAND} -E env ${PYTHON_ENV} ${PYTHON} -c "import bcast, numpy as np; r = bcast.add(np.ones(3), 1.0); assert (r == 2).all(); \
assert bcast.__file__.startswith('${prefix}'), bcast.__file__; print('installed module', bcast.__file__)")
  unset(ENV{PYTHONPATH})
endif()
foreach(page README.md semantics.md python.md dask.md cli.md settings.md cache.md logging.md ascend.md reliability.md performance.md
             architecture.md)
  if(NOT EXISTS ${prefix}/${DOCDIR}/${page})
    message(FATAL_ERROR "cmake --install did not install ${page} in ${prefix}/${DOCDIR}")
  endif()
endforeach()
# A sanitizer build's library needs its runtime in the consumer too, from the
# same compiler.
string(REPLACE ";" " " flags "${CONSUMER_FLAGS}")
step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix} "-DCMAKE_CXX_FLAGS=${flags}"
     -DCMAKE_CXX_COMPILER=${CONSUMER_CXX})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/consumer)
