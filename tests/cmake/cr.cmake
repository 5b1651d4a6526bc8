# ---- host:cr: correctly rounded layers (issue 23) ----------------------------------------------
# The exact accumulator and its rounding on hand-made sums (ties, one unit off a tie, the sign of
# zero, overflow at 2^128 - 2^103, subnormals, NaN and infinity), the certificate, and the fast
# path against the scalar form (every output through the accumulator) on random and near-tie
# rows: intrinsics, portable loop, baseline and AVX2 levels, 1 and 3 threads. The planted twin must see
# the one-bit error of the test hook corrupt-cr (tests/test_cr.c).
cp_unit(cr)
add_test(NAME cr/unit COMMAND test_cr)
add_test(NAME cr/unit_planted COMMAND test_cr planted)
# host:cr bit for bit against an exact computation in Python (fractions.Fraction) at small odd
# shapes: random layers, ties, cancellation, overflow, subnormals, NaN and infinity, with and
# without bias, ReLU and residual; the fast path (default) and the scalar form. The planted twin
# passes only when tests/check_cr.py reports the bit that corrupt-cr flips.
set(CHECK_CR ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_cr.py ${CLP})
add_test(NAME cr/check_host COMMAND ${CHECK_CR} ${OUT}/cr_check --engines host:cr)
add_test(NAME cr/check_host_scalar COMMAND ${CHECK_CR} ${OUT}/cr_check_scalar --engines host:cr)
add_test(NAME cr/check_host_planted
         COMMAND ${CHECK_CR} ${OUT}/cr_check_planted --engines host:cr --expect-mismatch)
set_tests_properties(cr/unit cr/unit_planted cr/check_host PROPERTIES
                     ENVIRONMENT "${ENV_NONE};${ENV_CACHE}" LABELS cr)
set_tests_properties(cr/check_host_scalar PROPERTIES
                     ENVIRONMENT "${ENV_NONE};${ENV_CACHE};CLPARITY_HOST_CR=scalar" LABELS cr)
set_tests_properties(cr/check_host_planted PROPERTIES
                     ENVIRONMENT "${ENV_NONE};${ENV_CACHE};CLPARITY_TEST_HOOK=corrupt-cr" LABELS cr)
# host:cr at every instruction-set level this CPU has (CLPARITY_HOST_ISA; the levels read from
# /proc/cpuinfo): the level's kernel named in the routine, check_cr.py's exact reference at each,
# and at shapes that reach every tile (1 to 64 rows, odd ends) the kernel, on one thread and on
# the pool, and its portable loop all give the scalar form's hash (tests/cli/cr_isa.sh). The
# planted twin (corrupt-cr) passes only when every one of those checks sees the flipped bit.
add_test(NAME cr/host_isa_levels
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/cr_isa.sh ${CLP} ${OUT}/cr_isa ${SYSTEM_PYTHON}
                 ${CMAKE_CURRENT_SOURCE_DIR}/check_cr.py)
add_test(NAME cr/host_isa_levels_planted
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/cr_isa.sh ${CLP} ${OUT}/cr_isa_planted
                 ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_cr.py --planted)
set_tests_properties(cr/host_isa_levels PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                     LABELS cr)
# (label kernels: the asan job leaves the planted twin out, the same host code as the plain one)
set_tests_properties(cr/host_isa_levels_planted PROPERTIES
                     ENVIRONMENT "${ENV_NONE};${ENV_CACHE}" LABELS "cr;kernels")
# compare's bitwise verdict names host:cr among the results not expected to be host:exact's,
# with its reason, and does not fail for it without --expect; its --json is valid.
add_test(NAME cr/compare_bitwise_wording
         COMMAND sh -c "f=${OUT}/cr_wording.txt; ${LOGGED} $f $0 compare -d host --engines host:exact,host:cr --d-model 64 --layers 4 --batch 5 --runs 1 --warmup 0 --json ${OUT}/cr_wording.json && cat $f && ${HAS} -E '^  bitwise  1 of 2 results identical to host:exact; not expected of host:cr [(]correctly rounded: each sum rounded once[)]$' $f && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/validate_json.py ${CMAKE_SOURCE_DIR}/docs/compare.schema.json ${OUT}/cr_wording.json"
         ${CLP})
set_tests_properties(cr/compare_bitwise_wording PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                     LABELS "cr;cli")
# cl:cr (issue 23, part 2): the same checks on PoCL (its default variant there, cpu1) and on
# Oclgrind (gemv) with its API, bounds, race and uninitialised-value checks on (any report in
# its log fails the test), and the planted twin on PoCL (test hook corrupt-cl-cr: the lowest bit
# of one output of the last layer, flipped in the kernel; --quick, as every planted twin of
# check_cr.py here: the plant sits in the variant's store, whatever the case).
add_test(NAME cr/check_cl_pocl COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_pocl --engines cl:cr -d 0)
add_test(NAME cr/check_cl_pocl_planted
         COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_planted --engines cl:cr -d 0 --quick
                 --expect-mismatch)
set_tests_properties(cr/check_cl_pocl PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS "cr;opencl")
# (label kernels: the asan job leaves the planted twin out, the same host code as the plain one)
set_tests_properties(cr/check_cl_pocl_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=corrupt-cl-cr"
                     LABELS "cr;opencl;kernels")
set(OCLGRIND_CHECKS "OCLGRIND_CHECK_API=1;OCLGRIND_DATA_RACES=1;OCLGRIND_UNINITIALIZED=1")
add_test(NAME cr/check_cl_oclgrind
         COMMAND sh -c "log=${OUT}/cr_check_cl_oclgrind.log; rm -f $log; OCLGRIND_LOG=$log \"$@\" || exit $?; if [ -s $log ]; then echo \"FAIL: Oclgrind reported problems ($log):\"; head -n 40 $log; exit 1; fi"
                 sh ${CHECK_CR} ${OUT}/cr_check_cl_oclgrind --engines cl:cr -d 0 --quick)
