# ---- the probe of cl:own's kernel paths (issue 20) --------------------------------------------
# Each path, forced, with one bit planted in its kernel (test hook kernel-bit:<path>, the probe's
# build included): the probe must reject it, name it with the reason on the builds: line, and
# the run must take the next path and still give host:exact's bits. The naive kernel is the last
# resort: planted, no path passes, the result is marked NOT EXACT and --expect bitwise fails.
# The planted verdict is kept in the program cache (keyed by the hook): a second run reads it.
foreach(path small tiled vec pipe reg cpu cpu1 stream cpug)
  add_test(NAME exact/probe_planted_${path}
           COMMAND sh -c "for run in 1 2; do $0 compare -d 0 -d host --expect bitwise --engines cl:own,host:exact --d-model 67 --layers 3 --batch 5 --runs 1 --warmup 0 > ${OUT}/probe_${path}_$run.txt 2>&1; rc=$?; cat ${OUT}/probe_${path}_$run.txt; [ $rc = 0 ] || { echo \"run $run: exit $rc, expected 0 (the next path passes)\"; exit 1; }; grep -q '^ *rejected ${path}: probe (widths .*outputs differ from host:exact' ${OUT}/probe_${path}_$run.txt || { echo \"run $run: no line 'rejected ${path}: probe ...'\"; exit 1; }; grep -q 'kernel path ${path},' ${OUT}/probe_${path}_$run.txt && { echo \"run $run: the rejected path ${path} was used\"; exit 1; }; done; grep -q '^ *rejected ${path}: .*(cached)' ${OUT}/probe_${path}_2.txt || { echo 'run 2: the rejection was not read from the program cache'; exit 1; }"
           ${CLP})
  set_tests_properties(exact/probe_planted_${path} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_OWN_KERNEL=${path};CLPARITY_TEST_HOOK=kernel-bit:${path}"
                       LABELS "exact;opencl")
endforeach()
foreach(path naive)
  add_test(NAME exact/probe_planted_${path}
           COMMAND sh -c "$0 compare -d 0 -d host --expect bitwise --engines cl:own,host:exact --d-model 67 --layers 3 --batch 5 --runs 1 --warmup 0 > ${OUT}/probe_${path}.txt 2>&1; rc=$?; cat ${OUT}/probe_${path}.txt; [ $rc = 0 ] && grep -q '^ *rejected naive: probe' ${OUT}/probe_${path}.txt && ! grep -q 'kernel path naive,' ${OUT}/probe_${path}.txt"
           ${CLP})
  set_tests_properties(exact/probe_planted_${path} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_OWN_KERNEL=naive;CLPARITY_TEST_HOOK=kernel-bit:naive"
                       LABELS "exact;opencl")
endforeach()
# Every path planted (kernel-bit:all): none passes, the first choice runs marked NOT EXACT, and
# --expect bitwise fails on that mark as well as on the bits.
add_test(NAME exact/probe_planted_all
         COMMAND sh -c "$0 compare -d 0 -d host --expect bitwise --engines cl:own,host:exact --d-model 67 --layers 3 --batch 5 --runs 1 --warmup 0 > ${OUT}/probe_all.txt 2>&1; rc=$?; cat ${OUT}/probe_all.txt; [ $rc = 1 ] || { echo \"exit $rc, expected 1\"; exit 1; }; grep -q 'NOT EXACT: no path passed its probe' ${OUT}/probe_all.txt && grep -q '^ *rejected naive: probe' ${OUT}/probe_all.txt && grep -q 'no kernel path passed its probe on this device' ${OUT}/probe_all.txt"
         ${CLP})
set_tests_properties(exact/probe_planted_all PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=kernel-bit:all"
                     LABELS "exact;opencl")
# The JSON carries the path and the rejections; a clean device rejects nothing.
add_test(NAME exact/probe_json
         COMMAND sh -c "$0 compare -d 0 -d host --expect bitwise --engines cl:own,host:exact --d-model 67 --layers 3 --batch 5 --runs 1 --warmup 0 --json ${OUT}/probe.json > /dev/null && ${SYSTEM_PYTHON} -c \"import json,sys; r=[x for x in json.load(open(sys.argv[1]))['results'] if x['engine']=='cl:own'][0]['own_path']; print(r); sys.exit(0 if r['used'] and r['exact'] is True and r['rejected']==[] else 1)\" ${OUT}/probe.json"
         ${CLP})
set_tests_properties(exact/probe_json PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS "exact;opencl")

# Reproducers of bugs in OpenCL implementations (tests/vendor/README.md).
add_subdirectory(vendor)
# A device whose loops stop after 65535 iterations per work-item (test hook loop-limit makes
# PoCL's loop check report what llvmpipe's does): every path but naive is rejected with that
# reason, and naive gives host:exact's bits.
add_test(NAME exact/probe_loop_limit
         COMMAND sh -c "$0 compare -d 0 -d host --expect bitwise --engines cl:own,host:exact --d-model 67 --layers 3 --batch 5 --runs 1 --warmup 0 > ${OUT}/probe_loop_limit.txt 2>&1; rc=$?; cat ${OUT}/probe_loop_limit.txt; [ $rc = 0 ] && grep -q 'kernel path naive, passed its probe' ${OUT}/probe_loop_limit.txt && grep -q \"rejected cpu1: the device stops a work-item's loops after 65535 iterations\" ${OUT}/probe_loop_limit.txt"
         ${CLP})
