# Which Python the module is built for: BCAST_PYTHON (docs/python.md,
# "Another interpreter"). Finds it with FindPython3 (which pybind11 then
# uses) and sets bcast_python_install_dir; the module's tests run with it.
#
#   -DBCAST_PYTHON=/path/to/python3   any CPython 3 that can import NumPy
#
# The default is Debian's /usr/bin/python3, which sees Debian's numpy: a
# pyenv or venv python3 earlier on PATH may not. A -DPython3_EXECUTABLE given
# to CMake is taken as BCAST_PYTHON's default too.
if(Python3_EXECUTABLE)
  set(bcast_default_python ${Python3_EXECUTABLE})
elseif(EXISTS /usr/bin/python3)
  set(bcast_default_python /usr/bin/python3)
else()
  find_program(bcast_default_python python3 REQUIRED)
endif()
set(BCAST_PYTHON ${bcast_default_python} CACHE FILEPATH
    "The Python interpreter the module is built for, and its tests run with (it must import numpy)")

execute_process(COMMAND ${BCAST_PYTHON} -c "import numpy" RESULT_VARIABLE bcast_numpy_missing
                OUTPUT_QUIET ERROR_QUIET)
if(bcast_numpy_missing)
  message(FATAL_ERROR "bcast: BCAST_PYTHON=${BCAST_PYTHON} cannot import numpy, which the Python module "
                      "builds against: install it for that interpreter (${BCAST_PYTHON} -m pip install numpy; "
                      "Debian's /usr/bin/python3: python3-numpy, tools/setup-deps.sh), name another with "
                      "-DBCAST_PYTHON=..., or leave the module out with -DBCAST_BUILD_PYTHON=OFF")
endif()

# FindPython3 takes the interpreter it is given; set as a plain variable it
# follows BCAST_PYTHON when that changes in an existing build tree.
set(Python3_EXECUTABLE ${BCAST_PYTHON})
find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module NumPy)
message(STATUS "bcast: Python module for ${Python3_EXECUTABLE} (Python ${Python3_VERSION}, NumPy ${Python3_NumPy_VERSION})")

set(BCAST_PYTHON_INSTALL_DIR "" CACHE STRING
    "Where `cmake --install` puts the package bcast, relative to the prefix (empty: lib/pythonX.Y/dist-packages, X.Y BCAST_PYTHON's version)")
set(bcast_python_install_dir ${BCAST_PYTHON_INSTALL_DIR})
if(bcast_python_install_dir STREQUAL "")
  set(bcast_python_install_dir "${CMAKE_INSTALL_LIBDIR}/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/dist-packages")
endif()
