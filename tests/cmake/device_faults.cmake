# ---- device faults ---------------------------------------------------------------------------
# CLPARITY_TEST_HOOK=fail-enqueue:N / fail-alloc:N make the Nth kernel enqueue or buffer
# creation fail. The failed result ends with its named error and every other result is kept
# (issue 21, point 5): status 3, the first stderr line names the engine, the device, the call
# and the CL error; the table has its row 'error: <cause>' and the others' numbers; the --json
# file holds its error entry beside the others, the --save folder their files and index.json's
# "errors" (tests/faults/kept.py); and (checked by the hook itself in cl_destroy) every object
# of the context was released; the asan job runs these under LeakSanitizer too.
# cli_fault(name hook kernel status regex failed kept command...): failed is the engine that
# fails, kept a comma list of those that must still be there ("" for none).
function(cli_fault name hook kernel status regex failed kept)
  set(dir ${OUT}/bad/fault_${name})
  list(TRANSFORM ARGN REPLACE "@DIR@" "${dir}")
  set(keep)
  string(REPLACE "," ";" kept_list "${kept}")
  foreach(k IN LISTS kept_list)
    list(APPEND keep --kept ${k})
  endforeach()
  add_test(NAME fault/${name}
           COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/faults/kept.py --status ${status}
                   --regex "${regex}" --lacks "remain before its release|${SANITIZER_REPORT}"
                   --dir ${dir} --failed ${failed} ${keep} -- ${CLP} ${ARGN})
  set_tests_properties(fault/${name} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=${hook};CLPARITY_OWN_KERNEL=${kernel}"
                       LABELS "cli;fault;opencl")
endfunction()
set(FAULT_RUN run -d 0 -d host --engines cl:own,host:exact --d-model 16 --layers 4 --batch 3
    --runs 2 --warmup 1 ${TO_DIR})
# The 6th enqueue: layer 2 of the second forward.
cli_fault(enqueue_naive fail-enqueue:6 naive 3
          "^clparity run: cl:own on 0:0 .*: clEnqueueNDRangeKernel\\(cp_linear\\) failed: CL_OUT_OF_RESOURCES \\(-5\\)$"
          cl:own host:exact
          ${FAULT_RUN})
cli_fault(enqueue_small fail-enqueue:2 small 3
          "^clparity run: cl:own on 0:0 .*: clEnqueueNDRangeKernel\\(cp_model_small\\) failed: CL_OUT_OF_RESOURCES \\(-5\\)$"
          cl:own host:exact
          ${FAULT_RUN})
cli_fault(enqueue_pipe fail-enqueue:3 pipe 3
          "^clparity run: cl:own on 0:0 .*: clEnqueueNDRangeKernel\\(cp_model_small_pipe\\) failed: CL_OUT_OF_RESOURCES \\(-5\\)$"
          cl:own host:exact
          ${FAULT_RUN})
cli_fault(enqueue_reg fail-enqueue:2 reg 3
          "^clparity run: cl:own on 0:0 .*: clEnqueueNDRangeKernel\\(cp_model_small_rot\\) failed: CL_OUT_OF_RESOURCES \\(-5\\)$"
          cl:own host:exact
          ${FAULT_RUN})
cli_fault(enqueue_vec fail-enqueue:7 vec 3
          "^clparity run: cl:own on 0:0 .*: clEnqueueNDRangeKernel\\(cp_gemm_vec\\) failed: CL_OUT_OF_RESOURCES \\(-5\\)$"
          cl:own host:exact
          ${FAULT_RUN})
cli_fault(enqueue_tiled fail-enqueue:5 tiled 3
          "^clparity run: cl:own on 0:0 .*: clEnqueueNDRangeKernel\\(cp_gemm_tiled\\) failed: CL_OUT_OF_RESOURCES \\(-5\\)$"
          cl:own host:exact
          ${FAULT_RUN})
cli_fault(enqueue_clblast fail-enqueue:6 "" 3
          "^clparity run: cl:clblast on 0:0 .*: clEnqueueNDRangeKernel\\(cp_epilogue\\) failed: CL_OUT_OF_RESOURCES \\(-5\\)$"
          cl:clblast ""
          run -d 0 --engines cl:clblast --d-model 16 --layers 4 --batch 3 --runs 2 --warmup 1
          ${TO_DIR})