# Its own program cache: builds without optimisation (OCLGRIND_BUILD_OPTIONS, which the cache key
# does not hold) only, each built once rather than in every case's process.
set_tests_properties(cr/check_cl_oclgrind PROPERTIES
                     ENVIRONMENT "${ENV_OCLGRIND};XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-cache-oclgrind-cr;${OCLGRIND_CHECKS};OCLGRIND_BUILD_OPTIONS=-cl-opt-disable"
                     LABELS "cr;opencl;oclgrind")
# cl:cr's cpu1 (clkernels/cr_cpu.cl, issue 34: the whole model in one launch, PoCL's default where
# the weights fit one buffer, so cr/check_cl_pocl and its planted twin run it as it is chosen)
# forced with other settings: k in 4 lanes with a tail, 2 rows and 2 outputs per work-item; 16
# lanes, 8 rows, 8 outputs with the float-denormal-free code (CR_NO_DENORM); 8 lanes, 8 rows, 4
# outputs (the default where the layers are 512 wide or more, the batch 16 or more and the
# device's double vectors 8 wide: cr_cl.c's cr_width_defaults; check_cr.py's shapes are
# narrower, so it is forced here), with its planted twin; the planted twin
# forced (corrupt-cl-cr: check_cr.py must see the planted bit); and on Oclgrind with its checks,
# all 265 cases (35 s), each case's program built without optimisation, and its planted twin.
foreach(t "vw=4,rb=2,ob=2" "vw=16,rb=8,ob=8,ftz=1" "vw=8,rb=8,ob=4")
  string(REGEX REPLACE "[=,]" "_" tn "${t}")
  add_test(NAME cr/check_cl_pocl_cpu1_${tn}
           COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_cpu1_${tn} --engines cl:cr -d 0)
  set_tests_properties(cr/check_cl_pocl_cpu1_${tn} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=path=cpu1,${t}"
                       LABELS "cr;opencl")
endforeach()
add_test(NAME cr/check_cl_pocl_cpu1_planted
         COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_cpu1_planted --engines cl:cr -d 0 --expect-mismatch)
set_tests_properties(cr/check_cl_pocl_cpu1_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=path=cpu1,vw=4,rb=2,ob=2;CLPARITY_TEST_HOOK=corrupt-cl-cr"
                     LABELS "cr;opencl;kernels")
add_test(NAME cr/check_cl_pocl_cpu1_rb8_planted
         COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_cpu1_rb8_planted --engines cl:cr -d 0 --quick
                 --expect-mismatch)
set_tests_properties(cr/check_cl_pocl_cpu1_rb8_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=path=cpu1,vw=8,rb=8,ob=4;CLPARITY_TEST_HOOK=corrupt-cl-cr"
                     LABELS "cr;opencl;kernels")
add_test(NAME cr/check_cl_oclgrind_cpu1
         COMMAND sh -c "log=${OUT}/cr_check_cl_oclgrind_cpu1.log; rm -f $log; OCLGRIND_LOG=$log \"$@\" || exit $?; if [ -s $log ]; then echo \"FAIL: Oclgrind reported problems ($log):\"; head -n 40 $log; exit 1; fi"
                 sh ${CHECK_CR} ${OUT}/cr_check_cl_oclgrind_cpu1 --engines cl:cr -d 0)
set_tests_properties(cr/check_cl_oclgrind_cpu1 PROPERTIES
                     ENVIRONMENT "${ENV_OCLGRIND};XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-cache-oclgrind-cr;${OCLGRIND_CHECKS};OCLGRIND_BUILD_OPTIONS=-cl-opt-disable;CLPARITY_CR_TUNE=path=cpu1,vw=4,rb=2,ob=2"
                     LABELS "cr;opencl;oclgrind")
add_test(NAME cr/check_cl_oclgrind_cpu1_planted
         COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_oclgrind_cpu1_planted --engines cl:cr -d 0 --quick
                 --expect-mismatch)
set_tests_properties(cr/check_cl_oclgrind_cpu1_planted PROPERTIES
                     ENVIRONMENT "${ENV_OCLGRIND};XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-cache-oclgrind-cr;OCLGRIND_BUILD_OPTIONS=-cl-opt-disable;CLPARITY_CR_TUNE=path=cpu1,vw=4,rb=2,ob=2;CLPARITY_TEST_HOOK=corrupt-cl-cr"
                     LABELS "cr;opencl;oclgrind;kernels")
# CLPARITY_CR_TUNE: a bad value, word or name is a usage error naming what is allowed; split-k
# partial sums that Oclgrind's 128 MiB cannot hold are refused before any work.
cli_status(cr_cl_bad_tune "${ENV_POCL};CLPARITY_CR_TUNE=wg=48" 2
           "CLPARITY_CR_TUNE: tuning 'wg=48': wg must be one of 16, 32, 64, 128"
           run -d 0 --engines cl:cr --d-model 8 --layers 1)
cli_status(cr_cl_bad_path "${ENV_POCL};CLPARITY_CR_TUNE=path=fast" 2
           "CLPARITY_CR_TUNE: tuning 'path=fast': path must be one of auto, gemv, splitk, gemm, cpu, stream, cpu1, team, tiles"
           run -d 0 --engines cl:cr --d-model 8 --layers 1)
cli_status(cr_cl_bad_name "${ENV_POCL};CLPARITY_CR_TUNE=split=4,xx=1" 2
           "unknown parameter 'xx' \\(path, wg, ob, split, tk, vw, rb, exact, ftz, sg, method, rm\\)"
           run -d 0 --engines cl:cr --d-model 8 --layers 1)
