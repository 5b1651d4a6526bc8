# ---- compare: exactness across implementations ----------------------------------------------
# cl:own must equal host:exact bit for bit on PoCL at every shape of this grid...
foreach(d 1 3 64 128 257)
  foreach(b 1 5 64)
    foreach(l 1 8 128)
      add_test(NAME exact/pocl_d${d}_b${b}_l${l}
               COMMAND ${CLP} compare -d 0 -d host --expect bitwise --engines cl:own,host:exact
                       --d-model ${d} --batch ${b} --layers ${l} --runs 2 --warmup 0)
      set_tests_properties(exact/pocl_d${d}_b${b}_l${l} PROPERTIES
                           ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS "exact;opencl")
      # ...and on Oclgrind, which interprets, where the case stays under ~20 M multiply-adds.
      math(EXPR macs "${d} * ${d} * ${b} * ${l}")
      if(macs LESS_EQUAL 20000000)
        add_test(NAME exact/oclgrind_d${d}_b${b}_l${l}
                 COMMAND ${CLP} compare -d 0 -d host --expect bitwise
                         --engines cl:own,host:exact --d-model ${d} --batch ${b}
                         --layers ${l} --runs 1 --warmup 0)
        set_tests_properties(exact/oclgrind_d${d}_b${b}_l${l} PROPERTIES
                             ENVIRONMENT "${ENV_OCLGRIND};${ENV_CACHE}"
                             LABELS "exact;oclgrind;heavy")
      endif()
    endforeach()
  endforeach()
endforeach()

# Across PoCL, Oclgrind and host at once, with the saved results checked in numpy.
add_test(NAME cli/compare_all_save
         COMMAND sh -c "rm -rf ${OUT}/cmp_all && $0 compare -d all --expect bitwise --engines cl:own,host:exact --d-model 64 --layers 8 --batch 5 --save ${OUT}/cmp_all && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_saved.py ${OUT}/cmp_all Oclgrind pthread"
         ${CLP})
set_tests_properties(cli/compare_all_save PROPERTIES ENVIRONMENT "${ENV_BOTH};${ENV_CACHE}"
                     LABELS "cli;oclgrind")

# The bitwise check can fail: CLBlast and OpenBLAS sum in other orders. Whether they do here
# is the libraries' business (the CPU, OPENBLAS_CORETYPE, the OpenCL device), so the exit
# status and the results named are those the saved hashes call for on this machine
# (cli/expect_bitwise.py; issue 32).
add_test(NAME cli/compare_bitwise_can_fail
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_bitwise.py
                 ${OUT}/bitwise_can_fail -- ${CLP} compare -d all --expect bitwise
                 --engines cl:clblast,host:openblas,host:exact --d-model 512 --batch 64 --layers 2
                 --runs 1 --warmup 0 --save ${OUT}/bitwise_can_fail)
set_tests_properties(cli/compare_bitwise_can_fail PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS "cli;heavy")

# Planted faults: a flipped bit in the second run's output, or in the weights' copy.
add_test(NAME cli/compare_determinism_hook
         COMMAND sh -c "$0 compare -d 0 -d host --engines cl:own,host:exact --expect bitwise --d-model 16 --layers 2 --runs 3 --warmup 0 > ${OUT}/det_hook.txt 2> ${OUT}/det_hook.err; rc=$?; cat ${OUT}/det_hook.txt ${OUT}/det_hook.err; [ $rc = 1 ] || { echo \"FAIL: compare exited $rc, expected 1\"; exit 1; }; head -n1 ${OUT}/det_hook.err > ${OUT}/det_hook.err1; ${HAS} -- '--expect bitwise failed' ${OUT}/det_hook.err1 && ${HAS} 'cl:own: runs differ (not deterministic)' ${OUT}/det_hook.txt && ${HAS} -E '^R1 .* NO +yes$' ${OUT}/det_hook.txt"
         ${CLP})
set_tests_properties(cli/compare_determinism_hook PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=corrupt-run"
                     LABELS cli)
add_test(NAME cli/compare_roundtrip_hook
         COMMAND sh -c "$0 compare -d 0 -d host --engines cl:own,host:exact --expect torch --d-model 16 --layers 2 --runs 2 --warmup 0 > ${OUT}/rt_hook.txt 2> ${OUT}/rt_hook.err; rc=$?; cat ${OUT}/rt_hook.txt ${OUT}/rt_hook.err; [ $rc = 1 ] || { echo \"FAIL: compare exited $rc, expected 1\"; exit 1; }; head -n1 ${OUT}/rt_hook.err > ${OUT}/rt_hook.err1; ${HAS} -- '--expect torch failed for 1 result: 0:0 .* cl:own' ${OUT}/rt_hook.err1 && ${HAS} 'cl:own: weights changed in the round trip' ${OUT}/rt_hook.txt && ${HAS} -E '^R1 .* yes +NO$' ${OUT}/rt_hook.txt"
         ${CLP})
