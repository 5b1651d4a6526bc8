# ---- models from files: safetensors, npy inputs and labels ------------------------------------
# The libFuzzer harnesses (CLPARITY_FUZZ=ON, clang): .ci/run runs each for a bounded time with
# a fixed seed, starting from the seed corpus in tests/fuzz/corpus_<parser>.
if(CLPARITY_FUZZ)
  foreach(parser safetensors npy)
    add_executable(fuzz_${parser} fuzz/fuzz_${parser}.c)
    target_link_libraries(fuzz_${parser} PRIVATE clparity_rt)
    target_link_options(fuzz_${parser} PRIVATE -fsanitize=fuzzer)
  endforeach()
endif()
set(FIXTURES ${CMAKE_CURRENT_SOURCE_DIR}/fixtures)
# The PyTorch fixtures (tests/fixtures/make_fixtures.py, made on the GPU machine) on PoCL,
# Oclgrind and host: every engine within torch's float32 tolerance of PyTorch's float64 output,
# cl:own bit for bit equal to host:exact, the digits accuracy of every engine equal to
# PyTorch's on CPU, and the accuracy and agreement report printed.
add_test(NAME fixture/dumb
         COMMAND sh -c "rm -rf ${OUT}/fx_dumb && ${LOGGED} ${OUT}/fx_dumb.txt $0 compare -d all --model ${FIXTURES}/dumb.safetensors --input ${FIXTURES}/dumb_x.npy --runs 1 --warmup 0 --save ${OUT}/fx_dumb --json ${OUT}/fx_dumb.json && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_fixture.py ${OUT}/fx_dumb ${OUT}/fx_dumb.json ${FIXTURES} dumb Oclgrind pthread host && ${HAS} 'architecture from the tensor names (the post' ${OUT}/fx_dumb.txt"
         ${CLP})
set_tests_properties(fixture/dumb PROPERTIES ENVIRONMENT "${ENV_BOTH};${ENV_CACHE}"
                     LABELS "cli;oclgrind")
add_test(NAME fixture/digits
         COMMAND sh -c "rm -rf ${OUT}/fx_digits && ${LOGGED} ${OUT}/fx_digits.txt $0 compare -d all --model ${FIXTURES}/digits.safetensors --input ${FIXTURES}/digits_x.npy --labels ${FIXTURES}/digits_y.npy --runs 1 --warmup 0 --save ${OUT}/fx_digits --json ${OUT}/fx_digits.json && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_fixture.py ${OUT}/fx_digits ${OUT}/fx_digits.json ${FIXTURES} digits Oclgrind pthread host && ${HAS} '^accuracy (450 labelled inputs' ${OUT}/fx_digits.txt && ${HAS} '^prediction agreement' ${OUT}/fx_digits.txt && ${HAS} '^flips: 0 of 450' ${OUT}/fx_digits.txt && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/validate_json.py ${CMAKE_SOURCE_DIR}/docs/compare.schema.json ${OUT}/fx_digits.json"
         ${CLP})
set_tests_properties(fixture/digits PROPERTIES ENVIRONMENT "${ENV_BOTH};${ENV_CACHE}"
                     LABELS "cli;oclgrind")
# int32 labels work as int64 do; run prints the same report.
add_test(NAME cli/labels_int32_run
         COMMAND sh -c "${SYSTEM_PYTHON} -c 'import numpy as np,sys; np.save(sys.argv[1], np.load(sys.argv[2]).astype(np.int32))' ${OUT}/digits_y32.npy ${FIXTURES}/digits_y.npy && $0 run -d host --model ${FIXTURES}/digits.safetensors --input ${FIXTURES}/digits_x.npy --labels ${OUT}/digits_y32.npy --runs 1 --warmup 0 | tee ${OUT}/labels32.txt && ${HAS} -E '^  R2 +host +host:exact +0.973333  \\(438/450\\)' ${OUT}/labels32.txt"
         ${CLP})
set_tests_properties(cli/labels_int32_run PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                     LABELS cli)
# Every malformed file and conflicting option: status 2 and a first stderr line that names it.
add_test(NAME cli/bad_inputs
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_inputs.py ${CLP}
                 ${OUT}/bad_inputs)
set_tests_properties(cli/bad_inputs PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}" LABELS cli)
# Guarded paths (issue 21): an output that is an input, another output or inside the --save
# folder; FIFOs, sockets and devices as inputs or outputs; --engines with empty items or
# duplicates; train's non-finite loss printed "nan". Each refused before any work.
# One rule for bad paths and variables (issue 32): every path option of every command and
# garbage in every CLPARITY_* variable of runtime/base/env.c's table, refused with status 2 before
# any work; docs/COMMANDS.md's list of variables is the table's.
add_test(NAME cli/bad_paths
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_paths.py ${CLP}
                 ${OUT}/bad_paths)
set_tests_properties(cli/bad_paths PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}" LABELS cli)
# tune's store (XDG_CACHE_HOME/clparity/tune.json) below a plain file: refused before tuning
# (it used to tune for minutes, then fail with status 3). PoCL keeps its own cache elsewhere.
add_test(NAME cli/tune_store_below_file
         COMMAND ${EXPECT} 2
                 "^clparity tune: the tune store: cannot create .*/README.md/clparity: Not a directory"
                 -- ${CLP} tune -d 0 --quick)