cli_status(cr_cl_split_too_large "${ENV_OCLGRIND};CLPARITY_CR_TUNE=path=splitk,split=16" 2
           "model too large for Oclgrind Simulator: cl:cr.s split-k partial sums \\(path splitk"
           run -d 0 --engines cl:cr --d-model 1024 --layers 1 --batch 1024 --allow-slow)
# cl:cr bit for bit against host:cr on PoCL: the built-in model at d = 1, 3, 67, 257, general
# models with biases, and the boundary layer, at B = 1, 5, 17, 64, and d = 1023, 1025 (and a
# 1025-wide general model) at B = 1, 5, under 29 settings of its variants (tests/test_cr_cl.c);
# the planted twin (13 of them, the widths up to 257) must see every one differ.
cp_unit(cr_cl)
add_test(NAME cr/cl_matrix_pocl COMMAND test_cr_cl)
add_test(NAME cr/cl_matrix_pocl_planted COMMAND test_cr_cl planted)
set_tests_properties(cr/cl_matrix_pocl cr/cl_matrix_pocl_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" SKIP_RETURN_CODE 77
                     LABELS "cr;opencl")
# The matrix and its planted twin take minutes on the 2-core machine: the asan job leaves
# them out with the tune-setting matrices (label kernels). Under ASan each variant's host code
# (gemv, splitk, gemm, cpu, stream, cpu1, team, f32-stream, f32, f32-gemm, f32-tiles, and the exact and
# float-denormal-free forms) runs in
# cr/cl_variants_pocl instead: compare --expect cr at d=67 L=2 B=17, one setting of each.
set_tests_properties(cr/cl_matrix_pocl cr/cl_matrix_pocl_planted PROPERTIES
                     LABELS "cr;opencl;kernels")
add_test(NAME cr/cl_variants_pocl
         COMMAND sh -c "for t in path=gemv,wg=32,ob=2 path=splitk,split=3 path=gemm,tk=8 path=cpu,vw=8 path=stream,wg=16,sg=2 path=gemv,exact=1 path=gemm,ftz=1 path=cpu1,vw=4,rb=2,ob=2 path=cpu1,vw=8,rb=8,ob=4 path=cpu1,ftz=1 path=team,split=3 path=team,exact=1,ftz=1 method=f32,path=stream method=f32,path=gemv method=f32,path=gemm,rm=1 method=f32,path=tiles,rm=2,sg=2; do echo \"CLPARITY_CR_TUNE=$t\"; CLPARITY_CR_TUNE=$t $0 compare -d portable -d host --engines cl:cr,host:cr --d-model 67 --layers 2 --batch 17 --runs 1 --warmup 0 --expect cr | grep -E '^ *cr +PASS' || exit 1; done"
         ${CLP})
set_tests_properties(cr/cl_variants_pocl PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS "cr;opencl")
# cl:cr's GPU kernels (issue 34) forced on PoCL and on Oclgrind, each against tests/check_cr.py's
# exact reference at all its 265 cases (odd shapes, ties, subnormals, overflow, NaN and infinity):
# gemm (8 x 8 doubles per work-item, the rows' squares inside), team (the whole model in one
# work-group, 4 work-items per output; check_cr.py runs 1 to 5 rows a case) and tiles (gemm's
# tiles of every layer in one launch, grid_sync.cl's barrier between layers). The planted twin
# on PoCL (test hook corrupt-cl-cr) must see the flipped bit (--quick: 103 cases; the plant sits
# in each variant's store). Oclgrind with its race, bounds and uninitialised-value checks (any
# report fails the test): team at every case, gemm and tiles --quick (their whole runs took 125
# and 130 s on the 2-core machine; PoCL runs every case of gemm and tiles, and --quick holds
# the odd widths, ties, subnormals, overflow, NaN and infinity). Team's every case on Oclgrind
# (45 s) stands for PoCL's (139 s), which runs --quick.
foreach(v gemm team tiles)
  if(v STREQUAL "team")
    set(pocl_quick --quick)
    set(grind_quick "")
  else()
    set(pocl_quick "")
    set(grind_quick --quick)
  endif()
  add_test(NAME cr/check_cl_pocl_${v}
           COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_pocl_${v} --engines cl:cr -d 0 ${pocl_quick})
  add_test(NAME cr/check_cl_pocl_${v}_planted
           COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_pocl_${v}_planted --engines cl:cr -d 0 --quick
                   --expect-mismatch)
  set_tests_properties(cr/check_cl_pocl_${v} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=path=${v}"
                       LABELS "cr;opencl")
  set_tests_properties(cr/check_cl_pocl_${v}_planted PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=path=${v};CLPARITY_TEST_HOOK=corrupt-cl-cr"
                       LABELS "cr;opencl;kernels")
  add_test(NAME cr/check_cl_oclgrind_${v}
           COMMAND sh -c "log=${OUT}/cr_check_cl_oclgrind_${v}.log; rm -f $log; OCLGRIND_LOG=$log \"$@\" || exit $?; if [ -s $log ]; then echo \"FAIL: Oclgrind reported problems ($log):\"; head -n 40 $log; exit 1; fi"
                   sh ${CHECK_CR} ${OUT}/cr_check_cl_oclgrind_${v} --engines cl:cr -d 0
                   ${grind_quick})
  set_tests_properties(cr/check_cl_oclgrind_${v} PROPERTIES
                       ENVIRONMENT "${ENV_OCLGRIND};XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-cache-oclgrind-cr;${OCLGRIND_CHECKS};OCLGRIND_BUILD_OPTIONS=-cl-opt-disable;CLPARITY_CR_TUNE=path=${v}"
                       LABELS "cr;opencl;oclgrind" TIMEOUT 900)