set_tests_properties(cli/compare_roundtrip_hook PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=corrupt-roundtrip"
                     LABELS cli)
# Without a hook the same runs pass: the failures above come from the planted faults.
cli_status(compare_no_hook "${ENV_POCL}" 0 "" compare -d 0 -d host --engines cl:own,host:exact
           --expect bitwise --d-model 16 --layers 2 --runs 3 --warmup 0)

# Without --expect, engines that never promise exactness (cl:relaxed, host:openblas) are not
# failed for differing from host:exact: the bitwise verdict says how many results are
# identical and which engines are not expected to be (exit 0). Under --expect it is FAIL as
# before, and so it is, without --expect, when cl:own misses (a bit flipped in its kept
# output by the corrupt-run hook; the hidden baseline runs once and stays intact).
add_test(NAME cli/compare_bitwise_wording
         COMMAND sh -c "f=${OUT}/bitwise_wording; ${LOGGED} $f.1 $0 compare -d pocl,host --engines cl:own,cl:relaxed,host:openblas,host:exact --d-model 64 --layers 8 --batch 4 --runs 1 --warmup 0 && cat $f.1 && ${HAS} -E '^  bitwise  [0-9] of 4 results identical to host:exact; not expected of (cl:relaxed|host:openblas|cl:relaxed, host:openblas) [(]they reorder sums[)]$' $f.1 && ${HAS} --no 'bitwise  FAIL' $f.1 && ${LOGGED} $f.2 $0 compare -d pocl,host --engines cl:own,cl:relaxed,host:openblas,host:exact --d-model 64 --layers 8 --batch 4 --runs 1 --warmup 0 --expect torch && ${HAS} '^  bitwise  FAIL (every float32 result bit-identical to host:exact)$' $f.2 && CLPARITY_TEST_HOOK=corrupt-run ${LOGGED} $f.3 $0 compare -d pocl,host --engines cl:own,host:openblas --d-model 64 --layers 8 --batch 4 --runs 1 --warmup 1 && cat $f.3 && ${HAS} '^  bitwise  FAIL' $f.3 && ${HAS} -E '^    R1 .* cl:own: Mismatched elements: 1 / 256' $f.3"
         ${CLP})
set_tests_properties(cli/compare_bitwise_wording PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS cli)

# diff: folders of the same model agree; different inputs are refused. Whether host:openblas
# gives host:exact's bits is OpenBLAS's business (its kernel: OPENBLAS_CORETYPE), so diff
# --expect bitwise must exit as the saved hashes say on this machine (cli/expect_bitwise.py);
# a bit flipped in a kept output (the corrupt-run hook, in diff_p) fails it on every machine.
add_test(NAME cli/diff_same
         COMMAND sh -c "rm -rf ${OUT}/diff_a ${OUT}/diff_b ${OUT}/diff_p && ${LOGGED} ${OUT}/diff_a.txt $0 compare -d 0 -d host --engines cl:own,host:exact --d-model 64 --layers 8 --batch 5 --save ${OUT}/diff_a && ${LOGGED} ${OUT}/diff_b.txt $0 run -d host --engines host:exact,host:openblas --d-model 64 --layers 8 --batch 5 --save ${OUT}/diff_b && $0 diff ${OUT}/diff_a ${OUT}/diff_b && $0 diff --expect torch ${OUT}/diff_a ${OUT}/diff_b && ${SYSTEM_PYTHON} $1 ${OUT}/diff_a ${OUT}/diff_b -- $0 diff --expect bitwise ${OUT}/diff_a ${OUT}/diff_b && CLPARITY_TEST_HOOK=corrupt-run ${LOGGED} ${OUT}/diff_p.txt $0 compare -d 0 -d host --engines cl:own,host:exact --d-model 64 --layers 8 --batch 5 --runs 1 --warmup 1 --save ${OUT}/diff_p && ${EXPECT} 1 '^clparity diff: --expect bitwise failed for .* cl:own' -- $0 diff --expect bitwise ${OUT}/diff_a ${OUT}/diff_p"
         ${CLP} ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_bitwise.py)
set_tests_properties(cli/diff_same PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS cli)
add_test(NAME cli/diff_refuses_other_inputs
         COMMAND sh -c "rm -rf ${OUT}/diff_c && ${LOGGED} ${OUT}/diff_c.txt $0 run -d host --engines host:exact --d-model 64 --layers 8 --batch 5 --seed 7 --save ${OUT}/diff_c && ${EXPECT} 2 'different models or inputs: input_sha256' -- $0 diff ${OUT}/diff_a ${OUT}/diff_c"
         ${CLP})
