# ---- correctly rounded / and sqrt in float, and clparity ulp (issue 24) ---------------------
# ulp_test(NAME ENV MODE SEL SAMPLES): tests/cli/ulp.sh (MODE table: every function's row,
# the table against the JSON and docs/ulp.schema.json; float: train's float way, every result
# bit-identical to the host's correctly rounded / and sqrtf).
function(ulp_test name env mode sel samples)
  add_test(NAME ${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/ulp.sh ${CLP} ${SYSTEM_PYTHON}
                   ${CMAKE_SOURCE_DIR} ${OUT}/${name} ${mode} ${sel} ${samples})
  set(labels "cli;ulp")
  if(sel STREQUAL "oclgrind")
    set(labels "cli;ulp;oclgrind") # its interpreter under ASan takes too long (.ci/run asan)
  endif()
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env};${ENV_CACHE}" LABELS "${labels}")
endfunction()
# train's float way (clkernels/divsqrt.cl) over clparity ulp's sample, 2^20 inputs of / and of
# sqrt (every special value and pair first: zeros, subnormals, powers of two, FLT_MAX,
# infinities, NaN; then results near rounding midpoints, subnormal results on and near the
# midpoints of subnormals, results about FLT_MAX): bit for bit against the host. With the
# hook divsqrt-skew every first guess is up to 3 ULP off (a device at OpenCL's bound), and
# the correction must still give the bits; divsqrt-no-correction leaves the correction out,
# and the check must fail (status 1, naming the row).
ulp_test(train/divsqrt_float_pocl "${ENV_POCL}" float pocl 1048576)
ulp_test(train/divsqrt_float_skew_pocl "${ENV_POCL};CLPARITY_TEST_HOOK=divsqrt-skew" float pocl
         1048576)
add_test(NAME train/divsqrt_float_planted_pocl
         COMMAND ${EXPECT} 1
                 "^ulp: 0:0 .*: train_sqrt \\(fma-correction\\) is promised correctly rounded, and [0-9]+ of 1048576 results differ"
                 -- ${CLP} ulp -d pocl --functions train_sqrt,train_divide)
set_tests_properties(train/divsqrt_float_planted_pocl PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TEST_HOOK=divsqrt-no-correction"
                     LABELS "cli;ulp")
# Oclgrind interprets: 2^20 quotients and as many square roots took 36 s here (--allow-slow).
ulp_test(train/divsqrt_float_oclgrind "${ENV_OCLGRIND}" float oclgrind 1048576)
# Adam with the float way forced on PoCL is tests/cli/train_optim.sh's
# train/optim_float_divsqrt_pocl (above); a planted error in it fails its div/sqrt probe and
# the run (status 1).
add_test(NAME train/adam_float_planted
         COMMAND ${EXPECT} 1
                 "^train: cl:own on .*: its training kernels FAILED their probe \\(div/sqrt probe \\(float \\(fma correction\\)\\): [0-9]+ of 16384 quotients"
                 -- ${CLP} train -d pocl,host --engines cl:own,host:exact --optimizer adam
                 --steps 5 --d-model 16 --layers 2 --batch 5 --target random)
set_tests_properties(train/adam_float_planted PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_TRAIN_DIVSQRT=float;CLPARITY_TEST_HOOK=divsqrt-no-correction"
                     LABELS cli)
# CLPARITY_TRAIN_DIVSQRT: another value, and a way the device cannot take, are status 2.
cli_status(train_divsqrt_env_bad "${ENV_POCL};CLPARITY_TRAIN_DIVSQRT=dubble" 2
           "^clparity train: CLPARITY_TRAIN_DIVSQRT: 'dubble' is not device, double or float \\(did you mean 'double'\\?\\)$"
           train --optimizer adam)
cli_status(train_divsqrt_env_device "${ENV_OCLGRIND};CLPARITY_TRAIN_DIVSQRT=device" 2
           "^clparity train: cl:own on 0:0 Oclgrind.*: CLPARITY_TRAIN_DIVSQRT=device: this device does not report CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT"
           train -d oclgrind --optimizer adam --steps 1 --d-model 4 --layers 1)