cli_fault(alloc_weights fail-alloc:1 naive 3
          "^clparity run: cl:own on 0:0 .*: clCreateBuffer\\(weights\\) failed: CL_MEM_OBJECT_ALLOCATION_FAILURE \\(-4\\)$"
          cl:own host:exact
          ${FAULT_RUN})
cli_fault(alloc_activations fail-alloc:3 naive 3
          "^clparity run: cl:own on 0:0 .*: clCreateBuffer\\(activations\\) failed: CL_MEM_OBJECT_ALLOCATION_FAILURE \\(-4\\)$"
          cl:own host:exact
          ${FAULT_RUN})
cli_fault(alloc_transposed fail-alloc:2 small 3
          "^clparity run: cl:own on 0:0 .*: clCreateBuffer\\(transposed weights\\) failed: CL_MEM_OBJECT_ALLOCATION_FAILURE \\(-4\\)$"
          cl:own host:exact
          ${FAULT_RUN})
# After every forward, in compare's round trip: the 4th buffer (weights, 2 activations, copy).
cli_fault(alloc_roundtrip fail-alloc:4 naive 3
          "^clparity compare: cl:own on 0:0 .*: clCreateBuffer\\(round-trip copy\\) failed: CL_MEM_OBJECT_ALLOCATION_FAILURE \\(-4\\)$"
          cl:own host:exact
          compare -d 0 -d host --engines cl:own,host:exact --d-model 16 --layers 4 --batch 3
          --runs 2 --warmup 1 ${TO_DIR})
# Three results, the middle one failing (cl:clblast's 6th enqueue, after cl:own's 12): cl:own
# and host:exact are computed, compared and printed as usual, R2 is a row 'error: <cause>', every
# verdict FAILs naming it, --json holds both kinds (valid against compare.schema.json), the
# status is 3, over --expect's 1, and diff of the --save folder shows R2's error row and fails
# every verdict over it.
cli_fault(compare_keeps_others fail-enqueue:18 naive 3
          "^clparity compare: cl:clblast on 0:0 .*: clEnqueueNDRangeKernel\\(cp_epilogue\\) failed: CL_OUT_OF_RESOURCES \\(-5\\)$"
          cl:clblast cl:own,host:exact
          compare -d 0 -d host --engines cl:own,cl:clblast,host:exact --d-model 16 --layers 4
          --batch 3 --runs 2 --warmup 1 --expect bitwise ${TO_DIR})
set_property(TEST fault/compare_keeps_others APPEND PROPERTY ENVIRONMENT
             "KEPT_SCHEMA=${CMAKE_SOURCE_DIR}/docs/compare.schema.json" "KEPT_DIFF=1")
# The hooks' own check can fail: with CLPARITY_TEST_HOOK_SKIP_RELEASE an activation buffer is
# not released, and the run must say so.
add_test(NAME fault/leak_check_can_fail
         COMMAND sh -c "$0 run -d 0 --engines cl:own --d-model 16 --layers 4 --runs 1 --warmup 0 > ${OUT}/leak_check.txt 2>&1; ${HAS} 'references to the OpenCL context remain before its release' ${OUT}/leak_check.txt"
         ${CLP})
set_tests_properties(fault/leak_check_can_fail PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=skip-release;CLPARITY_OWN_KERNEL=naive"
                     LABELS "cli;fault;opencl")

# devices: the PoCL device and the host row; with both ICDs, clinfo's order and shape.
add_test(NAME cli/devices_pocl COMMAND sh -c "${LOGGED} ${OUT}/devices_pocl.txt $0 devices && cat ${OUT}/devices_pocl.txt && ${HAS} '^Platform #0: Portable Computing Language' ${OUT}/devices_pocl.txt && ${HAS} '^ `-- Device host: OpenBLAS .*, core ' ${OUT}/devices_pocl.txt" ${CLP})
set_tests_properties(cli/devices_pocl PROPERTIES ENVIRONMENT "${ENV_POCL}" LABELS cli)
add_test(NAME cli/devices_both COMMAND sh -c "$0 devices | grep -E '^(Platform| `-- Device)' > ${OUT}/devices_both.txt && clinfo -l > ${OUT}/clinfo_both.txt && cat ${OUT}/devices_both.txt && grep -v 'Device host' ${OUT}/devices_both.txt | sed 's/  (simulator.*//' | grep -v '^Host' | diff - ${OUT}/clinfo_both.txt" ${CLP})
set_tests_properties(cli/devices_both PROPERTIES ENVIRONMENT "${ENV_BOTH}" LABELS cli)
add_test(NAME cli/devices_json COMMAND sh -c "${LOGGED} ${OUT}/devices_json.txt $0 devices --json ${OUT}/devices.json && ${SYSTEM_PYTHON} -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"schema\"]==1 and \"provenance\" in d and d[\"warning\"] is None; k=[x[\"kind\"] for x in d[\"devices\"]]; assert k.count(\"host\")==1 and \"opencl\" in k, k' ${OUT}/devices.json" ${CLP})
set_tests_properties(cli/devices_json PROPERTIES ENVIRONMENT "${ENV_POCL}" LABELS cli)

