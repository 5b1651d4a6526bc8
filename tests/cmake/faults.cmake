# ---- fault injection (tests/faults) ----------------------------------------------------------
# The LD_PRELOAD shim that fails the N-th call of a class made by clparity's own code (malloc,
# open, write, fsync, rename, renameat2, printf-family writes to stdout, fflush, clCreateBuffer,
# clEnqueue*, clBuildProgram, clFinish), and
# tests/faults/run.py, which drives it over the commands (.ci/run faults runs the full sample;
# here a small one: compare on PoCL, whose classes include every CL call, and a run on a warm
# program cache, 2 points per class: about 30 runs).
add_library(clparity_faultshim SHARED faults/shim.c)
target_include_directories(clparity_faultshim PRIVATE ${OpenCL_INCLUDE_DIRS})
target_link_libraries(clparity_faultshim PRIVATE ${CMAKE_DL_LIBS})
# Never sanitized, even in build-asan: it interposes malloc and forwards to the next one (ASan's
# there), and an instrumented malloc wrapper would recurse into ASan's interceptors.
# Frame pointers: ASan's fast unwinder walks through its frames to the callers that
# tools/ci/lsan.supp names. Initial-exec TLS: its malloc runs while ld.so is still relocating
# (under ASan), before __tls_get_addr can be called.
set_property(TARGET clparity_faultshim PROPERTY COMPILE_OPTIONS -Wall -Wextra -Wpedantic -Werror
                                                -fno-omit-frame-pointer -ftls-model=initial-exec)
set_property(TARGET clparity_faultshim PROPERTY LINK_OPTIONS "")
add_test(NAME faults/quick
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/faults/run.py --clparity ${CLP}
                 --shim $<TARGET_FILE:clparity_faultshim> --icd ${ICD_ROOT}/pocl
                 --work ${OUT}/faults-quick --scenarios compare-pocl,cache-warm --quota 2)
set_tests_properties(faults/quick PROPERTIES LABELS "faults" TIMEOUT 300)
# The harness must be able to fail: with a planted bug (every rename of ours truncates the file
# it puts in place), run.py must report violations; with --plant it exits 0 only if it did.
add_test(NAME faults/planted
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/faults/run.py --clparity ${CLP}
                 --shim $<TARGET_FILE:clparity_faultshim> --icd ${ICD_ROOT}/pocl
                 --work ${OUT}/faults-planted --scenarios compare-host,run-host --quota 3
                 --plant truncate-rename)
set_tests_properties(faults/planted PROPERTIES LABELS "faults" TIMEOUT 300)
# The folder guard under faults (issue 32): a save onto a folder holding a file of the user's,
# and file outputs onto the user's files, never replace them and never exit 0; with the guard
# turned off (--plant guard-off, CLPARITY_TEST_HOOK=guard-off) the harness must catch it.
add_test(NAME faults/guard
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/faults/run.py --clparity ${CLP}
                 --shim $<TARGET_FILE:clparity_faultshim> --icd ${ICD_ROOT}/pocl
                 --work ${OUT}/faults-guard --scenarios guard-save,guard-train,guard-files
                 --quota 24)
add_test(NAME faults/planted_guard
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/faults/run.py --clparity ${CLP}
                 --shim $<TARGET_FILE:clparity_faultshim> --icd ${ICD_ROOT}/pocl
                 --work ${OUT}/faults-planted-guard --scenarios guard-save,guard-train,guard-files
                 --quota 3 --plant guard-off)
set_tests_properties(faults/guard faults/planted_guard PROPERTIES LABELS "faults" TIMEOUT 300)
