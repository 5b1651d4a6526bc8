# ---- peak and sweep (issue 4) ---------------------------------------------------------------
# peak: each scenario of tests/cli/peak.sh with its own cache folder, so that it measures.
foreach(scenario cache)
  add_test(NAME cli/peak_${scenario}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/peak.sh ${CLP} ${SYSTEM_PYTHON}
                   ${OUT}/peak-${scenario} ${scenario} ${CMAKE_SOURCE_DIR}/docs/peak.schema.json)
  set_tests_properties(cli/peak_${scenario} PROPERTIES ENVIRONMENT "${ENV_POCL}"
                       LABELS "cli;peak;opencl")
endforeach()
add_test(NAME cli/peak_simulator
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/peak.sh ${CLP} ${SYSTEM_PYTHON}
                 ${OUT}/peak-simulator simulator ${CMAKE_SOURCE_DIR}/docs/peak.schema.json)
set_tests_properties(cli/peak_simulator PROPERTIES ENVIRONMENT "${ENV_OCLGRIND}"
                     LABELS "cli;peak;opencl;oclgrind")
cli_status(peak_help "${ENV_POCL}" 0 "" peak --help)
cli_status(peak_version "${ENV_POCL}" 0 "" peak --version)
# peak shows and caches its spread (an older entry without one is measured again), and a % of
# peak above 100 carries '!', a note, pct_peak_suspect in JSON and CSV, and only then.
add_test(NAME cli/peak_spread_and_flag
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/peak_spread.py ${CLP}
                 ${OUT}/peak_spread ${CMAKE_SOURCE_DIR}/docs/sweep.schema.json
                 ${CMAKE_SOURCE_DIR}/docs/peak.schema.json)
set_tests_properties(cli/peak_spread_and_flag PROPERTIES ENVIRONMENT "${ENV_NONE}" LABELS "cli;peak")
cli_status(peak_bad_option "${ENV_POCL}" 2 "^clparity peak: unknown option '--fast'" peak --fast)
cli_status(peak_nosuchdevice "${ENV_POCL}" 2 "selector 'nosuch' matches no device"
           peak -d nosuch)
cli_status(peak_extra_argument "${ENV_POCL}" 2 "^clparity peak: unexpected argument 'now'"
           peak now)

# sweep: every --vary mode with --quick on PoCL and host (CSV header against the golden file,
# JSON against docs/sweep.schema.json, every field checked), a refused point on Oclgrind, SIGINT,
# --plot without gnuplot. The peak is measured once into ENV_CACHE's folder and then cached.
foreach(scenario batch width depth params sigint sigint_rounds consecutive noplot error)
  add_test(NAME cli/sweep_${scenario}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/sweep.sh ${CLP} ${SYSTEM_PYTHON}
                   ${CMAKE_SOURCE_DIR} ${OUT}/sweep-${scenario} ${scenario})
  set_tests_properties(cli/sweep_${scenario} PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                       LABELS "cli;sweep;opencl")
endforeach()
add_test(NAME cli/sweep_refused
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/sweep.sh ${CLP} ${SYSTEM_PYTHON}
                 ${CMAKE_SOURCE_DIR} ${OUT}/sweep-refused refused)
set_tests_properties(cli/sweep_refused PROPERTIES ENVIRONMENT "${ENV_OCLGRIND};${ENV_CACHE}"
                     LABELS "cli;sweep;opencl;oclgrind")
cli_status(sweep_help "${ENV_POCL}" 0 "" sweep --help)
cli_status(sweep_version "${ENV_POCL}" 0 "" sweep --version)
cli_status(sweep_no_vary "${ENV_POCL}" 2 "^clparity sweep: --vary is required" sweep --quick)
cli_status(sweep_bad_vary "${ENV_POCL}" 2
           "^clparity sweep: --vary: 'sideways' is not one of batch, width, depth, params"
           sweep --vary sideways)
cli_status(sweep_varied_fixed "${ENV_POCL}" 2
           "^clparity sweep: --batch: --vary batch sets it from the grid"
           sweep --vary batch --batch 4)