set_tests_properties(cli/tune_store_below_file PROPERTIES
                     ENVIRONMENT "${ENV_POCL};XDG_CACHE_HOME=${CMAKE_SOURCE_DIR}/README.md;POCL_CACHE_DIR=${CMAKE_BINARY_DIR}/test-cache/pocl"
                     TIMEOUT 120 LABELS cli)
add_test(NAME cli/env_table
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/env_table.py ${CLP}
                 ${CMAKE_SOURCE_DIR})
set_tests_properties(cli/env_table PROPERTIES LABELS cli)
add_test(NAME cli/guarded_paths
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/guarded_paths.py ${CLP}
                 ${OUT}/guarded_paths)
set_tests_properties(cli/guarded_paths PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                     TIMEOUT 300 LABELS "cli;matrix")
# tools/export_torch.py's file (tests/fixtures/make_export.py, run with PyTorch on the GPU
# machine): an nn.Sequential mixing Linear + ReLU, a residual block of the post, Linear +
# Identity and a last Linear, read through its clparity.arch metadata.
add_test(NAME fixture/export_seq
         COMMAND sh -c "rm -rf ${OUT}/fx_seq && ${LOGGED} ${OUT}/fx_seq.txt $0 compare -d all --model ${FIXTURES}/seq_export.safetensors --input ${FIXTURES}/seq_x.npy --runs 1 --warmup 0 --save ${OUT}/fx_seq --json ${OUT}/fx_seq.json && ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_fixture.py ${OUT}/fx_seq ${OUT}/fx_seq.json ${FIXTURES} seq Oclgrind pthread host && ${HAS} '4 Linear layers: 5→6 +bias relu, 6→6 relu +residual, 6→6 +bias, 6→3 +bias; architecture from the metadata clparity.arch' ${OUT}/fx_seq.txt"
         ${CLP})
set_tests_properties(fixture/export_seq PROPERTIES ENVIRONMENT "${ENV_BOTH};${ENV_CACHE}"
                     LABELS "cli;oclgrind")
# diff on --save folders of a model file: they agree; a built-in model's folder is refused.
add_test(NAME cli/diff_model_files
         COMMAND sh -c "rm -rf ${OUT}/dm_a ${OUT}/dm_b ${OUT}/dm_c && ${LOGGED} ${OUT}/diff_model_files_1.txt $0 compare -d host --model ${FIXTURES}/digits.safetensors --input ${FIXTURES}/digits_x.npy --runs 1 --warmup 0 --save ${OUT}/dm_a && ${LOGGED} ${OUT}/diff_model_files_2.txt $0 run -d host --engines host:openblas --model ${FIXTURES}/digits.safetensors --input ${FIXTURES}/digits_x.npy --runs 1 --warmup 0 --save ${OUT}/dm_b && $0 diff --expect torch ${OUT}/dm_a ${OUT}/dm_b && ${LOGGED} ${OUT}/diff_model_files_3.txt $0 run -d host --engines host:exact --d-model 64 --layers 1 --batch 450 --runs 1 --warmup 0 --save ${OUT}/dm_c && ${EXPECT} 2 'different models or inputs' -- $0 diff ${OUT}/dm_a ${OUT}/dm_c"
         ${CLP})
set_tests_properties(cli/diff_model_files PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                     LABELS cli)

# Every --csv starts with its header; its provenance is in the sidecar FILE.csv.json; Python's
# csv module (and pandas where installed) reads it back with no option (issue 36).
add_test(NAME cli/csv_header_first
         COMMAND ${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/csv_header_first.py ${CLP}
                 ${OUT}/csv_header_first)
set_tests_properties(cli/csv_header_first PROPERTIES ENVIRONMENT "${ENV_NONE};${ENV_CACHE}"
                     LABELS cli)
# --csv FILE writes FILE.json beside it: --json FILE.json would be written over (or over it),
# silently. Refused before any work, naming both, in each command that takes both options.
cli_status(csv_sidecar_json_run "${ENV_NONE}" 2
           "--csv's provenance sidecar .*/csv_side.csv.json and --json .*/csv_side.csv.json are the same file"
           run -d host --engines host:exact --d-model 8 --layers 1 --csv ${OUT}/csv_side.csv
           --json ${OUT}/csv_side.csv.json)
cli_status(csv_sidecar_json_train "${ENV_NONE}" 2
           "--csv's provenance sidecar .*/csv_side.csv.json and --json .*/csv_side.csv.json are the same file"
           train -d host --steps 2 --d-model 8 --layers 1 --csv ${OUT}/csv_side.csv
           --json ${OUT}/csv_side.csv.json)
cli_status(csv_sidecar_json_sweep "${ENV_NONE}" 2
           "--csv's provenance sidecar .*/csv_side.csv.json and --json .*/csv_side.csv.json are the same file"
           sweep -d host --engines host:exact --vary width --grid 8,16 --layers 1
           --csv ${OUT}/csv_side.csv --json ${OUT}/csv_side.csv.json)