# cl:relaxed trains (fast math, native_divide and native_sqrt): no claim on its bits.
add_test(NAME train/relaxed_pocl
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/train_relaxed.sh ${CLP} ${SYSTEM_PYTHON}
                 ${CMAKE_SOURCE_DIR} ${OUT}/train_relaxed pocl)
set_tests_properties(train/relaxed_pocl PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS cli)
if(ENV_RUSTICL)
  ulp_test(train/divsqrt_float_rusticl "${ENV_RUSTICL}" float rusticl 1048576)
  ulp_test(cli/ulp_rusticl "${ENV_RUSTICL}" table rusticl 65536)
  cli_status(train_divsqrt_env_double "${ENV_RUSTICL};CLPARITY_TRAIN_DIVSQRT=double" 2
             "^clparity train: cl:own on 0:0 llvmpipe.*: CLPARITY_TRAIN_DIVSQRT=double: this device has no double precision"
             train -d rusticl --optimizer adam --steps 1 --d-model 4 --layers 1)
endif()
# clparity ulp: every row on PoCL (which reports correctly rounded / and sqrt: those rows must
# be exact) and on Oclgrind (n/a there); the hook ulp-perturb moves one result of the
# correctly rounded sqrt one ULP, which the check must catch (status 1); the refusals.
ulp_test(cli/ulp_pocl "${ENV_POCL}" table pocl 65536)
ulp_test(cli/ulp_oclgrind "${ENV_OCLGRIND}" table oclgrind 2048)
cli_status(ulp_planted "${ENV_POCL};CLPARITY_TEST_HOOK=ulp-perturb" 1
           "^ulp: 0:0 .*: sqrt \\(correctly-rounded\\) is promised correctly rounded, and 1 of 4096 results differ"
           ulp -d pocl --functions sqrt --samples 4096)
cli_status(ulp_help "${ENV_POCL}" 0 "" ulp --help)
cli_status(ulp_version "${ENV_POCL}" 0 "" ulp --version)
cli_status(ulp_bad_function "${ENV_POCL}" 2
           "^clparity ulp: --functions: 'sqrtt' is not one of sqrt, divide, native_sqrt, .* \\(did you mean 'sqrt'\\?\\)$"
           ulp --functions sqrtt)
cli_status(ulp_empty_function "${ENV_POCL}" 2
           "^clparity ulp: --functions: 'sqrt,' has an empty item$" ulp --functions sqrt,)
cli_status(ulp_samples0 "${ENV_POCL}" 2 "^clparity ulp: --samples: 0 is out of range"
           ulp --samples 0)
cli_status(ulp_host_only "${ENV_POCL}" 2 "^clparity ulp: no OpenCL device selected" ulp -d host)
cli_status(ulp_nosuchdevice "${ENV_POCL}" 2 "selector 'nosuch' matches no device" ulp -d nosuch)
cli_status(ulp_simulator "${ENV_OCLGRIND}" 2
           "^clparity ulp: 0:0 Oclgrind Simulator is a simulator: .*--allow-slow" ulp -d oclgrind)
cli_status(ulp_extra_argument "${ENV_POCL}" 2 "^clparity ulp: unexpected argument 'now'"
           ulp now)

# One hand-worked SGD step per case, exact in float, on every engine and device; three steps
# of each optimizer against tests/optim_ref.py's values.
cp_unit(train)
target_include_directories(test_train PRIVATE ${CLPARITY_RUNTIME_DIRS})
add_test(NAME runtime/train COMMAND test_train)
set_tests_properties(runtime/train PROPERTIES ENVIRONMENT "${ENV_BOTH};${ENV_CACHE}")
# A run stopped by a non-finite loss leaves no file behind (--save, --json, --csv).
add_test(NAME cli/train_nonfinite_nofiles
         COMMAND ${EXPECT} 1 "^clparity train: step [0-9]+: the loss of" --no-files
                 ${OUT}/train_nf -- ${CLP} train -d pocl,host --steps 50 --d-model 8 --layers 8
                 --init-scale 100 --lr 100 --target random --save ${OUT}/train_nf/save
                 --json ${OUT}/train_nf/r.json --csv ${OUT}/train_nf/r.csv)
set_tests_properties(cli/train_nonfinite_nofiles PROPERTIES
                     ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS cli)
