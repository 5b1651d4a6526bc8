# ---- unit tests: cmocka, one file per module (runtime/*, tools/*) -----------------------------
function(cp_unit name)
  add_executable(test_${name} test_${name}.c)
  target_link_libraries(test_${name} PRIVATE clparity_rt PkgConfig::CMOCKA)
endfunction()

foreach(t error npy select gen metrics engines exact relaxed safetensors stats)
  cp_unit(${t})
endforeach()

add_test(NAME runtime/error COMMAND test_error)
add_test(NAME runtime/npy COMMAND test_npy)
add_test(NAME runtime/safetensors COMMAND test_safetensors)
# tools/labels.c (accuracy, agreement, flips) on results made up here.
add_executable(test_labels test_labels.c ${CMAKE_SOURCE_DIR}/tools/labels.c
               ${CMAKE_SOURCE_DIR}/tools/run_job.c ${CMAKE_SOURCE_DIR}/tools/opts.c
               ${CMAKE_SOURCE_DIR}/tools/cli.c ${CMAKE_SOURCE_DIR}/tools/progress.c)
target_include_directories(test_labels PRIVATE ${CMAKE_SOURCE_DIR}/tools)
target_link_libraries(test_labels PRIVATE clparity_rt PkgConfig::CMOCKA)
add_test(NAME tools/labels COMMAND test_labels)
add_test(NAME runtime/select COMMAND test_select)
# cl:own's rule table and the probe's fallback order as pure functions (tests/test_paths.c).
add_executable(test_paths test_paths.c)
target_include_directories(test_paths PRIVATE ${CLPARITY_RUNTIME_DIRS})
target_link_libraries(test_paths PRIVATE clparity_rt PkgConfig::CMOCKA)
add_test(NAME runtime/paths COMMAND test_paths)
# A planted extra kernel path (tests/own_path_planted.c), registered by compiling cl:own's
# tables (runtime/opencl/own_path_table.c) again with one row more: listed, chosen, probed and tuned
# with no other file changed (tests/test_planted_path.c); its planted twin runs it under
# kernel-bit:planted, which its probe must reject.
add_executable(test_planted_path test_planted_path.c own_path_planted.c
                                 ${CMAKE_SOURCE_DIR}/runtime/opencl/own_path_table.c)
target_compile_definitions(test_planted_path PRIVATE OWN_PATH_EXTRA=own_path_planted)
target_include_directories(test_planted_path PRIVATE ${CLPARITY_RUNTIME_DIRS})
target_link_libraries(test_planted_path PRIVATE clparity_rt PkgConfig::CMOCKA)
add_test(NAME runtime/planted_path_pocl COMMAND test_planted_path)
add_test(NAME runtime/planted_path_pocl_planted COMMAND test_planted_path planted)
set_tests_properties(runtime/planted_path_pocl PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     SKIP_RETURN_CODE 77 LABELS opencl)
set_tests_properties(runtime/planted_path_pocl_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=kernel-bit:planted"
                     SKIP_RETURN_CODE 77 LABELS opencl)
add_test(NAME runtime/gen COMMAND test_gen)
add_test(NAME runtime/metrics COMMAND test_metrics)
add_test(NAME runtime/stats COMMAND test_stats)
add_test(NAME runtime/engines_pocl COMMAND test_engines)
set_tests_properties(runtime/engines_pocl PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     SKIP_RETURN_CODE 77 LABELS "opencl;heavy")
# host:exact's training tile with the batch in the AVX-512 lanes (forward and input gradient)
# against the scalar fma chain, bit for bit at odd sizes; its planted twin flips one bit of one
# output after each call, and every check must see it (tests/test_lanes.c).
add_executable(test_lanes test_lanes.c)
target_include_directories(test_lanes PRIVATE ${CLPARITY_RUNTIME_DIRS} ${CMAKE_SOURCE_DIR}/hostblas
                                              ${CMAKE_SOURCE_DIR}/hostblas/include)
