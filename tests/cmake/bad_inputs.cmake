# ---- the bad-input matrix --------------------------------------------------------------------
# cli_bad(NAME ENV STATUS REGEX ARGS...): the exact exit status, the first stderr line, and no
# file left in build/test-out/bad/NAME (emptied first; @DIR@ in ARGS stands for it, so that a
# case can point --json and --save there). No sanitizer report may appear on stderr either.
set(SANITIZER_REPORT "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:")
function(cli_bad name env status regex)
  set(dir ${OUT}/bad/${name})
  list(TRANSFORM ARGN REPLACE "@DIR@" "${dir}")
  add_test(NAME cli/${name}
           COMMAND ${EXPECT} ${status} "${regex}" --no-files ${dir}
                   --stderr-lacks "${SANITIZER_REPORT}" -- ${CLP} ${ARGN})
  set_tests_properties(cli/${name} PROPERTIES ENVIRONMENT "${env};${ENV_CACHE}"
                       LABELS "cli;matrix")
endfunction()
set(TO_DIR --json @DIR@/out.json --save @DIR@/save)

# Options and selectors.
cli_bad(unknown_option "${ENV_POCL}" 2 "^clparity run: unknown option '--frobnicate'"
        run --frobnicate ${TO_DIR})
# A slip in an option's name gets the nearest option of that command (edit distance over the
# one option table); none when nothing is near, and only the command's own options.
cli_bad(did_you_mean "${ENV_POCL}" 2
        "^clparity run: unknown option '--batchs' \\(did you mean '--batch'\\?\\)$"
        run --batchs 3 ${TO_DIR})
cli_bad(did_you_mean_value "${ENV_POCL}" 2
        "^clparity sweep: unknown option '--vray' \\(did you mean '--vary'\\?\\)$"
        sweep --vray=batch ${TO_DIR})
cli_bad(did_you_mean_none "${ENV_POCL}" 2 "^clparity run: unknown option '--frobnicate'$"
        run --frobnicate ${TO_DIR})
cli_bad(did_you_mean_own_options "${ENV_POCL}" 2 "^clparity peak: unknown option '--batchs'$"
        peak --batchs 3)
cli_bad(nosuchdevice "${ENV_POCL}" 2 "^clparity run: .*selector 'nosuchdevice' matches no device"
        run -d nosuchdevice ${TO_DIR})
cli_bad(index_out_of_range "${ENV_POCL}" 2 "^clparity run: .*selector '0:7' matches no device"
        run -d 0:7 ${TO_DIR})
cli_bad(platform_out_of_range "${ENV_POCL}" 2 "^clparity run: .*selector '5' matches no device"
        run -d 5 ${TO_DIR})
cli_bad(env_selector "${ENV_POCL};CLPARITY_DEVICES=nosuch" 2
        "^clparity run: CLPARITY_DEVICES: device selector 'nosuch'" run ${TO_DIR})
# No OpenCL platform at all: devices and the host engines still work, with a warning that names
# the cause (OCL_ICD_VENDORS names a folder with no .icd file); an OpenCL selector or engine is
# a usage error that names it too. -d host asks for no OpenCL device, so it warns of nothing.
set(NO_ICD "no OpenCL platform found \\(OCL_ICD_VENDORS=${ICD_ROOT}/none: no \\.icd file there\\)")
cli_bad(no_platform_host_runs "${ENV_NONE}" 0 "^clparity: warning: ${NO_ICD}$"
        run --d-model 8 --layers 2 --runs 1)
cli_bad(no_platform_devices "${ENV_NONE}" 0 "^clparity devices: warning: ${NO_ICD}$" devices)
cli_bad(no_platform_opencl_engine "${ENV_NONE}" 2
        "^clparity run: --engines: cl:own applies to no selected device \\(it runs on OpenCL devices\\): ${NO_ICD}$"
        run --engines cl:own ${TO_DIR})
cli_bad(no_platform_gpu "${ENV_NONE}" 2
        "^clparity run: device selector 'gpu' matches no device: ${NO_ICD}$" run -d gpu ${TO_DIR})