endforeach()
# The second certificate (cr.cl's cr_dot2: the work-group's Sum2, issue 34) alone: test hook
# corrupt-cl-cr:second sends every output of gemm (rm=1, 2 and 8), tiles, gemv, splitk and
# stream to it, against tests/check_cr.py's exact reference (--quick: 103 cases, odd widths,
# ties, subnormals, overflow, NaN, infinity, the bound's cases), on PoCL, with and without float
# denormals (ftz=1); the planted twin (token plant: the bit flipped after the probe) must see it.
# Labelled kernels (a settings matrix: the test job runs them, the asan job leaves them out).
foreach(t gemm,rm=1 gemm,rm=2,ftz=1 gemm,rm=8,tk=8 tiles,rm=2 gemv,wg=16 splitk,split=3 stream,wg=32,ftz=1)
  string(REGEX REPLACE "[,=]" "_" n "${t}")
  add_test(NAME cr/second_pocl_${n}
           COMMAND ${CHECK_CR} ${OUT}/cr_second_pocl_${n} --engines cl:cr -d 0 --quick)
  set_tests_properties(cr/second_pocl_${n} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=path=${t};CLPARITY_TEST_HOOK=corrupt-cl-cr:second"
                       LABELS "cr;opencl;kernels")
endforeach()
add_test(NAME cr/second_pocl_planted
         COMMAND ${CHECK_CR} ${OUT}/cr_second_pocl_planted --engines cl:cr -d 0 --quick
                 --expect-mismatch)
set_tests_properties(cr/second_pocl_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=path=gemm,rm=1;CLPARITY_TEST_HOOK=corrupt-cl-cr:second+plant"
                     LABELS "cr;opencl;kernels")
# The float32 method's exact sums where its certificate fails (issue 34): test hook
# corrupt-cl-cr:fallback fails every certificate (CR_F32_FALLBACK), so that every output of
# f32-gemm goes through its list and cr_f32_fix's launch, and of f32-tiles through its own exact
# sums, against tests/check_cr.py's exact reference (--quick); the planted twin (token plant)
# must see the flipped bit. (f32, f32-stream and f32-item send check_cr.py's special values to
# their exact sums in cr/check_cl_f32_*.)
foreach(t path=gemm,rm=1 path=gemm,rm=2,ftz=1 path=tiles,sg=2)
  string(REGEX REPLACE "[,=]" "_" n "${t}")
  add_test(NAME cr/f32_fallback_pocl_${n}
           COMMAND ${CHECK_CR} ${OUT}/cr_f32_fallback_pocl_${n} --engines cl:cr -d 0 --quick)
  set_tests_properties(cr/f32_fallback_pocl_${n} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=method=f32,${t};CLPARITY_TEST_HOOK=corrupt-cl-cr:fallback"
                       LABELS "cr;opencl;kernels")
endforeach()
add_test(NAME cr/f32_fallback_pocl_planted
         COMMAND ${CHECK_CR} ${OUT}/cr_f32_fallback_pocl_planted --engines cl:cr -d 0 --quick
                 --expect-mismatch)
set_tests_properties(cr/f32_fallback_pocl_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=method=f32,path=gemm;CLPARITY_TEST_HOOK=corrupt-cl-cr:fallback+plant"
                     LABELS "cr;opencl;kernels")
# The bound's depth (issue 34: cr_bound.c's cr_sum_depth, docs/ENGINES.md): check_cr.py's depth
# cases, whose double chains lose 1008 u against the midpoint's 512 u, with each layout whose
# depth is below in (stream and gemv at wg=16, gemm and tiles at rm <= 2, tk=16) and one whose
# depth is in (gemm at rm=4); the planted twins (test hook cr-bound-low: depth 0, for any
# layout) must see the wrong float the first certificate then takes.
foreach(t stream,wg=16 gemv,wg=16 gemm,rm=2,tk=16 tiles,rm=1,tk=16 gemm,rm=4,tk=16)
  string(REGEX REPLACE "[,=]" "_" n "${t}")
  add_test(NAME cr/depth_pocl_${n}
           COMMAND ${CHECK_CR} ${OUT}/cr_depth_pocl_${n} --engines cl:cr -d 0 --kinds depth)
  set_tests_properties(cr/depth_pocl_${n} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=path=${t}"
                       LABELS "cr;opencl;kernels")
  add_test(NAME cr/depth_pocl_${n}_planted
           COMMAND ${CHECK_CR} ${OUT}/cr_depth_pocl_${n}_planted --engines cl:cr -d 0
                   --kinds depth --expect-mismatch)
  set_tests_properties(cr/depth_pocl_${n}_planted PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=path=${t};CLPARITY_TEST_HOOK=cr-bound-low"
                       LABELS "cr;opencl;kernels")
endforeach()
# The same kernels at widths past check_cr.py's (31): cr_block_sums' loads 8 k at a time
# (gemv, splitk, stream) run only where a work-item has 8 k or more, gemm's and tiles' tiles and
# team's passes repeat; compare --expect cr against host:cr at d=301 (B=3), d=1025 (B=1) and
# d=67 (B=130: three rows of tiles), on PoCL.
# The planted twin (corrupt-cl-cr) must see every setting FAIL, at d=67 B=130 (the plant sits in
# each variant's store, whatever the shape).
foreach(kind plain planted)
  if(kind STREQUAL "planted")
    set(hook ";CLPARITY_TEST_HOOK=corrupt-cl-cr")
    set(want FAIL)
    set(shapes "'67 3 130'")
  else()
    set(hook "")
    set(want PASS)
    set(shapes "'301 2 3' '1025 2 1' '67 3 130'")
  endif()
  add_test(NAME cr/cl_gpu_wide_pocl_${kind}
           COMMAND sh -c "for t in path=gemv,wg=16,ob=2 path=splitk,split=3,wg=16 path=stream,wg=16,ob=8,sg=2 path=gemm,tk=8 path=team,split=8 path=tiles,sg=2; do for s in ${shapes}; do set -- $s; echo \"CLPARITY_CR_TUNE=$t d=$1 L=$2 B=$3\"; CLPARITY_CR_TUNE=$t $0 compare -d portable -d host --engines cl:cr,host:cr --d-model $1 --layers $2 --batch $3 --runs 1 --warmup 0 --expect cr | grep -E '^ *cr +${want}' || exit 1; done; done"
                   ${CLP})
  set_tests_properties(cr/cl_gpu_wide_pocl_${kind} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE}${hook}" LABELS "cr;opencl;kernels")