# run -d all --save across PoCL, Oclgrind and host, checked by an independent numpy forward.
add_test(NAME cli/run_save_all
         COMMAND sh -c "rm -rf ${OUT}/save_all && $0 run -d all --d-model 64 --layers 8 --batch 4 --runs 2 --warmup 1 --save ${OUT}/save_all && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_saved.py ${OUT}/save_all Oclgrind pthread"
         ${CLP})
set_tests_properties(cli/run_save_all PROPERTIES ENVIRONMENT "${ENV_BOTH};${ENV_CACHE}"
                     LABELS "cli;oclgrind;heavy")
add_test(NAME cli/run_json
         COMMAND sh -c "${LOGGED} ${OUT}/run_json.txt $0 run -d host --d-model 16 --layers 4 --batch 3 --json ${OUT}/run_json.json && ${SYSTEM_PYTHON} -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d[\"results\"]; assert d[\"schema\"]==1 and [x[\"engine\"] for x in r]==[\"host:openblas\",\"host:exact\",\"host:f64\",\"host:cr\"], r; assert all(x[\"deterministic\"] for x in r); assert r[1][\"engine\"]==\"host:exact\" and r[1][\"metrics\"][\"max_ulp\"] < 64, r[1]; print(\"ok\")' ${OUT}/run_json.json"
         ${CLP})
set_tests_properties(cli/run_json PROPERTIES ENVIRONMENT "${ENV_POCL}" LABELS cli)
# --no-reference computes no distances, but the NaN/Inf column still counts: an overflowed
# model (init-scale 8: every output NaN) must not read 0/0, and a finite one reads 0/0.
add_test(NAME cli/run_no_reference_nonfinite
         COMMAND sh -c "$0 run -d host --engines host:exact --no-reference --init-scale 8 --runs 1 --warmup 0 | grep -E '^host +host:exact .* n/a +n/a +128/0 *$' && $0 run -d host --engines host:exact --no-reference --runs 1 --warmup 0 | grep -E '^host +host:exact .* n/a +n/a +0/0 *$'"
         ${CLP})
set_tests_properties(cli/run_no_reference_nonfinite PROPERTIES LABELS cli)
# Output paths that are not regular files (/dev/null, a FIFO) are refused before any work
# (status 2; '-' is stdout), and left as they were: a FIFO without a reader would block the
# write at the end, after all the work, and an atomic rename over /dev/null would replace it
# with a file when run as root.
add_test(NAME cli/output_to_special_files
         COMMAND sh -c "f=${OUT}/special.fifo; rm -f $f; mkfifo $f && ${EXPECT} 2 '^clparity run: --json: .*special.fifo is not a regular file \\(a FIFO\\)' -- $0 run -d host --engines host:exact --d-model 8 --layers 2 --runs 1 --warmup 0 --json $f && test -p $f || { echo \"FAIL: $f is no longer a FIFO\"; exit 1; }; ${EXPECT} 2 '^clparity run: --out: /dev/null is not a regular file \\(a character device\\)' -- $0 run -d host --engines host:exact --d-model 8 --layers 2 --runs 1 --warmup 0 --out /dev/null && test -c /dev/null || { echo 'FAIL: /dev/null is no longer a character device'; exit 1; }; ! ls /dev/null.tmp.* 2>/dev/null || { echo 'FAIL: temporary files left beside /dev/null'; exit 1; }"
         ${CLP})
set_tests_properties(cli/output_to_special_files PROPERTIES LABELS cli)