set_tests_properties(exact/probe_loop_limit PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=loop-limit"
                     LABELS "exact;opencl")
# cl:relaxed's probe holds it to a bound (1e-3 (1 + |r|)): a kernel with one output off by half
# (test hook relaxed-wrong) fails it on every path, the path cl:own takes (cpu1 on 2 cores, cpug
# on 4 or more) first and naive last, and the builds: line says so.
add_test(NAME exact/probe_relaxed_wrong
         COMMAND sh -c "$0 run -d 0 --engines cl:relaxed --d-model 67 --layers 3 --batch 5 --runs 1 --warmup 0 > ${OUT}/probe_relaxed.txt 2>&1; cat ${OUT}/probe_relaxed.txt; grep -Eq 'cl:relaxed on .*kernel path (cpug|cpu1), FAILED its probe' ${OUT}/probe_relaxed.txt && grep -Eq 'rejected (cpug|cpu1): probe: [0-9]* of 635 outputs off by more than 1e-3' ${OUT}/probe_relaxed.txt && grep -q 'rejected naive: probe: [0-9]* of 635 outputs off by more than 1e-3' ${OUT}/probe_relaxed.txt && grep -Eq '^ran: *cl:relaxed on .*: path (cpug|cpu1) [(]relaxed[)]$' ${OUT}/probe_relaxed.txt"
         ${CLP})
set_tests_properties(exact/probe_relaxed_wrong PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=relaxed-wrong"
                     LABELS "exact;opencl")
# The training kernels' probe (three SGD steps of a small model against host:exact, bit for
# bit): one weight planted one ULP off (test hook kernel-bit:train) fails it; train says so on
# stderr and exits 1.
add_test(NAME exact/probe_train_planted
         COMMAND ${EXPECT} 1 "its training kernels FAILED their probe \\(training probe \\(3 SGD steps\\): 1 of"
                 -- ${CLP} train -d 0 -d host --steps 3 --d-model 37 --layers 3 --batch 5)
set_tests_properties(exact/probe_train_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=kernel-bit:train"
                     LABELS "exact;opencl")

# train's own kernel enqueues and buffers go through the hooks fail-enqueue:N and fail-alloc:N
# too (issue 33): the Nth fails as a device out of resources would, named, status 3 (the
# probes' calls count nothing). A trainer that bypassed the hooks would end with status 0.
add_test(NAME fault/train_enqueue
         COMMAND ${EXPECT} 3 "cl:own on .*, step 1: clEnqueueNDRangeKernel\\(tr_dx\\) failed: CL_OUT_OF_RESOURCES"
                 -- ${CLP} train -d 0 -d host --steps 2 --d-model 8 --layers 2)
add_test(NAME fault/train_alloc
         COMMAND ${EXPECT} 3 "cl:own on .*: clCreateBuffer\\(activations\\) failed: CL_MEM_OBJECT_ALLOCATION_FAILURE"
                 -- ${CLP} train -d 0 -d host --steps 2 --d-model 8 --layers 2)
# (the 13th launch of the simple kernels: the warm-up step before step 1 counts 8 at this
# shape; the 5th fails in the warm-up step, which is named so)
set_tests_properties(fault/train_enqueue PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TRAIN_KERNELS=simple;CLPARITY_TEST_HOOK=fail-enqueue:13"
                     LABELS "cli;fault;opencl")
add_test(NAME fault/train_warm_enqueue
         COMMAND ${EXPECT} 3 "cl:own on .*, warm-up step: clEnqueueNDRangeKernel\\(tr_dx\\) failed: CL_OUT_OF_RESOURCES"
                 -- ${CLP} train -d 0 -d host --steps 2 --d-model 8 --layers 2)
set_tests_properties(fault/train_warm_enqueue PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TRAIN_KERNELS=simple;CLPARITY_TEST_HOOK=fail-enqueue:5"
                     LABELS "cli;fault;opencl")
# The cpu kernels (PoCL's default way): the warm-up step launches 3 (Wᵀ, the rows, the
# weights), step 1 rebuilds Wᵀ (the warm-up reset the weights), then its 6th launch fails.
add_test(NAME fault/train_cpu_enqueue
         COMMAND ${EXPECT} 3 "cl:own on .*, step 1: clEnqueueNDRangeKernel\\(tr_cpu_grad\\) failed: CL_OUT_OF_RESOURCES"
                 -- ${CLP} train -d 0 -d host --steps 2 --d-model 8 --layers 2)
set_tests_properties(fault/train_cpu_enqueue PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=fail-enqueue:6"
                     LABELS "cli;fault;opencl")
set_tests_properties(fault/train_alloc PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=fail-alloc:2"
                     LABELS "cli;fault;opencl")

# CLPARITY_OWN_PROBE=off takes the first choice unchecked and says so on the builds: line.
add_test(NAME cli/probe_off
         COMMAND sh -c "$0 run -d 0 --engines cl:own --d-model 67 --layers 3 --batch 5 --runs 1 --warmup 0 > ${OUT}/probe_off.txt 2>&1; cat ${OUT}/probe_off.txt; grep -q 'kernel path [a-z0-9]*, NOT PROBED (CLPARITY_OWN_PROBE=off)' ${OUT}/probe_off.txt"
         ${CLP})
set_tests_properties(cli/probe_off PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_OWN_PROBE=off" LABELS cli)
