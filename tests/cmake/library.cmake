# ---- the library (issue 14) ---------------------------------------------------------------
# The C example of docs/LIBRARY.md, built against libclparity.so, prints what `clparity compare`
# prints at the same settings (its verdicts, checked line by line); then the same from an
# installation: pkg-config and find_package(clparity) builds of it, on PoCL and host.
add_test(NAME example/compare
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/example.sh ${CLP}
                 $<TARGET_FILE:compare_example> ${OUT}/example)
set_tests_properties(example/compare PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                     LABELS "cli;library")
# Not in the sanitizer builds: a program or a Python built without the sanitizers cannot load
# an instrumented libclparity.so (the sanitizer's runtime must come first).
if(NOT CLPARITY_SANITIZE AND NOT CLPARITY_FUZZ)
  add_test(NAME example/install
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/install.sh ${CMAKE_BINARY_DIR}
                   ${CMAKE_SOURCE_DIR} ${OUT}/install)
  set_tests_properties(example/install PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                       LABELS "cli;library" FIXTURES_SETUP installed)
  # The Python module from that installation, under the system Python with numpy.
  add_test(NAME python/installed
           COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_python.py ${OUT}/install/prefix)
  set_tests_properties(python/installed PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                       LABELS "cli;library" FIXTURES_REQUIRED installed)
endif()

# Every example output of README.md and docs/*.md against the current binary, modulo times
# (tools/doc_examples.py: a stale block fails, naming it, with the difference), the
# include/recorded blocks against their files, and every relative link. Not in the sanitizer
# builds, for the reason above (its Python example loads libclparity.so).
if(NOT CLPARITY_SANITIZE AND NOT CLPARITY_FUZZ)
  add_test(NAME docs/examples
           COMMAND ${SYSTEM_PYTHON} ${CMAKE_SOURCE_DIR}/tools/doc_examples.py --check
                   --build ${CMAKE_BINARY_DIR})
  set_tests_properties(docs/examples PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
                       LABELS "docs;opencl")
endif()

# Golden outputs: every command's --help (generated from tools/opts.c's table), and a diff
# report that is the same on every machine (host:exact from the portable generator).
add_test(NAME cli/golden_help
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden_help.sh ${CLP}
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden)
set_tests_properties(cli/golden_help PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}" LABELS cli)
add_test(NAME cli/golden_diff
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden_diff.sh ${CLP}
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden/diff_host_exact.txt ${OUT}/golden_diff)
set_tests_properties(cli/golden_diff PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}" LABELS cli)

# compare --mpi and train --mpi (tests/mpi/check_mpi.py): mpirun with 3 ranks on this
# machine, each given its own OpenCL platforms by tests/mpi/rank.sh (PoCL, Oclgrind, none).
# Without -DCLPARITY_MPI=ON, --mpi must say how to build it.
if(CLPARITY_MPI)
  foreach(case bitwise planted failed version killed train train_planted)
    add_test(NAME mpi/${case}
             COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/check_mpi.py ${case} ${CLP}
                     ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rank.sh ${ICD_ROOT}/pocl
                     ${ICD_ROOT}/oclgrind ${OUT}/mpi_${case} ${MPIEXEC_EXECUTABLE})
    set_tests_properties(mpi/${case} PROPERTIES ENVIRONMENT "${ENV_CACHE}" LABELS "mpi;cli"
                         TIMEOUT 150)
  endforeach()
else()
  add_test(NAME cli/mpi_not_built
           COMMAND sh -c "f=${OUT}/mpi_not_built; $0 compare --mpi -d host > $f.1 2>&1; c=$?; $0 train --mpi -d host > $f.2 2>&1; t=$?; [ $c = 2 ] && [ $t = 2 ] || { echo \"FAIL: compare --mpi exited $c, train --mpi $t, expected 2 each\"; cat $f.1 $f.2; exit 1; }; ${HAS} 'built without MPI; configure it with -DCLPARITY_MPI=ON' $f.1"
                   ${CLP})
  set_tests_properties(cli/mpi_not_built PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                       LABELS cli)
endif()
# The progress line (issue 22): on a terminal (under util-linux's `script`) for run, compare,
# train, tune, peak, sweep and rank 0 of compare --mpi; never on a pipe or a file, nor with
# --quiet. The planted case forces it onto pipes (test hook) and must see every command caught.
if(CLPARITY_MPI)
  set(PROGRESS_MPI ${MPIEXEC_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rank.sh ${ICD_ROOT}/pocl)
else()
  set(PROGRESS_MPI "")
endif()
foreach(mode normal planted)
  add_test(NAME cli/progress_${mode}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/progress.sh ${CLP} ${OUT}/progress_${mode}
                   ${mode} ${PROGRESS_MPI})
  set_tests_properties(cli/progress_${mode} PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                       LABELS "cli;opencl" TIMEOUT 600)
endforeach()

# `pip install .` from a fresh clone (issue 36): pyproject.toml + setup.py build libclparity.so
# with CMake and install it beside the module; the example runs from the venv. Not in the
# sanitizer builds (as python/installed).
if(NOT CLPARITY_SANITIZE AND NOT CLPARITY_FUZZ)
  add_test(NAME python/pip_install
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/pip_install.sh ${CMAKE_SOURCE_DIR}
                   ${OUT}/pip_install ${SYSTEM_PYTHON})
  set_tests_properties(python/pip_install PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE}"
                       LABELS "cli;library" SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