cli_bad(no_platform_tune "${ENV_NONE}" 2
        "^clparity tune: no OpenCL device to tune among the selected ones .*: ${NO_ICD}$" tune)
add_test(NAME cli/no_platform_host_only_quiet
         COMMAND ${EXPECT} 0 "" --stderr-lacks "warning|OpenCL" -- ${CLP} run -d host --d-model 8
                 --layers 2 --runs 1 --warmup 0)
set_tests_properties(cli/no_platform_host_only_quiet PROPERTIES
                     ENVIRONMENT "${ENV_NONE};${ENV_CACHE}" LABELS "cli;matrix")
add_test(NAME cli/no_platform_devices_json
         COMMAND sh -c "$0 devices --json ${OUT}/no_platform_devices.json && ${SYSTEM_PYTHON} -c 'import json,sys; w=json.load(open(sys.argv[1]))[\"warning\"]; print(w); assert w.startswith(\"no OpenCL platform found (OCL_ICD_VENDORS=\") and w.endswith(\": no .icd file there)\"), w' ${OUT}/no_platform_devices.json"
         ${CLP})
set_tests_properties(cli/no_platform_devices_json PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                     LABELS "cli;matrix")
# An .icd file whose library cannot be loaded: the ICD loader skips it without a word; clparity
# names the file, the library and dlerror's text, alone (no platform) and beside PoCL's.
set(ENV_MISSING "OCL_ICD_VENDORS=${ICD_ROOT}/missing")
set(MISSING_LIB "${ICD_ROOT}/missing/missing\\.icd names libclparity_no_such_icd\\.so, which cannot be loaded: libclparity_no_such_icd\\.so: cannot open shared object file")
cli_bad(env_icd_missing_devices "${ENV_MISSING}" 0
        "^clparity devices: warning: no OpenCL platform found \\(${MISSING_LIB}" devices)
cli_bad(env_icd_missing_engine "${ENV_MISSING}" 2
        "^clparity run: --engines: cl:own applies to no selected device \\(it runs on OpenCL devices\\): no OpenCL platform found \\(${MISSING_LIB}"
        run --engines cl:own ${TO_DIR})
add_test(NAME cli/env_icd_missing_beside_pocl
         COMMAND sh -c "$0 devices > ${OUT}/env_icd_missing_beside_pocl.txt 2>&1; s=$?; cat ${OUT}/env_icd_missing_beside_pocl.txt; [ $s = 0 ] && ${HAS} '^clparity devices: warning: ${ICD_ROOT}/pocl_missing/missing.icd names libclparity_no_such_icd.so, which cannot be loaded' ${OUT}/env_icd_missing_beside_pocl.txt && ${HAS} '^Platform #0: Portable Computing Language' ${OUT}/env_icd_missing_beside_pocl.txt"
         ${CLP})
set_tests_properties(cli/env_icd_missing_beside_pocl PROPERTIES
                     ENVIRONMENT "OCL_ICD_VENDORS=${ICD_ROOT}/pocl_missing;${ENV_CACHE}"
                     LABELS "cli;opencl")
# PoCL exposes no device when it cannot create its cache folder (XDG_CACHE_HOME/pocl/kcache):
# XDG_CACHE_HOME a plain file, or a folder below one (what a read-only folder does to a user
# who is not root; CI runs as root, whom a read-only folder does not stop). These tests set
# their own XDG_CACHE_HOME, so ENV_CACHE is not theirs.
set(POCL_NO_DEV "platform #0 \\(Portable Computing Language\\) reports no device: PoCL cannot create its cache folder")
set(XDG_FIX "is not a folder. set POCL_CACHE_DIR to a writable folder, or fix XDG_CACHE_HOME")
function(cli_env name env status regex)
  add_test(NAME cli/${name} COMMAND ${EXPECT} ${status} "${regex}" --stderr-lacks
                                    "${SANITIZER_REPORT}" -- ${CLP} ${ARGN})
  set_tests_properties(cli/${name} PROPERTIES ENVIRONMENT "${env}" LABELS "cli;opencl")