endforeach()
# cl:cr's probe (issue 32, item 6; tests/cli/cr_probe.sh): each variant with one planted bit
# (test hook corrupt-cl-cr:<variant>, the probe's build included) is rejected with its reason and
# the next runs, host:cr's bits still (cpu -> gemv -> gemv-exact on PoCL; stream -> gemm -> gemv
# on PoCL taken as a GPU); every variant planted: run exits 1 (so does cl:own's kernel-bit:all);
# a forced variant planted is the result's error (exit 3), never another variant.
# ties: a real rounding bug (ties away from zero, in a copy of cr.cl) that compare at d=67 misses
# and the probe's ties catch.
foreach(mode cpu1 cpu gemv stream gemm gemv-exact forced own ties)
  add_test(NAME cr/probe_${mode}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/cr_probe.sh ${CLP} ${OUT} ${mode}
                   ${CMAKE_SOURCE_DIR}/clkernels)
  set_tests_properties(cr/probe_${mode} PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                       LABELS "cr;opencl;cli" TIMEOUT 900)
endforeach()
# compare's =cr and crULP (issue 23, acceptance 3): cl:cr at 100 % and 0 ULP against host:cr
# (computed though not listed), host:exact below 100 %, the same from diff of the saved folder
# (cr.npy); the planted twin (corrupt-cl-cr) must show cl:cr's flipped bit as 1 ULP.
set(CHECK_CR_COMPARE ${CMAKE_CURRENT_SOURCE_DIR}/check_cr_compare.py)
foreach(kind plain planted)
  if(kind STREQUAL "planted")
    set(hook ";CLPARITY_TEST_HOOK=corrupt-cl-cr")
    set(flag --planted)
  else()
    set(hook "")
    set(flag "")
  endif()
  add_test(NAME cr/compare_columns_${kind}
           COMMAND sh -c "rm -rf ${OUT}/cr_cols_${kind} && ${LOGGED} ${OUT}/cr_cols_${kind}.txt $0 compare -d pocl,host --engines cl:cr,host:exact --d-model 33 --layers 3 --batch 4 --runs 1 --warmup 0 --json ${OUT}/cr_cols_${kind}.json --save ${OUT}/cr_cols_${kind} && ${HAS} '=ref32  =base    =cr  crULP argmax' ${OUT}/cr_cols_${kind}.txt && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/validate_json.py ${CMAKE_SOURCE_DIR}/docs/compare.schema.json ${OUT}/cr_cols_${kind}.json && ${SYSTEM_PYTHON} ${CHECK_CR_COMPARE} $0 ${OUT}/cr_cols_${kind}.json ${OUT}/cr_cols_${kind} ${OUT}/cr_cols_${kind}_diff.json ${flag}"
                   ${CLP})
  set_tests_properties(cr/compare_columns_${kind} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE}${hook}" LABELS "cr;cli")
endforeach()
# compare --expect cr and diff --expect cr (issue 23): cl:cr and host:cr bit-identical to host:cr
# passes (exit 0, verdict cr PASS, verdicts.cr true), host:exact beside them not judged; cl:cr's
# planted bit (corrupt-cl-cr) and host:cr's own (corrupt-cr, the output cr judges by) each give
# exit 1 naming cl:cr alone, in compare and in diff of the saved folder (tests/cli/expect_cr.sh).
foreach(mode plain cl host)
  if(mode STREQUAL "cl")
    set(hook ";CLPARITY_TEST_HOOK=corrupt-cl-cr")
  elseif(mode STREQUAL "host")
    set(hook ";CLPARITY_TEST_HOOK=corrupt-cr")
  else()
    set(hook "")
  endif()
  add_test(NAME cr/compare_expect_${mode}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_cr.sh ${CLP} ${OUT} ${mode}
                   ${SYSTEM_PYTHON} ${CMAKE_SOURCE_DIR}/docs/compare.schema.json
                   ${CMAKE_CURRENT_SOURCE_DIR}/validate_json.py)
  set_tests_properties(cr/compare_expect_${mode} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE}${hook}" LABELS "cr;cli")
endforeach()
# --expect cr with no cl:cr or host:cr result would pass over nothing: a usage error (status 2)
# before any work, in compare (--engines naming none) and in diff (a folder of cl:own and
# host:exact results; and one of cl:cr without host:cr's output). The default engines hold
# cl:cr and host:cr (issue 34): there --expect cr judges them, and passes.
cli_status(compare_expect_cr_none "${ENV_POCL}" 2
           "^clparity compare: --expect cr judges the correctly rounded results \\(cl:cr, host:cr\\) against host:cr, and --engines selects none"
           compare -d pocl --engines cl:own --d-model 8 --layers 2 --expect cr)
add_test(NAME cli/compare_expect_cr_default
         COMMAND sh -c "$0 compare -d pocl,host --d-model 8 --layers 2 --runs 1 --warmup 0 --expect cr > ${OUT}/expect_cr_default.txt && grep -q '^  cr       PASS' ${OUT}/expect_cr_default.txt && grep -q ' cl:cr ' ${OUT}/expect_cr_default.txt && grep -q ' host:cr ' ${OUT}/expect_cr_default.txt || { cat ${OUT}/expect_cr_default.txt; exit 1; }"
                 ${CLP})