target_link_libraries(test_lanes PRIVATE clparity_rt PkgConfig::CMOCKA)
add_test(NAME train/host_lanes COMMAND test_lanes)
add_test(NAME train/host_lanes_planted COMMAND test_lanes planted)
set_tests_properties(train/host_lanes train/host_lanes_planted PROPERTIES SKIP_RETURN_CODE 77
                     LABELS train)
add_test(NAME runtime/exact_pocl COMMAND test_exact)
set_tests_properties(runtime/exact_pocl PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     SKIP_RETURN_CODE 77 LABELS opencl)
add_test(NAME runtime/exact_oclgrind COMMAND test_exact)
set_tests_properties(runtime/exact_oclgrind PROPERTIES
                     ENVIRONMENT "${ENV_OCLGRIND};${ENV_CACHE}" SKIP_RETURN_CODE 77
                     LABELS "opencl;oclgrind")
# cl:relaxed on each of cl:own's paths: the bound, determinism, the path that ran; and the
# planted error (test hook relaxed-wrong) caught by the probe and the bound.
add_test(NAME runtime/relaxed_pocl COMMAND test_relaxed)
set_tests_properties(runtime/relaxed_pocl PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     SKIP_RETURN_CODE 77 LABELS "opencl;heavy")
add_test(NAME runtime/relaxed_planted_pocl COMMAND test_relaxed planted)
set_tests_properties(runtime/relaxed_planted_pocl PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=relaxed-wrong"
                     SKIP_RETURN_CODE 77 LABELS opencl)
add_test(NAME runtime/relaxed_oclgrind COMMAND test_relaxed)
set_tests_properties(runtime/relaxed_oclgrind PROPERTIES
                     ENVIRONMENT "${ENV_OCLGRIND};${ENV_CACHE}" SKIP_RETURN_CODE 77
                     LABELS "opencl;oclgrind")

# The program-binary cache: its files in build/test-out/cache-unit, its engine tests on PoCL.
cp_unit(cache)
target_include_directories(test_cache PRIVATE ${CLPARITY_RUNTIME_DIRS})
add_test(NAME runtime/cache COMMAND test_cache ${CMAKE_BINARY_DIR}/test-out/cache-unit)
set_tests_properties(runtime/cache PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS opencl)

# runtime/keep_pocl: a program keeps only the kernels the host names (cp_program_keep), on PoCL.
cp_unit(keep)
target_include_directories(test_keep PRIVATE ${CLPARITY_RUNTIME_DIRS})
add_test(NAME runtime/keep_pocl COMMAND test_keep)
set_tests_properties(runtime/keep_pocl PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     SKIP_RETURN_CODE 77 LABELS opencl)
# Its planted twin: cr.cl with cr_gemv's guard always true (a copy in CLPARITY_KERNEL_DIR) must
# fail, naming cr_gemv among the kernels kept where cr_gemm alone was named.
add_test(NAME runtime/keep_pocl_planted
         COMMAND sh -c "d=${CMAKE_BINARY_DIR}/test-out/keep_planted; rm -rf $d && cp -r ${CMAKE_SOURCE_DIR}/clkernels $d && sed -i 's/defined(CP_K_cr_gemv)/1/' $d/cr.cl && grep -q '|| 1$' $d/cr.cl || exit 2; CLPARITY_KERNEL_DIR=$d $0 > $d.txt 2>&1; rc=$?; cat $d.txt; [ $rc != 0 ] && grep -q 'cr.cl keeps .*cr_gemv.*, not only the 1 named' $d.txt"
                 $<TARGET_FILE:test_keep>)
# (label twin: the asan job leaves it out, the same host code as the plain one)
set_tests_properties(runtime/keep_pocl_planted PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS "opencl;twin")

# runtime/engine_info: the engine registry's traits and footprints as data (issue 33); no device.
cp_unit(engine_info)
add_test(NAME runtime/engine_info COMMAND test_engine_info)