endfunction()
cli_env(env_pocl_xdg_file_engine "${ENV_POCL};XDG_CACHE_HOME=${PLAIN_FILE}" 2
        "^clparity run: --engines: cl:own applies to no selected device \\(it runs on OpenCL devices\\): ${POCL_NO_DEV} ${PLAIN_FILE}/pocl/kcache \\(from XDG_CACHE_HOME\\): ${PLAIN_FILE} ${XDG_FIX}$"
        run --engines cl:own --d-model 8 --layers 1 --runs 1 --warmup 0)
cli_env(env_pocl_xdg_below_file_devices "${ENV_POCL};XDG_CACHE_HOME=${PLAIN_FILE}/sub" 0
        "^clparity devices: warning: ${POCL_NO_DEV} ${PLAIN_FILE}/sub/pocl/kcache \\(from XDG_CACHE_HOME\\): ${PLAIN_FILE} ${XDG_FIX}$"
        devices)
cli_env(env_pocl_xdg_below_file_selector "${ENV_POCL};XDG_CACHE_HOME=${PLAIN_FILE}/sub" 2
        "^clparity run: device selector 'cpu' matches no device: ${POCL_NO_DEV} ${PLAIN_FILE}/sub/pocl/kcache"
        run -d cpu --d-model 8 --layers 1 --runs 1 --warmup 0)
cli_env(env_pocl_cache_dir_below_file "${ENV_POCL};XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-cache;POCL_CACHE_DIR=${PLAIN_FILE}/pocl" 0
        "^clparity devices: warning: ${POCL_NO_DEV} ${PLAIN_FILE}/pocl \\(from POCL_CACHE_DIR\\): ${PLAIN_FILE} is not a folder. set POCL_CACHE_DIR to a writable folder$"
        devices)
# The fix the message gives: POCL_CACHE_DIR elsewhere brings the device back. clparity's own
# program cache (XDG_CACHE_HOME/clparity) still cannot be made: a note on the build line, not
# an error, and no warning on stderr.
add_test(NAME cli/env_own_cache_unwritable
         COMMAND sh -c "$0 run --engines cl:own,host:exact --d-model 8 --layers 1 --runs 1 --warmup 0 > ${OUT}/env_own_cache.txt 2> ${OUT}/env_own_cache.err; s=$?; cat ${OUT}/env_own_cache.txt ${OUT}/env_own_cache.err; [ $s = 0 ] && ${HAS} 'cl:own on 0:0 .*not stored: cannot create ${PLAIN_FILE}/sub' ${OUT}/env_own_cache.txt && ${HAS} --no . ${OUT}/env_own_cache.err"
         ${CLP})
set_tests_properties(cli/env_own_cache_unwritable PROPERTIES
                     ENVIRONMENT "${ENV_POCL};XDG_CACHE_HOME=${PLAIN_FILE}/sub;POCL_CACHE_DIR=${CMAKE_BINARY_DIR}/test-cache/pocl;CLPARITY_OWN_PROBE=off"
                     LABELS "cli;opencl")
# ...and what they print: the host row, and a row per host engine.
add_test(NAME cli/no_platform_output
         COMMAND sh -c "$0 devices > ${OUT}/no_platform_devices.txt; cat ${OUT}/no_platform_devices.txt; ${HAS} '^ `-- Device host: OpenBLAS ' ${OUT}/no_platform_devices.txt && ${HAS} --no '^Platform' ${OUT}/no_platform_devices.txt && ${LOGGED} ${OUT}/no_platform_run.txt $0 run --d-model 8 --layers 2 --runs 1 && cat ${OUT}/no_platform_run.txt && for e in host:openblas host:exact host:f64; do ${HAS} \"^host  *$e \" ${OUT}/no_platform_run.txt || exit 1; done"
         ${CLP})
set_tests_properties(cli/no_platform_output PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                     LABELS "cli;matrix")
# Sizes: zero, negative, non-numeric, overflowing.
cli_bad(d_model_zero "${ENV_POCL}" 2 "^clparity run: --d-model: 0 is out of range"
        run --d-model 0 ${TO_DIR})
cli_bad(runs_zero "${ENV_POCL}" 2 "^clparity run: --runs: 0 is out of range" run --runs 0
        ${TO_DIR})