set_tests_properties(cli/compare_expect_cr_default PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS "cr;cli")
add_test(NAME cr/diff_expect_usage
         COMMAND sh -c "d=${OUT}/expect_cr_diff_own; rm -rf $d $d.cr && ${LOGGED} $d.txt $0 run -d pocl,host --engines cl:own,host:exact,host:f64 --d-model 8 --layers 2 --runs 1 --warmup 0 --save $d && ${EXPECT} 2 '^clparity diff: --expect cr judges the correctly rounded results [(]cl:cr, host:cr[)] against host:cr, and no folder holds one$' -- $0 diff $d $d --expect cr && ${LOGGED} $d.cr.txt $0 run -d pocl,host --engines cl:cr,host:exact,host:f64 --d-model 8 --layers 2 --runs 1 --warmup 0 --save $d.cr && ${EXPECT} 2 '^clparity diff: --expect cr: no folder holds host:cr.s output to judge by' -- $0 diff $d.cr $d.cr --expect cr"
         ${CLP})
set_tests_properties(cr/diff_expect_usage PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS "cr;cli")
# Training with the contract for every sum (issue 23, acceptance 4): cl:cr's weights must be
# host:cr's bits at every step (train checks each recorded step, and --every is 1: exit 1 and
# "diverged from host:cr" otherwise), its final forward too, and so must the saved weights'
# hashes; on the built-in model for 100 steps, and on the digits model (biases, ReLU, a
# rectangular layer) at batch 5. The planted twin moves one of cl:cr's weights by one ULP after
# its first step (test hook train-ulp), which must be reported. On Oclgrind, cr.cl's training
# kernels with its API, bounds and race checks, at a small shape.
set(CHECK_CR_TRAIN ${CMAKE_CURRENT_SOURCE_DIR}/check_cr_train.py)
add_test(NAME cr/train_pocl
         COMMAND sh -c "${LOGGED} ${OUT}/cr_train_1.txt $0 train -d pocl,host --engines cl:cr,host:cr --steps 100 --json ${OUT}/cr_train_1.json && ${SYSTEM_PYTHON} ${CHECK_CR_TRAIN} ${OUT}/cr_train_1.json && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/validate_json.py ${CMAKE_SOURCE_DIR}/docs/train.schema.json ${OUT}/cr_train_1.json && ${LOGGED} ${OUT}/cr_train_2.txt $0 train -d pocl,host --engines cl:cr --model ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/digits.safetensors --batch 5 --lr 0.005 --steps 30 --target random --json ${OUT}/cr_train_2.json && ${SYSTEM_PYTHON} ${CHECK_CR_TRAIN} ${OUT}/cr_train_2.json"
         ${CLP})
set_tests_properties(cr/train_pocl PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS "cr;cli")
add_test(NAME cr/train_pocl_planted
         COMMAND ${EXPECT} 1 "^clparity train: cl:cr on .* diverged from host:cr at step 1 "
                 -- ${CLP} train -d pocl,host --engines cl:cr,host:cr --steps 10 --d-model 8 --layers 2 --batch 2 --target random)