cli_status(sweep_params_layers "${ENV_POCL}" 2
           "^clparity sweep: --layers: --vary params sets it from the grid"
           sweep --vary params --layers 4)
cli_status(sweep_grid_empty "${ENV_POCL}" 2 "^clparity sweep: --grid: '64,,128' has an empty value"
           sweep --vary width --grid 64,,128)
cli_status(sweep_grid_zero "${ENV_POCL}" 2 "^clparity sweep: --grid: 0 is out of range"
           sweep --vary batch --grid 1,0)
cli_status(sweep_grid_word "${ENV_POCL}" 2 "^clparity sweep: --grid: 'big' is not an integer"
           sweep --vary depth --grid 8,big)
cli_status(sweep_params_no_layer "${ENV_POCL}" 2
           "^clparity sweep: --grid: d = 65536 leaves no whole layer"
           sweep --vary params --grid 65536)
cli_status(sweep_params_elsewhere "${ENV_POCL}" 2
           "^clparity sweep: --params: only with --vary params" sweep --vary batch --params 100)
cli_status(sweep_plot_gif "${ENV_POCL}" 2 "^clparity sweep: --plot: 'x.gif' must end in .png or .svg"
           sweep --vary batch --plot x.gif)
cli_status(sweep_unknown_option "${ENV_POCL}" 2 "^clparity sweep: unknown option '--fast'"
           sweep --vary batch --fast)
cli_status(sweep_missing_value "${ENV_POCL}" 2 "^clparity sweep: option --grid needs a value"
           sweep --vary batch --grid)
cli_status(sweep_nosuchdevice "${ENV_POCL}" 2 "selector 'nosuch' matches no device"
           sweep --vary batch -d nosuch)
cli_status(sweep_unknown_engine "${ENV_POCL}" 2 "unknown engine 'cl:nope'"
           sweep --vary batch --engines cl:nope)

# The peak API itself: host and PoCL, the cache's hits, bad files and off, a simulator.
cp_unit(peak)
add_test(NAME runtime/peak COMMAND test_peak ${CMAKE_BINARY_DIR}/test-out/peak-unit)
set_tests_properties(runtime/peak PROPERTIES ENVIRONMENT "${ENV_POCL}" LABELS "opencl;peak")

# cl_forward flushes the queue every 256 layers: the per-layer kernels across that boundary
# still give host:exact's bits.
foreach(kernel naive vec)
  add_test(NAME exact/flush_${kernel}_l600
           COMMAND ${CLP} compare -d 0 -d host --expect bitwise --engines cl:own,host:exact
                   --d-model 8 --layers 600 --batch 3 --init-scale 0.5 --runs 2 --warmup 0)
  set_tests_properties(exact/flush_${kernel}_l600 PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_OWN_KERNEL=${kernel}"
                       LABELS "exact;opencl")
endforeach()

# sweep's crossovers on made-up times (tools/xover.c).
add_executable(test_xover test_xover.c ${CMAKE_SOURCE_DIR}/tools/xover.c)
target_include_directories(test_xover PRIVATE ${CMAKE_SOURCE_DIR}/tools)
target_link_libraries(test_xover PRIVATE clparity_rt PkgConfig::CMOCKA m)
add_test(NAME tools/xover COMMAND test_xover)
set_tests_properties(tools/xover PROPERTIES LABELS sweep)

# What the reports say (issue 36, tests/cli/report_wording.py): sweep --rounds' one default,
# the crossover summary on made-up times (test hook sweep-times:FILE), no ratio where there is
# no verdict, short times in ms with significant digits, and diff's doc against its output.
foreach(scenario rounds xover verdict units diff)
  add_test(NAME cli/report_${scenario}
           COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/report_wording.py ${CLP}
                   ${CMAKE_SOURCE_DIR} ${OUT}/report-${scenario} ${scenario})
  set_tests_properties(cli/report_${scenario} PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                       LABELS "cli;report;opencl")
endforeach()
