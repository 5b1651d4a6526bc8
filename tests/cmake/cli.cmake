# ---- command line --------------------------------------------------------------------------
set(CLP $<TARGET_FILE:clparity>)
set(EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh)
# Where a test would send a command's output to /dev/null or grep -q a file, it uses these
# (tests/cli/logged.sh LOG CMD..., tests/cli/has.sh [--no] PATTERN FILE): on failure they show
# the output, or the pattern and the file.
set(LOGGED ${CMAKE_CURRENT_SOURCE_DIR}/cli/logged.sh)
set(HAS ${CMAKE_CURRENT_SOURCE_DIR}/cli/has.sh)
find_program(SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(OUT ${CMAKE_BINARY_DIR}/test-out)
file(MAKE_DIRECTORY ${OUT})

# cli_status(NAME ENV STATUS REGEX ARGS...): exit status and first stderr line.
function(cli_status name env status regex)
  add_test(NAME cli/${name} COMMAND ${EXPECT} ${status} "${regex}" -- ${CLP} ${ARGN})
  set_tests_properties(cli/${name} PROPERTIES ENVIRONMENT "${env};${ENV_CACHE}" LABELS cli)
endfunction()

cli_status(help "${ENV_POCL}" 0 "" --help)
cli_status(version "${ENV_POCL}" 0 "" --version)
cli_status(devices_help "${ENV_POCL}" 0 "" devices --help)
cli_status(run_help "${ENV_POCL}" 0 "" run --help)
cli_status(no_command "${ENV_POCL}" 2 "^clparity: no command given" )
cli_status(unknown_command "${ENV_POCL}" 2 "^clparity: unknown command 'frobnicate'" frobnicate)
# host:openblas shares tiny layers' rows over a pool of threads (CLPARITY_HOST_THREADS; by
# default half the cores, so none on the 2-core CI machine): every run must give the same bits
# and stay within the torch tolerance, at B > 1 (sgemm slices) and B = 1 (sgemv slices).
foreach(shape "3 100 20 3" "4 64 16 1")
  separate_arguments(s UNIX_COMMAND "${shape}")
  list(GET s 0 t)
  list(GET s 1 d)
  list(GET s 2 l)
  list(GET s 3 b)
  add_test(NAME cli/host_threads_${t}_b${b}
           COMMAND sh -c "$0 compare -d host --engines host:openblas,host:exact --expect torch --runs 20 --warmup 1 --d-model ${d} --layers ${l} --batch ${b} > ${OUT}/host_threads_${t}_b${b}.txt; rc=$?; cat ${OUT}/host_threads_${t}_b${b}.txt; [ $rc = 0 ] || { echo \"FAIL: compare exited $rc\"; exit 1; }; ${HAS} '^  checks   PASS' ${OUT}/host_threads_${t}_b${b}.txt && ${HAS} -E '^R1 .*host:openblas .* yes +n/a$' ${OUT}/host_threads_${t}_b${b}.txt"
           ${CLP})
  set_tests_properties(cli/host_threads_${t}_b${b} PROPERTIES
                       ENVIRONMENT "CLPARITY_HOST_THREADS=${t}" LABELS cli)
endforeach()
cli_status(host_threads_bad "CLPARITY_HOST_THREADS=0" 2 "CLPARITY_HOST_THREADS: '0' is not 1 to 16"
           run -d host --engines host:openblas)
cli_status(host_split_bad "CLPARITY_HOST_SPLIT=both" 2
           "CLPARITY_HOST_SPLIT: 'both' is not auto, pool or openblas" run -d host --engines host:openblas)
cli_status(host_pin_bad "CLPARITY_HOST_PIN=yes" 2 "CLPARITY_HOST_PIN: 'yes' is not 0 or 1"
           run -d host --engines host:exact)
# The pool's pinning changes where its threads run, never a bit: host:openblas and host:exact
# pinned (the default) and unpinned (CLPARITY_HOST_PIN=0) give the same hashes, on 2 threads,
# on shapes that take the pool (column and row slices), and with CLPARITY_HOST_SPLIT=pool on one
# that would go to OpenBLAS's threads (d=600 B=20). Each side must show both engines' hashes.
foreach(case "128 3 64 auto" "128 3 512 auto" "600 2 20 pool")
  separate_arguments(s UNIX_COMMAND "${case}")
  list(GET s 0 d)
  list(GET s 1 l)
  list(GET s 2 b)
  list(GET s 3 split)
  set(run "$0 run -d host --engines host:openblas,host:exact --no-reference --runs 3 --warmup 0 --d-model ${d} --layers ${l} --batch ${b} | awk '$1 == \"host\" && $2 ~ /^host:/ && length($6) == 16 {print $2, $6}'")
  add_test(NAME cli/host_pin_same_bits_d${d}_b${b}_${split}
           COMMAND sh -c "a=$(CLPARITY_HOST_PIN=1 ${run}); b=$(CLPARITY_HOST_PIN=0 ${run}); echo \"pinned: $a\"; echo \"unpinned: $b\"; [ $(echo \"$a\" | wc -l) = 2 ] && [ \"$a\" = \"$b\" ] || { echo 'FAIL: expected the same two hashes (host:openblas, host:exact) pinned and unpinned'; exit 1; }"
           ${CLP})
  set_tests_properties(cli/host_pin_same_bits_d${d}_b${b}_${split} PROPERTIES
                       ENVIRONMENT "CLPARITY_HOST_THREADS=2;OPENBLAS_NUM_THREADS=2;CLPARITY_HOST_SPLIT=${split}"
                       LABELS cli)
endforeach()
# host:openblas's thread choice (issue 13): layers shared out over the pool by size, or
# OpenBLAS's own threads for large ones. 20 runs give one hash, with the pool and OpenBLAS both
# on T threads (CLPARITY_HOST_THREADS, OPENBLAS_NUM_THREADS), on shapes that take sgemm column
# slices (d=128 B=64), sgemv slices (d=256 B=1, on 4 threads: tiny layers take half of them),
# sgemm row slices (d=128 B=512) and OpenBLAS's threads (d=512 B=64, and d=1024 B=1 through
# sgemv). With the hook corrupt-pool, the pool's last thread flips a bit in the second forward:
# the same check must then fail where the pool runs (POOL 1), which also shows that it ran.
foreach(case "2 128 4 64 1" "3 128 4 64 1" "4 256 4 1 1" "2 128 4 512 1" "3 128 4 512 1"
             "2 512 2 64 0" "3 512 2 64 0" "2 1024 2 1 0")
  separate_arguments(s UNIX_COMMAND "${case}")
  list(GET s 0 t)
  list(GET s 1 d)
  list(GET s 2 l)
  list(GET s 3 b)
  list(GET s 4 pool)
  # OpenBLAS takes no more threads than the cores, and host:openblas no more than OpenBLAS:
  # a case for more threads than the machine's cores is skipped (77).
  add_test(NAME cli/host_openblas_det_t${t}_d${d}_b${b}
           COMMAND sh -c "[ $(nproc) -ge ${t} ] || exit 77; $0 compare -d host --engines host:openblas,host:exact --expect torch --runs 20 --warmup 1 --d-model ${d} --layers ${l} --batch ${b} > ${OUT}/hob_det_${t}_${d}_${b}.txt; rc=$?; cat ${OUT}/hob_det_${t}_${d}_${b}.txt; [ $rc = 0 ] || { echo \"FAIL: compare exited $rc\"; exit 1; }; ${HAS} -E '^R1 .*host:openblas .* yes +n/a$' ${OUT}/hob_det_${t}_${d}_${b}.txt"
           ${CLP})
  set_tests_properties(cli/host_openblas_det_t${t}_d${d}_b${b} PROPERTIES
                       ENVIRONMENT "CLPARITY_HOST_THREADS=${t};OPENBLAS_NUM_THREADS=${t}"
                       LABELS cli SKIP_RETURN_CODE 77)
  if(pool)
    add_test(NAME cli/host_openblas_det_planted_t${t}_d${d}_b${b}
             COMMAND sh -c "[ $(nproc) -ge ${t} ] || exit 77; $0 compare -d host --engines host:openblas,host:exact --expect torch --runs 20 --warmup 1 --d-model ${d} --layers ${l} --batch ${b} > ${OUT}/hob_planted_${t}_${d}_${b}.txt 2>&1; rc=$?; cat ${OUT}/hob_planted_${t}_${d}_${b}.txt; [ $rc = 1 ] || { echo \"FAIL: compare exited $rc, expected 1\"; exit 1; }; ${HAS} 'host:openblas: runs differ (not deterministic)' ${OUT}/hob_planted_${t}_${d}_${b}.txt"
             ${CLP})
    set_tests_properties(cli/host_openblas_det_planted_t${t}_d${d}_b${b} PROPERTIES
                         ENVIRONMENT
                         "CLPARITY_HOST_THREADS=${t};OPENBLAS_NUM_THREADS=${t};CLPARITY_TEST_HOOK=corrupt-pool"
                         LABELS cli SKIP_RETURN_CODE 77)
  endif()
endforeach()
# host:exact's vectorised, threaded loops give the scalar loop's bits (no reassociation, no
# contraction), and a planted one-bit error in any of them is seen (tests/cli/exact_host.sh).
add_test(NAME cli/exact_host_loops
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/exact_host.sh ${CLP} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures)
add_test(NAME cli/exact_host_loops_planted
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/exact_host.sh ${CLP} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures
                 --planted)
set_tests_properties(cli/exact_host_loops cli/exact_host_loops_planted PROPERTIES LABELS cli)
cli_status(exact_host_bad_mode "CLPARITY_HOST_EXACT=fast" 2
           "CLPARITY_HOST_EXACT: 'fast' is not scalar or generic" run -d host --engines host:exact)
# host:exact at every instruction-set level this CPU has (CLPARITY_HOST_ISA; the levels read
# from /proc/cpuinfo): cl:own's bits on PoCL at odd sizes and on the digits model, one hash
# across the levels and their portable loops; each level the CPU lacks refused with exit 2
# (tests/cli/exact_isa.sh).
add_test(NAME exact/host_isa_levels
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/exact_isa.sh ${CLP} ${OUT}/exact_isa
                 ${CMAKE_CURRENT_SOURCE_DIR}/fixtures)
set_tests_properties(exact/host_isa_levels PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS "exact;opencl")
cli_status(exact_host_bad_isa "CLPARITY_HOST_ISA=sse9" 2
           "CLPARITY_HOST_ISA: 'sse9' is not avx512, avx2 or baseline" run -d host --engines host:exact)
# Training's bits before and after issue 35's threaded host trainers: the weights and state
# hashes of cl:own (PoCL), host:exact, host:f64 and host:cr at 12 cases (odd shapes, digits;
# sgd, momentum, nesterov, adam, adamw, weight decay; four with batches of 16 and 32, one of
# them d=520, where host:exact's forward runs in the batch's lanes at AVX-512; those four
# recorded with main 7aabeec)
# against tests/cli/train_hashes.txt, recorded with the binary before the change; the host at
# every ISA level this CPU has and on 3 threads. Its _planted twin flips one bit of one saved file, which must be the only failure
# (tests/cli/train_hashes.sh).
add_test(NAME train/host_hashes
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/train_hashes.sh ${CLP}
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/train_hashes.txt ${OUT}/train_hashes)
add_test(NAME train/host_hashes_planted
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/train_hashes.sh ${CLP}
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/train_hashes.txt ${OUT}/train_hashes_planted
                 --planted)
set_tests_properties(train/host_hashes train/host_hashes_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS "train;opencl")

# ---- issue 33's before/after proof (tools/ci/same_results.sh) -------------------------------
# One binary against itself comes out the same (the mask covers what differs between runs),
# and against a planted bit of host:exact's output (a wrapper with corrupt-exact) exits 1
# naming the saved file (tests/cli/same_results.sh).
add_test(NAME cli/same_results
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/same_results.sh ${CLP} ${OUT}/same-results)
set_tests_properties(cli/same_results PROPERTIES ENVIRONMENT "${ENV_POCL}" LABELS "cli;opencl")