cli_bad(layers_negative "${ENV_POCL}" 2 "^clparity run: --layers: -3 is out of range"
        run --layers -3 ${TO_DIR})
cli_bad(warmup_negative "${ENV_POCL}" 2 "^clparity run: --warmup: -1 is out of range"
        run --warmup -1 ${TO_DIR})
cli_bad(seed_negative "${ENV_POCL}" 2 "^clparity run: --seed: '-1' must not be negative"
        run --seed -1 ${TO_DIR})
cli_bad(batch_abc "${ENV_POCL}" 2 "^clparity run: --batch: 'abc' is not an integer"
        run --batch abc ${TO_DIR})
cli_bad(d_model_fraction "${ENV_POCL}" 2 "^clparity run: --d-model: '1.5' is not an integer"
        run --d-model 1.5 ${TO_DIR})
cli_bad(layers_empty "${ENV_POCL}" 2 "^clparity run: --layers: '' is not an integer"
        run --layers= ${TO_DIR})
cli_bad(init_scale_nan "${ENV_POCL}" 2 "^clparity run: --init-scale: nan is out of range"
        run --init-scale nan ${TO_DIR})
cli_bad(batch_overflow "${ENV_POCL}" 2
        "^clparity run: --batch: 99999999999999999999 is out of range"
        run --batch 99999999999999999999 ${TO_DIR})
cli_bad(d_model_overflow "${ENV_POCL}" 2 "^clparity run: --d-model: 65537 is out of range"
        run --d-model 65537 ${TO_DIR})
cli_bad(seed_overflow "${ENV_POCL}" 2
        "^clparity run: --seed: 18446744073709551616 is out of range"
        run --seed 18446744073709551616 ${TO_DIR})
# Every size at its largest: the byte counts (2^58 and more) must not wrap around.
cli_bad(sizes_at_limits "${ENV_POCL}" 2 "^clparity run: model too large for host memory"
        run -d host --d-model 65536 --layers 4096 --batch 16777216 ${TO_DIR})
cli_bad(missing_value "${ENV_POCL}" 2 "^clparity run: option --layers needs a value" run
        ${TO_DIR} --layers)
cli_bad(unknown_engine "${ENV_POCL}" 2 "^clparity run: --engines: unknown engine 'cl:nope'"
        run --engines cl:nope ${TO_DIR})
cli_bad(engine_no_device "${ENV_POCL}" 2 "^clparity run: --engines: cl:own applies to no selected device"
        run -d host --engines cl:own ${TO_DIR})
# A model too large, refused before any work starts (generating these weights would take
# minutes and more memory than the machine has, so the time limit shows that none began).
# PoCL sizes its global memory (and a quarter of it for one allocation) from the host's free
# memory: POCL_MEMORY_LIMIT=4 (GiB) makes the two PoCL cases name the same limit on any host.
cli_bad(too_large_for_device "${ENV_POCL};POCL_MEMORY_LIMIT=4" 2
        "^clparity run: model too large for 0:0 .*CL_DEVICE_MAX_MEM_ALLOC_SIZE"
        run -d 0:0 --engines cl:own --d-model 65536 --layers 64 ${TO_DIR})
cli_bad(too_large_for_device_global "${ENV_POCL};POCL_MEMORY_LIMIT=4" 2
        "^clparity run: model too large for 0:0 .*CL_DEVICE_GLOBAL_MEM_SIZE"
        run -d 0:0 --engines cl:own --d-model 8192 --layers 1024 ${TO_DIR})
cli_bad(too_large_for_oclgrind_global "${ENV_OCLGRIND}" 2
        "^clparity run: model too large for 0:0 Oclgrind.*CL_DEVICE_GLOBAL_MEM_SIZE"
        run -d 0:0 --engines cl:own --d-model 1024 --layers 64 --allow-slow ${TO_DIR})
cli_bad(too_large_for_host "${ENV_POCL}" 2 "^clparity run: model too large for host memory"
        run -d host --engines host:exact --d-model 65536 --layers 4096 ${TO_DIR})