set_tests_properties(cli/diff_refuses_other_inputs PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" DEPENDS cli/diff_same LABELS cli)
# run's and compare's --csv (rows equal to their JSON, the golden header) and --plot.
add_test(NAME cli/job_csv_plot
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/job_tables.py ${CLP}
                 ${OUT}/job_tables ${CMAKE_CURRENT_SOURCE_DIR}/cli/job_header.csv)
set_tests_properties(cli/job_csv_plot PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS cli)
cli_status(diff_no_folder "${ENV_POCL}" 2 "no folder given" diff)
# --save records det (every run's hash the same) and rtrip (the weights' round trip, compare
# only) in index.json, and diff shows them: yes where recorded, n/a where not (run measures no
# round trip; an older folder without the keys).
add_test(NAME cli/diff_saved_checks
         COMMAND sh -c "d=${OUT}/diff_checks_saved; rm -rf $d && mkdir -p $d && ${LOGGED} $d/a.txt $0 compare -d 0 -d host --engines cl:own,host:exact --d-model 16 --layers 2 --batch 3 --runs 2 --warmup 0 --save $d/a && ${LOGGED} $d/b.txt $0 run -d host --engines host:exact --d-model 16 --layers 2 --batch 3 --runs 2 --warmup 0 --save $d/b && $0 diff $d/a $d/b > $d/diff.txt && cat $d/diff.txt && ${HAS} -E '^R. +A: 0:0 .* cl:own .* yes +yes$' $d/diff.txt && ${HAS} -E '^R. +B: host +host:exact .* yes +n/a$' $d/diff.txt && ${HAS} -E '^  checks +PASS ' $d/diff.txt && ${HAS} --no 'n/a, not recorded' $d/diff.txt && ${SYSTEM_PYTHON} -c 'import json,sys; p=sys.argv[1]; i=json.load(open(p)); [r.pop(k,None) for r in i[\"results\"] for k in (\"deterministic\",\"roundtrip\")]; json.dump(i,open(p,\"w\"))' $d/b/index.json && $0 diff $d/b $d/b > $d/old.txt && cat $d/old.txt && ${HAS} -E '^R1 +A: host +host:exact .* n/a +n/a$' $d/old.txt && ${HAS} -E '^R2 +B: host +host:exact .* n/a +n/a$' $d/old.txt && ${HAS} 'checks   n/a, not recorded in saved folders' $d/old.txt" ${CLP})
set_tests_properties(cli/diff_saved_checks PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS cli)
cli_status(diff_missing_folder "${ENV_POCL}" 2 "folder /nonexistent: cannot open: No such file"
           diff /nonexistent /nonexistent)
# diff compares two folders or more: one alone is refused (its usage says DIR DIR...).
cli_status(diff_one_folder "${ENV_POCL}" 2
           "^clparity diff: only one folder given \\(usage: clparity diff DIR DIR\\.\\.\\.\\)"
           diff /nonexistent)
# diff checks every file of each folder against its index.json first: x.npy, weights.npy,
# reference.npy and each result tampered with or missing, an empty results list (under
# --expect bitwise too), a NUL, a '/' or a duplicate among the file names: status 2 each.
add_test(NAME cli/diff_checks COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/diff_checks.py
                                      ${CLP} ${OUT}/diff_checks)
set_tests_properties(cli/diff_checks PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}" LABELS cli)

# --save is atomic as a whole (tests/cli/save_kill9.py): 20 saves of d=512 L=16 killed with
# SIGKILL at random moments leave the old folder or the new one, whole, and the next save
# clears what they left; the same with the two-rename fallback; and with the planted
# non-atomic save (save-nonatomic) the test must catch a mixed folder (it stops at the first,
# within 40 kills), or it fails.
add_test(NAME cli/save_kill9 COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/save_kill9.py
                                     ${CLP} ${OUT}/save_kill9)
add_test(NAME cli/save_kill9_fallback
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/save_kill9.py ${CLP}
                 ${OUT}/save_kill9_fallback --iterations 10 --seed 22 --hook save-no-exchange)
add_test(NAME cli/save_kill9_planted
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/save_kill9.py ${CLP}
                 ${OUT}/save_kill9_planted --planted --iterations 40)
set_tests_properties(cli/save_kill9 cli/save_kill9_fallback cli/save_kill9_planted PROPERTIES
                     ENVIRONMENT "${ENV_NONE};${ENV_CACHE}" TIMEOUT 400 LABELS cli)
# A full disk (a 200 KiB tmpfs; skipped where it cannot be mounted), a kill between the
# fallback's two renames, and folders that are not saves (tests/cli/save_faults.py).
foreach(case enospc between_renames not_a_save)
  add_test(NAME cli/save_${case}
           COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/save_faults.py ${CLP}
                   ${OUT}/save_${case} ${case})
  set_tests_properties(cli/save_${case} PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                       SKIP_RETURN_CODE 77 LABELS cli)
endforeach()
# Replace only what clparity wrote (issue 32): a folder or file of the user's is refused with
# status 2 and left as it was; a re-run onto its own outputs still replaces them; a save
# removes only its own leftovers (tests/cli/foreign_targets.py).
foreach(case save files rerun leftovers)
  add_test(NAME cli/foreign_${case}
           COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/foreign_targets.py ${CLP}
                   ${OUT}/foreign_${case} ${case})
  set_tests_properties(cli/foreign_${case} PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                       LABELS cli)
endforeach()
# A report that cannot be written (issue 32, "Lost output"): stdout on /dev/full for run,
# devices, diff, --help and --version (and compare whose --expect failed: 3 over 1), and
# run > out.txt on a file that takes no byte (the
# kernel's RLIMIT_FSIZE; the fault shim's fflush failing with ENOSPC) exit 3 with one line
# naming stdout (tests/cli/lost_output.py); before tools/main.c's exit check, all exited 0.
foreach(case full_run full_devices full_diff full_help full_version full_run_help full_check
        disk_fsize disk_shim)
  add_test(NAME cli/lost_output_${case}
           COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/lost_output.py ${CLP}
                   $<TARGET_FILE:clparity_faultshim> ${OUT}/lost_output_${case} ${case})
  set_tests_properties(cli/lost_output_${case} PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                       SKIP_RETURN_CODE 77 LABELS cli)
endforeach()
cli_status(compare_bad_expect "${ENV_POCL}" 2 "--expect: 'exactish' is not one of"
           compare --expect exactish)
cli_status(run_rejects_expect "${ENV_POCL}" 2 "unknown option '--expect' \\(it belongs to compare\\)"
           run --expect bitwise)

# The --json output validates against the documented schema.
add_test(NAME cli/compare_json_schema
         COMMAND sh -c "${LOGGED} ${OUT}/compare_json.txt $0 compare -d 0 -d host --d-model 16 --layers 2 --batch 3 --invariance --json ${OUT}/compare.json && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/validate_json.py ${CMAKE_SOURCE_DIR}/docs/compare.schema.json ${OUT}/compare.json && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_timing.py ${OUT}/compare.json ${OUT}/compare_json.txt adaptive:0.2"
         ${CLP})
set_tests_properties(cli/compare_json_schema PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS cli)
# Timing (tests/check_timing.py): adaptive runs meet --min-time's floor and at least 5 runs
# (forwards of 5 to 100 ms on one thread, CLPARITY_HOST_THREADS=1, whatever the cores: 5 runs
# stay below the 1 s floor and 200 go past it, so that the floor ends them, idle or loaded;
# d=256 on two threads took 1.7 ms on an AVX-512 EPYC, where 200 runs ended first);
# --runs N gives exactly N; the statistics are in order; the speed verdict's ratios, ± and
# "within noise" follow their rules, in the JSON and in the printed lines. --runs and
# --min-time together are refused.
add_test(NAME cli/timing_adaptive
         COMMAND sh -c "CLPARITY_HOST_THREADS=1 ${LOGGED} ${OUT}/timing_adaptive.txt $0 run -d host --engines host:openblas,host:exact --d-model 512 --layers 16 --batch 128 --no-reference --min-time 1 --json ${OUT}/timing_adaptive.json && cat ${OUT}/timing_adaptive.txt && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_timing.py ${OUT}/timing_adaptive.json ${OUT}/timing_adaptive.txt adaptive:1 --floor-decides"
         ${CLP})
add_test(NAME cli/timing_fixed
         COMMAND sh -c "${LOGGED} ${OUT}/timing_fixed.txt $0 compare -d host --engines host:openblas,host:exact --d-model 16 --layers 2 --runs 12 --json ${OUT}/timing_fixed.json && cat ${OUT}/timing_fixed.txt && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/validate_json.py ${CMAKE_SOURCE_DIR}/docs/compare.schema.json ${OUT}/timing_fixed.json && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_timing.py ${OUT}/timing_fixed.json ${OUT}/timing_fixed.txt fixed:12"
         ${CLP})
set_tests_properties(cli/timing_adaptive cli/timing_fixed PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS cli)
cli_status(runs_and_min_time "${ENV_POCL}" 2
           "^clparity run: --runs fixes the count and --min-time sets a floor" run -d host --runs 3 --min-time 0.5)
