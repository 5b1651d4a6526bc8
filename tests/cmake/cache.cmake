# ---- clparity tune ---------------------------------------------------------------------------
add_test(NAME cli/tune COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/tune.sh ${CLP} ${SYSTEM_PYTHON}
                               ${OUT}/tune)
set_tests_properties(cli/tune PROPERTIES ENVIRONMENT "${ENV_POCL}" LABELS "cli;opencl")
cli_status(tune_simulator "${ENV_OCLGRIND}" 2 "no OpenCL device to tune" tune --quick)
cli_status(tune_env_set "${ENV_POCL};CLPARITY_OWN_TUNE=rc=16" 2
           "CLPARITY_OWN_TUNE or CLPARITY_OWN_KERNEL is set" tune --quick)
cli_status(tune_cr_env_set "${ENV_POCL};CLPARITY_CR_TUNE=vw=8" 2
           "CLPARITY_CR_TUNE is set: unset it to tune" tune --quick)
cli_status(tune_bad_option "${ENV_POCL}" 2 "unknown option '--fast'" tune --fast)
cli_status(run_bad_own_tune "${ENV_POCL};CLPARITY_OWN_TUNE=vw=5" 2
           "CLPARITY_OWN_TUNE: tuning 'vw=5': vw must be one of 4, 8, 16" run -d 0 --engines cl:own
           --d-model 64 --layers 2 --batch 64)
cli_status(run_bad_own_tune_nv "${ENV_POCL};CLPARITY_OWN_TUNE=nv=3" 2
           "CLPARITY_OWN_TUNE: tuning 'nv=3': nv must be one of 1, 2, 4" run -d 0 --engines cl:own
           --d-model 64 --layers 2 --batch 64)
cli_status(run_bad_own_tune_name "${ENV_POCL};CLPARITY_OWN_TUNE=xx=1" 2
           "unknown parameter 'xx'" run -d 0 --engines cl:own --d-model 64 --layers 2 --batch 64)

# ---- the program-binary cache ---------------------------------------------------------------
# Each scenario of tests/cli/cache.sh in its own folder under build/test-out; PoCL's cache stays
# in build/test-cache/pocl.
foreach(scenario hit bad unwritable off cap listclear)
  add_test(NAME cli/cache_${scenario}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/cache.sh ${CLP} ${SYSTEM_PYTHON}
                   ${OUT}/cache-${scenario} ${scenario})
  set_tests_properties(cli/cache_${scenario} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE}" LABELS "cli;opencl")
endforeach()
cli_status(cache_help "${ENV_POCL}" 0 "" cache --help)
cli_status(cache_version "${ENV_POCL}" 0 "" cache --version)
cli_status(cache_list_help "${ENV_POCL}" 0 "" cache list --help)
cli_status(cache_clear_version "${ENV_POCL}" 0 "" cache clear --version)
cli_status(cache_unknown_subcommand "${ENV_POCL}" 2
           "^clparity cache: unknown subcommand 'frobnicate'" cache frobnicate)
cli_status(cache_no_subcommand "${ENV_POCL}" 2 "^clparity cache: no subcommand given" cache)
# cache list: every file of the folder (program binaries, peak-*.json, tune.json, leftovers of
# interrupted writes), each line within 100 columns; the details in --json.
add_test(NAME cli/cache_list_all_files
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/cache_list.py ${CLP}
                 ${OUT}/cache_list_all_files)
set_tests_properties(cli/cache_list_all_files PROPERTIES ENVIRONMENT "${ENV_POCL}" LABELS cli)
cli_status(cache_list_bad_option "${ENV_POCL}" 2 "^clparity cache list: unknown option '--nope'"
           cache list --nope)
cli_status(cache_clear_json "${ENV_POCL}" 2 "^clparity cache clear: unknown option '--json'"
           cache clear --json x)

# ---- parallel runs on one program cache -------------------------------------------------------
# 8 processes start at once on an empty cache folder: all succeed with one output hash, and the
# cache ends consistent. .ci/run's parallel job repeats it 10 times.
add_test(NAME cli/parallel_runs
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/parallel.sh ${CLP} ${SYSTEM_PYTHON}
                 ${OUT}/parallel 8)
set_tests_properties(cli/parallel_runs PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS "cli;opencl;parallel" TIMEOUT 300)

# A first run says why it is slow (issue 36): on a cold cache, on a terminal, one line that it
# builds and checks the kernels and caches them; none warm, with --quiet, or to a pipe or file.
add_test(NAME cli/cold_notice
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/cold_notice.sh ${CLP} ${OUT}/cold_notice)
set_tests_properties(cli/cold_notice PROPERTIES ENVIRONMENT "${ENV_POCL}" LABELS "cli;opencl"
                     TIMEOUT 300)