# cl:own's PoCL buffers are host memory: counted with the model and staging copies, a model
# that fits PoCL's global memory but not MemAvailable is refused up front (sized at run time).
add_test(NAME cli/too_large_for_host_pocl
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/host_mem_pocl.py ${CLP})
set_tests_properties(cli/too_large_for_host_pocl PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS cli)
set_tests_properties(cli/too_large_for_device cli/too_large_for_device_global
                     cli/too_large_for_oclgrind_global cli/too_large_for_host
                     cli/sizes_at_limits PROPERTIES TIMEOUT 60)
cli_bad(simulator_guard "${ENV_OCLGRIND}" 2 "^clparity run: 0:0 Oclgrind .*is a simulator: .*--allow-slow"
        run -d oclgrind --engines cl:own --layers 256 ${TO_DIR})
# Outputs that cannot be written: status 2 (a bad value), before any work.
cli_bad(json_onto_directory "${ENV_POCL}" 2 "^clparity run: --json: .* is a directory"
        run -d host --d-model 4 --layers 1 --json ${OUT} --save @DIR@/save)
cli_bad(save_not_writable "${ENV_POCL}" 2
        "^clparity run: --save: cannot create .*/README.md/sub: Not a directory"
        run -d host --d-model 4 --layers 1 --json @DIR@/out.json
        --save ${CMAKE_SOURCE_DIR}/README.md/sub)
cli_bad(json_not_writable "${ENV_POCL}" 2
        "^clparity run: --json: cannot create .*/README.md/out.json: Not a directory"
        run -d host --d-model 4 --layers 1 --json ${CMAKE_SOURCE_DIR}/README.md/out.json
        --save @DIR@/save)

# A kernel that fails to build: the error names the build, the compiler's log follows, and
# the --json file holds the result as an error entry (its cause, no numbers).
add_test(NAME cli/kernel_build_failure
         COMMAND sh -c "mkdir -p ${OUT}/broken-kernels && echo '__kernel void cp_linear(__global float *x) { syntax error here }' > ${OUT}/broken-kernels/block.cl && rm -rf ${OUT}/bad/kernel_build_failure && mkdir -p ${OUT}/bad/kernel_build_failure && ${EXPECT} 3 '^clparity run: cl:own on 0:0 .*clBuildProgram failed for block.cl' -- $0 run -d 0:0 --engines cl:own --d-model 4 --layers 1 --json ${OUT}/bad/kernel_build_failure/out.json && ${SYSTEM_PYTHON} -c 'import json,sys; r=json.load(open(sys.argv[1]))[\"results\"]; assert len(r)==1 and \"clBuildProgram failed for block.cl\" in r[0][\"error\"] and \"hash\" not in r[0], r' ${OUT}/bad/kernel_build_failure/out.json && { $0 run -d 0:0 --engines cl:own --d-model 4 --layers 1 > ${OUT}/kernel_build_failure.txt 2>&1; sed -n '/^--- build log ---$/,/^--- end of build log ---$/p' ${OUT}/kernel_build_failure.txt | grep -q 'error' || { echo 'FAIL: no build log with an error in the output:'; cat ${OUT}/kernel_build_failure.txt; exit 1; }; }"
         ${CLP})
set_tests_properties(cli/kernel_build_failure PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_KERNEL_DIR=${OUT}/broken-kernels;CLPARITY_OWN_KERNEL=naive"
                     LABELS "cli;matrix")

# A kernel file that includes itself (CLPARITY_KERNEL_DIR): the expansion of includes stops at
# its depth (runtime/engine/program.c, 4) with a message that names the file, never a loop.
add_test(NAME cli/kernel_include_loop
         COMMAND sh -c "mkdir -p ${OUT}/loop-kernels && echo '#include \"cr_f32.cl\"' > ${OUT}/loop-kernels/cr_f32.cl && ${EXPECT} 3 'cannot expand kernel includes: cr_f32.cl is more than 4 includes deep' -- $0 run -d 0:0 --engines cl:cr --d-model 8 --layers 1"
                 ${CLP})
set_tests_properties(cli/kernel_include_loop PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_KERNEL_DIR=${OUT}/loop-kernels;CLPARITY_CR_TUNE=method=f32"
                     LABELS cli)