set_tests_properties(cr/train_pocl_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=train-ulp" LABELS "cr;cli")
# Sums whose every term is a zero (cr.cl's cr_tr_zero, host:cr's cr_dot_zero): on
# tests/make_zero_model.py's model every gradient is a zero, -0 or +0 by the terms' signs, and
# at batch 1 momentum's buffer keeps each one's sign, as the final forward keeps its -0
# outputs; cl:cr must equal host:cr in both (exit 0). The planted twin flips the sign of each
# such zero of cl:cr's (test hook cr-train-flip, which also flips the certified sums' lowest
# bit): train must report the forward and the state.
foreach(case ok planted)
  if(case STREQUAL "ok")
    set(run "${LOGGED} ${OUT}/cr_train_zero.txt")
    set(env "")
  else()
    set(run "${EXPECT} 1 \"^clparity train: cl:cr on .*: the forward of the final weights differs from host:cr's$\" --")
    set(env ";CLPARITY_TEST_HOOK=cr-train-flip")
  endif()
  add_test(NAME cr/train_zero_pocl_${case}
           COMMAND sh -c "${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/make_zero_model.py ${OUT}/zero_${case}.safetensors && ${run} $0 train -d pocl,host --engines cl:cr,host:cr --model ${OUT}/zero_${case}.safetensors --optimizer momentum --lr 0 --steps 3 --batch 1 --target random"
                   ${CLP})
  set_tests_properties(cr/train_zero_pocl_${case} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE}${env}" LABELS "cr;cli")
endforeach()
add_test(NAME cr/train_oclgrind
         COMMAND sh -c "log=${OUT}/cr_train_oclgrind.log; rm -f $log; OCLGRIND_LOG=$log ${LOGGED} ${OUT}/cr_train_oclgrind.txt $0 train -d 0 -d host --engines cl:cr --d-model 7 --layers 2 --batch 3 --steps 3 --allow-slow --json ${OUT}/cr_train_oclgrind.json || exit $?; if [ -s $log ]; then echo \"FAIL: Oclgrind reported problems ($log):\"; head -n 40 $log; exit 1; fi; ${SYSTEM_PYTHON} ${CHECK_CR_TRAIN} ${OUT}/cr_train_oclgrind.json"
         ${CLP})
# Without the uninitialised-value check, as train.cl's cases in tools/ci/oclgrind.sh: it reports
# tr_forward's reads of its input (1001 reports at cr_acc_add_product), which the host wrote
# before the first launch; the same open question as train.cl's (docs/RELIABILITY.md).
set_tests_properties(cr/train_oclgrind PROPERTIES
                     ENVIRONMENT "${ENV_OCLGRIND};XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-cache-oclgrind-cr;OCLGRIND_CHECK_API=1;OCLGRIND_DATA_RACES=1;OCLGRIND_UNINITIALIZED=0;OCLGRIND_BUILD_OPTIONS=-cl-opt-disable"
                     LABELS "cr;cli;oclgrind")
cli_status(cr_host_bad_mode "CLPARITY_HOST_CR=fast" 2
           "CLPARITY_HOST_CR: 'fast' is not auto, scalar or generic" run -d host --engines host:cr)
cli_status(cr_host_bad_stats "CLPARITY_HOST_CR_STATS=yes" 2
           "CLPARITY_HOST_CR_STATS: 'yes' is not 0 or 1" run -d host --engines host:cr)
# tools/bench --cr (issue 34's targets) on cut-down shapes (--cr-smoke): its --cr-json checked
# by tests/check_bench_cr.py (each ratio the median of its rounds', cl:cr's and host:cr's hashes
# host:cr's in every round, a row's value its worst point's, rows 5-7 with --local, rusticl from
# build/icd/rusticl, the GPU rows "not measured" without a GPU, row 4's float32-only method
# refused or run). The planted twins must turn one-bit errors into MISMATCH rows and exit 1:
# corrupt-cl-cr (cl:cr's checked forward) and corrupt-run (every engine's second forward, inside
# the timed rounds only).
set(CHECK_BENCH_CR ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_bench_cr.py ${CLP})
if(ENV_RUSTICL)
  set(BENCH_CR_RUSTICL --rusticl)
endif()
add_test(NAME cr/bench_local COMMAND ${CHECK_BENCH_CR} ${OUT}/bench_cr_local local ${BENCH_CR_RUSTICL})
add_test(NAME cr/bench_local_planted COMMAND ${CHECK_BENCH_CR} ${OUT}/bench_cr_planted planted)
add_test(NAME cr/bench_rounds_planted
         COMMAND ${CHECK_BENCH_CR} ${OUT}/bench_cr_rounds_planted planted-run)
add_test(NAME cr/bench_no_gpu COMMAND ${CHECK_BENCH_CR} ${OUT}/bench_cr_nogpu nogpu)
add_test(NAME cr/bench_gpu_on_pocl COMMAND ${CHECK_BENCH_CR} ${OUT}/bench_cr_gpu gpu-on-pocl)
set_tests_properties(cr/bench_local cr/bench_no_gpu cr/bench_gpu_on_pocl PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS "cr;bench;opencl")
set_tests_properties(cr/bench_local_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=corrupt-cl-cr"
                     LABELS "cr;bench;opencl")
set_tests_properties(cr/bench_rounds_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=corrupt-run"
                     LABELS "cr;bench;opencl")
# tools/bench with no clparity to run: a missing or non-executable binary (--clparity, or
# build/clparity) is a usage error (status 2, one line naming it); one that cannot be started
# once the bench runs (a script whose interpreter does not exist) ends it with status 1 naming
# it. Never a Python traceback (both were one before).
set(BENCH ${SYSTEM_PYTHON} ${CMAKE_SOURCE_DIR}/tools/bench)
file(WRITE ${OUT}/bench-no-interpreter "#!/no/such/interpreter\n")
file(CHMOD ${OUT}/bench-no-interpreter PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
add_test(NAME cr/bench_no_binary
         COMMAND ${EXPECT} 2 "^tools/bench: .*/no-such-clparity: not an executable file"
                 --stderr-lines 1 -- ${BENCH} --cr --local --clparity ${OUT}/no-such-clparity)
add_test(NAME cr/bench_binary_fails
         COMMAND ${EXPECT} 1 "^tools/bench: cannot run .*/bench-no-interpreter: "
                 --stderr-lacks Traceback --
                 ${BENCH} --train --local --only 4 --clparity ${OUT}/bench-no-interpreter)
set_tests_properties(cr/bench_no_binary cr/bench_binary_fails PROPERTIES LABELS "cr;bench")
# The float32-only certified method (issue 34; clkernels/cr_f32.cl, variants f32-item on CPUs
# and f32 elsewhere): bit for bit against tests/check_cr.py's exact reference, forced
# (CLPARITY_CR_TUNE=method=f32) on PoCL (f32-item) and on Oclgrind (f32, its checks on, as
# cr/check_cl_oclgrind, --quick: its every case took 202 s on the 2-core machine), and by
# default on rusticl (no cl_khr_fp64: llvmpipe takes f32-item, and
# flushes float denormals, so the method's no-underflow condition is exercised); each planted
# twin (corrupt-cl-cr, the bit flipped in cr_f32.cl's stores) must see the error.
add_test(NAME cr/check_cl_f32_pocl
         COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_f32_pocl --engines cl:cr -d 0)
add_test(NAME cr/check_cl_f32_pocl_planted
         COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_f32_planted --engines cl:cr -d 0 --quick
                 --expect-mismatch)
set_tests_properties(cr/check_cl_f32_pocl PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=method=f32"
                     LABELS "cr;opencl")
set_tests_properties(cr/check_cl_f32_pocl_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=method=f32;CLPARITY_TEST_HOOK=corrupt-cl-cr"
                     LABELS "cr;opencl;kernels")
add_test(NAME cr/check_cl_f32_oclgrind
         COMMAND sh -c "log=${OUT}/cr_check_cl_f32_oclgrind.log; rm -f $log; OCLGRIND_LOG=$log \"$@\" || exit $?; if [ -s $log ]; then echo \"FAIL: Oclgrind reported problems ($log):\"; head -n 40 $log; exit 1; fi"
                 sh ${CHECK_CR} ${OUT}/cr_check_cl_f32_oclgrind --engines cl:cr -d 0 --quick)
set_tests_properties(cr/check_cl_f32_oclgrind PROPERTIES
                     ENVIRONMENT "${ENV_OCLGRIND};XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-cache-oclgrind-cr;${OCLGRIND_CHECKS};OCLGRIND_BUILD_OPTIONS=-cl-opt-disable;CLPARITY_CR_TUNE=method=f32"
                     LABELS "cr;opencl;oclgrind")
# The float32 method's GPU layouts on PoCL (a CPU, whose rule takes f32-item), each forced:
# f32 (path=gemv: a launch per layer, gemv's layout) and f32-stream (path=stream: the whole
# model in one launch, the rule on GPUs at B <= 4), the latter with its planted twin. On
# Oclgrind (a GPU to the rules) cr/check_cl_f32_oclgrind above runs both by the rule (the
# cases of up to 4 rows take f32-stream).
add_test(NAME cr/check_cl_f32_gemv_pocl
         COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_f32_gemv_pocl --engines cl:cr -d 0)
set_tests_properties(cr/check_cl_f32_gemv_pocl PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=method=f32,path=gemv"
                     LABELS "cr;opencl")
add_test(NAME cr/check_cl_f32_stream_pocl
         COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_f32_stream_pocl --engines cl:cr -d 0)
add_test(NAME cr/check_cl_f32_stream_pocl_planted
         COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_f32_stream_planted --engines cl:cr -d 0
                 --quick --expect-mismatch)
set_tests_properties(cr/check_cl_f32_stream_pocl PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=method=f32,path=stream"
                     LABELS "cr;opencl;kernels")
set_tests_properties(cr/check_cl_f32_stream_pocl_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=method=f32,path=stream;CLPARITY_TEST_HOOK=corrupt-cl-cr"
                     LABELS "cr;opencl;kernels")
# ... and in gemm's tiles, forced: f32-gemm (path=gemm: a launch per layer, the rule on GPUs
# past B=256 at layers up to 1024 wide) and f32-tiles (path=tiles: every layer in one launch),
# each with its planted twin.
foreach(v gemm tiles)
  add_test(NAME cr/check_cl_f32_${v}_pocl
           COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_f32_${v}_pocl --engines cl:cr -d 0)
  add_test(NAME cr/check_cl_f32_${v}_pocl_planted
           COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_f32_${v}_planted --engines cl:cr -d 0
                   --quick --expect-mismatch)
  set_tests_properties(cr/check_cl_f32_${v}_pocl PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=method=f32,path=${v}"
                       LABELS "cr;opencl;kernels")
  set_tests_properties(cr/check_cl_f32_${v}_pocl_planted PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_CR_TUNE=method=f32,path=${v};CLPARITY_TEST_HOOK=corrupt-cl-cr"
                       LABELS "cr;opencl;kernels")
endforeach()
# method=f32 takes path=gemv, stream, gemm or tiles (its layouts), no other path and never
# exact=1: a usage error.
cli_status(cr_cl_f32_with_path "${ENV_POCL};CLPARITY_CR_TUNE=method=f32,path=cpu1" 2
           "CLPARITY_CR_TUNE: method=f32 has its own variants"
           run -d 0 --engines cl:cr --d-model 8 --layers 1)
cli_status(cr_cl_f32_with_exact "${ENV_POCL};CLPARITY_CR_TUNE=method=f32,exact=1" 2
           "CLPARITY_CR_TUNE: method=f32 has its own variants"
           run -d 0 --engines cl:cr --d-model 8 --layers 1)
if(ENV_RUSTICL)
  add_test(NAME cr/check_cl_f32_rusticl
           COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_f32_rusticl --engines cl:cr -d 0)
  add_test(NAME cr/check_cl_f32_rusticl_planted
           COMMAND ${CHECK_CR} ${OUT}/cr_check_cl_f32_rusticl_planted --engines cl:cr -d 0
                   --expect-mismatch)
  set_tests_properties(cr/check_cl_f32_rusticl PROPERTIES
                       ENVIRONMENT "${ENV_RUSTICL};${ENV_CACHE}" LABELS "cr;opencl")
  # rusticl's default is the float32 method (no fallback to the exact accumulator after its
  # probe), so that the checks above test it
  add_test(NAME cr/cl_f32_rusticl_default
           COMMAND sh -c "$0 run -d 0 --engines cl:cr --d-model 67 --layers 2 --batch 5 --runs 1 --warmup 0 > ${OUT}/cr_f32_rusticl_default.txt && cat ${OUT}/cr_f32_rusticl_default.txt && ${HAS} -E '^ran: +cl:cr on .*: cr_f32.cl f32-item: float32 certified [+] exact fallback' ${OUT}/cr_f32_rusticl_default.txt"
           ${CLP})
  set_tests_properties(cr/cl_f32_rusticl_default PROPERTIES
                       ENVIRONMENT "${ENV_RUSTICL};${ENV_CACHE}" LABELS "cr;opencl")
  # a float32 variant that gives a wrong bit (test hook corrupt-cl-cr:f32-item, its probe's build
  # too) is rejected by the probe, and rusticl runs the exact accumulator instead
  add_test(NAME cr/probe_f32_rusticl
           COMMAND sh -c "$0 run -d 0 --engines cl:cr --d-model 67 --layers 2 --batch 5 --runs 1 --warmup 0 > ${OUT}/cr_probe_f32_rusticl.txt 2>&1; cat ${OUT}/cr_probe_f32_rusticl.txt; ${HAS} -E '^ +rejected f32-item: probe' ${OUT}/cr_probe_f32_rusticl.txt && ${HAS} -E 'kernel path gemv-exact, passed its probe' ${OUT}/cr_probe_f32_rusticl.txt"
           ${CLP})
  set_tests_properties(cr/probe_f32_rusticl PROPERTIES
                       ENVIRONMENT "${ENV_RUSTICL};${ENV_CACHE};CLPARITY_TEST_HOOK=corrupt-cl-cr:f32-item"
                       LABELS "cr;opencl")
  set_tests_properties(cr/check_cl_f32_rusticl_planted PROPERTIES
                       ENVIRONMENT "${ENV_RUSTICL};${ENV_CACHE};CLPARITY_TEST_HOOK=corrupt-cl-cr"
                       LABELS "cr;opencl;kernels")
endif()
