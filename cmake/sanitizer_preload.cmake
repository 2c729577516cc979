# What a Python process needs to load the module built with BCAST_SANITIZE:
# the interpreter is not instrumented, so the sanitizer's runtime must be
# the first library loaded (LD_PRELOAD), and libstdc++ with it: Debian's
# python3 does not link libstdc++, and a runtime that starts before it
# finds no real __cxa_throw behind its interceptor (ASan then misreports, or
# stops at, the first C++ exception).
#
# bcast_sanitizer_python_env(OUT): sets OUT to the environment (a list of
# VAR=value) that the Python tests run with; empty without BCAST_SANITIZE.
#   address: ASan + UBSan, LeakSanitizer off (the interpreter keeps its
#            objects at exit on purpose: every run would report them; the
#            module's own leak tests count memory instead).
#   thread:  TSan, stopping at the first report, with tests/python/tsan.supp
#            (one report of glibc freeing a dlopen'ed module's TLS).
# Both with allocator_may_return_null: a test asks for 8 TiB and expects
# MemoryError, not the sanitizer's report of a failed allocation.
function(bcast_sanitizer_python_env out)
  if(BCAST_SANITIZE STREQUAL "")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  set(arch ${CMAKE_SYSTEM_PROCESSOR})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    string(REGEX MATCH "^[0-9]+" major ${CMAKE_CXX_COMPILER_VERSION})
    set(package libclang-rt-${major}-dev)
    set(runtime libclang_rt.asan-${arch}.so)
    if(BCAST_SANITIZE STREQUAL "thread")
      set(runtime libclang_rt.tsan-${arch}.so)
    endif()
  else()
    string(REGEX MATCH "^[0-9]+" major ${CMAKE_CXX_COMPILER_VERSION})
    set(package "libgcc-${major}-dev")
    set(runtime libasan.so)
    if(BCAST_SANITIZE STREQUAL "thread")
      set(runtime libtsan.so)
    endif()
  endif()
  set(paths "")
  foreach(library ${runtime} libstdc++.so.6)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${library} OUTPUT_VARIABLE path
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT IS_ABSOLUTE "${path}" OR NOT EXISTS "${path}")
      message(FATAL_ERROR "bcast: ${CMAKE_CXX_COMPILER} has no ${library} for the Python module's "
                          "BCAST_SANITIZE=${BCAST_SANITIZE} tests: install Debian's ${package} "
                          "(tools/setup-deps.sh fuzz installs clang-19's)")
    endif()
    file(REAL_PATH "${path}" path)
    list(APPEND paths ${path})
  endforeach()
  list(JOIN paths ":" preload)
  if(BCAST_SANITIZE STREQUAL "address")
    set(env "LD_PRELOAD=${preload}" "ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:halt_on_error=1"
            "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  else()
    set(env "LD_PRELOAD=${preload}" "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:allocator_may_return_null=1:suppressions=${PROJECT_SOURCE_DIR}/tests/python/tsan.supp")
  endif()
  set(${out} "${env}" PARENT_SCOPE)
endfunction()