# Issue 36's newcomer items: "did you mean" for every list of valid words (one nearest-word
# code, runtime/base/format.c's cp_nearest), exact option names only, and a selector that
# matches nothing in one line that says what there is and the fix.
cli_bad(did_you_mean_command "${ENV_POCL}" 2
        "^clparity: unknown command 'compre' \\(did you mean 'compare'\\?\\); the commands are devices, run, compare,"
        compre)
cli_bad(did_you_mean_subcommand "${ENV_POCL}" 2
        "^clparity cache: unknown subcommand 'lst' \\(did you mean 'list'\\?\\) \\(list or clear\\)$"
        cache lst)
cli_bad(did_you_mean_engine "${ENV_POCL}" 2
        "^clparity run: --engines: unknown engine 'cl:onw' \\(did you mean 'cl:own'\\?\\) \\(known: cl:own,"
        run --engines cl:onw ${TO_DIR})
cli_bad(did_you_mean_selector "${ENV_POCL}" 2
        "^clparity run: device selector 'gpuu' matches no device \\(did you mean 'gpu'\\?\\): OpenCL shows"
        run -d gpuu ${TO_DIR})
# (an environment variable's word: tools/env_table.c's check, before any work)
cli_bad(did_you_mean_own_kernel "${ENV_POCL};CLPARITY_OWN_KERNEL=stram" 2
        "^clparity run: .*CLPARITY_OWN_KERNEL: 'stram' is not naive, .* \\(did you mean 'stream'\\?\\)$"
        run -d 0:0 --engines cl:own --d-model 8 --layers 1 ${TO_DIR})
cli_bad(did_you_mean_tune_setting "${ENV_POCL};CLPARITY_CR_TUNE=pth=gemv" 2
        "^clparity run: .*unknown parameter 'pth' \\(did you mean 'path'\\?\\) \\(path, wg,"
        run -d 0:0 --engines cl:cr --d-model 8 --layers 1 ${TO_DIR})
foreach(case "run --lay 4 layers" "compare --engine cl:own engines" "devices --jso @DIR@/d.json json"
        "diff --expe torch expect" "cache list --jso @DIR@/c.json json" "tune --dry dry-run"
        "peak --remeas remeasure" "sweep --var batch vary" "train --optim sgd optimizer"
        "ulp --func sqrt functions" "run --lay=4 layers")
  separate_arguments(a UNIX_COMMAND "${case}")
  list(POP_BACK a full)
  list(GET a 0 cmd)
  if(cmd STREQUAL "cache")
    list(GET a 2 given)
    set(cmd "cache list")
  else()
    list(GET a 1 given)
  endif()
  string(REGEX REPLACE "[ =-]" "_" tag "${given}")
  string(REGEX REPLACE "=.*" "" given "${given}")
  list(GET a 0 first)
  cli_bad(abbrev_${first}${tag} "${ENV_POCL}" 2
          "^clparity ${cmd}: unknown option '${given}' \\(did you mean '--${full}'\\? options are not abbreviated\\)$"
          ${a})
endforeach()
# One line, not the device list: no GPU on the CI machine's PoCL.
add_test(NAME cli/selector_no_match_one_line
         COMMAND ${EXPECT} 2
                 "^clparity run: device selector 'gpu' matches no device: no GPU: OpenCL shows 1 device \\(0:0 .*, CPU\\) and the host; use -d 0:0, -d cpu or -d host \\('clparity devices' lists them\\)$"
                 --stderr-lines 1 -- ${CLP} run -d gpu --d-model 8 --layers 1)
set_tests_properties(cli/selector_no_match_one_line PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS "cli;matrix")
# The printed label as a selector, and devices -d (clinfo -d's one device).
add_test(NAME cli/selector_label
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/selector_label.sh ${CLP} ${SYSTEM_PYTHON})
set_tests_properties(cli/selector_label PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS cli)
# No user-facing string names an issue number (the scanner's self-test first).
add_test(NAME cli/no_issue_numbers
         COMMAND sh -c "$0 $1 --selftest && $0 $1 $2" ${SYSTEM_PYTHON}
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/no_issue_numbers.py ${CMAKE_SOURCE_DIR})
set_tests_properties(cli/no_issue_numbers PROPERTIES LABELS cli)
