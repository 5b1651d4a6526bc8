# ---- every cl:own kernel and tune against host:exact ----------------------------------------
# Every cl:own kernel (the default picks one by device and size) against host:exact, at shapes
# that leave partial tiles everywhere.
# Every tuning setting (CLPARITY_OWN_TUNE; `clparity tune` picks among them) too: none may
# change a bit. The CPU kernels (cpu, cpu1, cpug) take the device's preferred vector width by
# default (8 with AVX2, 16 with AVX-512): the vw=8 and vw=16 variants build both forms on any
# machine.
foreach(variant naive small pipe reg reg:rg=1 reg:rc=16,rg=1 reg:rc=32,rg=1 reg:rc=128,rg=1 reg:rc=32,rd=3,rg=1
        reg:rc=16,rd=4,rg=1 tiled tiled:bk=16 tiled:bk=16,db=1
        tiled:bk=32,db=1 tiled:bk=16,xl=1 tiled:bk=32,db=0,xl=1
        tiled:bk=16,xp=4 tiled:bk=32,db=1,xp=4 tiled:bk=32,pf=1 tiled:bk=16,xp=4,pf=1 tiled:bk=32,db=0,pf=0 vec vec:vw=4,rb=2
        vec:vw=8,rb=12 vec:vw=16,rb=16 vec:vw=16,rb=8,nv=1 vec:vw=8,rb=12,nv=4,mc=16
        vec:vw=16,rb=4,nv=4,mc=32 vec:vw=4,rb=2,nv=1,mc=1024 cpu cpu1 cpu:vw=8 cpu:vw=16 cpu1:vw=4
        cpu1:vw=16 cpug cpug:vw=8 cpug:vw=16
        reg:rr=16,rg=1 reg:rr=2,rg=1 reg:rg=2 reg:rg=3 reg:rg=4,rr=2 reg:rg=3,rr=16 stream stream:sp=0 stream:sp=1,so=4,sk=32,sg=1
        stream:sp=1,so=64,sk=1024,sg=8 stream:sp=0,so=8,sk=64 stream:sp=1,so=32,sk=256,sg=4
        stream:sp=0,so=16,sk=128)
  string(REPLACE ":" ";" parts "${variant}")
  list(GET parts 0 kernel)
  set(tune "")
  set(name ${kernel})
  if(variant MATCHES ":")
    list(GET parts 1 tune)
    string(REGEX REPLACE "[=,]" "" suffix "${tune}")
    set(name ${kernel}_${suffix})
  endif()
  # A model file with layers of different widths and biases: the one-launch kernels read the
  # layer table instead of the constants of a uniform model.
  if(kernel STREQUAL "small" OR kernel STREQUAL "pipe" OR kernel STREQUAL "reg" OR
     kernel STREQUAL "stream" OR kernel STREQUAL "cpu1" OR kernel STREQUAL "cpug")
    add_test(NAME exact/kernel_${name}_digits_model
             COMMAND ${CLP} compare -d 0 -d host --expect bitwise --engines cl:own,host:exact
                     --model ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/digits.safetensors
                     --input ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/digits_x.npy --runs 2 --warmup 0)
    set_tests_properties(exact/kernel_${name}_digits_model PROPERTIES
                         ENVIRONMENT
                         "${ENV_POCL};${ENV_CACHE};CLPARITY_OWN_KERNEL=${kernel};CLPARITY_OWN_TUNE=${tune}"
                         LABELS "exact;opencl;kernels")
  endif()
  foreach(shape "1 1 1" "3 8 5" "67 5 13" "257 2 64" "130 3 131" "132 2 200")
    separate_arguments(s UNIX_COMMAND "${shape}")
    list(GET s 0 d)
    list(GET s 1 l)
    list(GET s 2 b)
    if((kernel STREQUAL "small" OR kernel STREQUAL "pipe" OR kernel STREQUAL "reg")
       AND b GREATER 64)
      continue()
    endif()
    add_test(NAME exact/kernel_${name}_d${d}_l${l}_b${b}
             COMMAND ${CLP} compare -d 0 -d host --expect bitwise --engines cl:own,host:exact
                     --d-model ${d} --layers ${l} --batch ${b} --runs 2 --warmup 0)
    set_tests_properties(exact/kernel_${name}_d${d}_l${l}_b${b} PROPERTIES
                         ENVIRONMENT
                         "${ENV_POCL};${ENV_CACHE};CLPARITY_OWN_KERNEL=${kernel};CLPARITY_OWN_TUNE=${tune}"
                         LABELS "exact;opencl;kernels")
  endforeach()
endforeach()
# Issue 12's kernels (stream, reg with several rows per work-group) at odd sizes: every width
# of d = 1, 3, 257, 1023, 1025 at B = 1, 5, 17 (partial tiles, rows and chunks everywhere;
# 1023 and 1025 are not multiples of 4). Biases, rectangular layers and layers without
# residual: the digits model above and runtime/exact_pocl (test_exact.c's general models).
foreach(variant stream:sp=1 stream:sp=0,so=8,sk=64 stream:sp=1,so=4,sk=1024,sg=1 reg:rr=4,rg=1)
  string(REPLACE ":" ";" parts "${variant}")
  list(GET parts 0 kernel)
  list(GET parts 1 tune)
  string(REGEX REPLACE "[=,]" "" suffix "${tune}")
  foreach(d 1 3 257 1023 1025)
    if(kernel STREQUAL "reg" AND d GREATER 1024)
      continue() # reg takes a layer per work-group: it refuses widths over 1024 (status 2)
    endif()
    foreach(b 1 5 17)
      add_test(NAME exact/odd_${kernel}_${suffix}_d${d}_b${b}
               COMMAND ${CLP} compare -d 0 -d host --expect bitwise --engines cl:own,host:exact
                       --d-model ${d} --layers 2 --batch ${b} --runs 2 --warmup 0)
      set_tests_properties(exact/odd_${kernel}_${suffix}_d${d}_b${b} PROPERTIES
                           ENVIRONMENT
                           "${ENV_POCL};${ENV_CACHE};CLPARITY_OWN_KERNEL=${kernel};CLPARITY_OWN_TUNE=${tune}"
                           LABELS "exact;opencl;kernels")
    endforeach()
  endforeach()
  # The same check fails when the kernel flips one bit of one output (test hook kernel-bit,
  # built in with -DCP_PLANT_BIT): the tests above can fail.
  cli_status(planted_bit_${kernel}_${suffix}
             "${ENV_POCL};CLPARITY_OWN_KERNEL=${kernel};CLPARITY_OWN_TUNE=${tune};CLPARITY_TEST_HOOK=kernel-bit"
             1 "--expect bitwise failed for 1 result: 0:0 .* cl:own$"
             compare -d 0 -d host --expect bitwise --engines cl:own,host:exact
             --d-model 257 --layers 2 --batch 17 --runs 2 --warmup 0)
endforeach()
# reg with rg > 1 (cp_model_small_rot: groups of work-items take the layers in turn, each
# holding a whole row in registers) serves layers up to 128 wide: odd widths under that, depths
# that are and are not multiples of the groups, B = 1, 5, 17, and the build options must name
# the kernel (wider models fall back to the chunked kernel). Biases, rectangular layers and no
# residual: the digits model in the variant loop above (reg:rg=2, reg:rg=3).
# exact/NAME: cl:own on PoCL bit-identical to host:exact at d × L × B, with ENV, and the build
# options (the --json provenance) checked by tests/check_built.py with CHECK (--regex REGEX, or
# --cpug D B: the shape cpug_shape gives on this device): the kernel meant to be tested is the
# one that ran. On failure the run's output, or the options and what was expected, are shown.
set(CHECK_BUILT ${CMAKE_CURRENT_SOURCE_DIR}/check_built.py)
# Label "kernels": the tune-setting matrices (exact/kernel_*, odd_*, rot_*, cpug16_*) run the
# same host code with other build options for the kernels; the asan job leaves them out (every
# path's host code runs under ASan in runtime/exact_pocl, exact/pocl_d* and exact/probe_*).
function(exact_built name env d l b)
  list(JOIN ARGN " " check)
  add_test(NAME exact/${name}
           COMMAND sh -c "${LOGGED} ${OUT}/${name}.txt $0 compare -d 0 -d host --expect bitwise --engines cl:own,host:exact --d-model ${d} --layers ${l} --batch ${b} --runs 2 --warmup 0 --json ${OUT}/${name}.json && ${SYSTEM_PYTHON} ${CHECK_BUILT} ${OUT}/${name}.json ${check}"
           ${CLP})
  set_tests_properties(exact/${name} PROPERTIES ENVIRONMENT "${ENV_POCL};${ENV_CACHE};${env}"
                       LABELS "exact;opencl;kernels")
endfunction()
foreach(tune rg=2 rg=3 rg=4,rr=4)
  string(REGEX REPLACE "[=,]" "" suffix "${tune}")
  foreach(shape "1 1" "3 5" "67 7" "127 4")
    separate_arguments(s UNIX_COMMAND "${shape}")
    list(GET s 0 d)
    list(GET s 1 l)
    foreach(b 1 5 17)
      exact_built(rot_${suffix}_d${d}_l${l}_b${b}
                  "CLPARITY_OWN_KERNEL=reg;CLPARITY_OWN_TUNE=${tune}" ${d} ${l} ${b} --regex "CP_NG=")
    endforeach()
  endforeach()
  cli_status(planted_bit_rot_${suffix}
             "${ENV_POCL};CLPARITY_OWN_KERNEL=reg;CLPARITY_OWN_TUNE=${tune};CLPARITY_TEST_HOOK=kernel-bit"
             1 "--expect bitwise failed for 1 result: 0:0 .* cl:own$"
             compare -d 0 -d host --expect bitwise --engines cl:own,host:exact
             --d-model 67 --layers 5 --batch 17 --runs 2 --warmup 0)
endforeach()
# cpug (cp_cpu_grid) on a 16-compute-unit PoCL (POCL_MAX_PTHREAD_COUNT=16; the CI machine
# has 2): it narrows its panels to 2 or 1 vectors where the widest layer has fewer panels than
# compute units, and launches no more groups than units. Each shape must build with the vectors
# per work-item (CP_NV) and the vector width (CP_VW) that cpug_shape and the default tuning give
# on the device that runs it (tests/check_built.py applies the same rules to the preferred float
# vector width that clinfo reports: 8 with AVX2, 16 with AVX-512, so the shapes give other CP_NV
# on each), bit-identical to host:exact; the planted twin flips one bit in the narrowest form
# (CP_NV=1 at either width).
# Tune gu (units per group wanted) narrows the panels further: gu=2 and 4 at shapes where it
# changes CP_NV. exact/cpug16_coverage checks, without a device, that at either width the gu=1
# shapes give CP_NV 4, 2 and 1 and each gu > 1 narrows some shape.
set(CPUG16_SHAPES "67 3 1 1" "3 4 5 1" "257 2 1 1" "520 2 1 1" "1100 2 1 1" "67 3 17 1"
    "260 2 5 1" "130 2 37 1" "520 2 1 2" "1100 2 1 2" "1100 2 1 4" "130 2 37 4")
foreach(shape ${CPUG16_SHAPES})
  separate_arguments(s UNIX_COMMAND "${shape}")
  list(GET s 0 d)
  list(GET s 1 l)
  list(GET s 2 b)
  list(GET s 3 gu)
  exact_built(cpug16_d${d}_l${l}_b${b}_gu${gu}
              "CLPARITY_OWN_KERNEL=cpug;CLPARITY_OWN_TUNE=gu=${gu};POCL_MAX_PTHREAD_COUNT=16"
              ${d} ${l} ${b} --cpug ${d} ${b})
  # ...and at both widths set by the test (tune vw), so that every machine builds and checks
  # the 8- and the 16-wide forms.
  foreach(vw 8 16)
    exact_built(cpug16_vw${vw}_d${d}_l${l}_b${b}_gu${gu}
                "CLPARITY_OWN_KERNEL=cpug;CLPARITY_OWN_TUNE=gu=${gu},vw=${vw};POCL_MAX_PTHREAD_COUNT=16"
                ${d} ${l} ${b} --cpug ${d} ${b})
  endforeach()
endforeach()
add_test(NAME exact/cpug16_coverage
         COMMAND ${SYSTEM_PYTHON} ${CHECK_BUILT} --cpug-coverage 16 ${CPUG16_SHAPES})
set_tests_properties(exact/cpug16_coverage PROPERTIES LABELS exact)
cli_status(planted_bit_cpug16
           "${ENV_POCL};CLPARITY_OWN_KERNEL=cpug;POCL_MAX_PTHREAD_COUNT=16;CLPARITY_TEST_HOOK=corrupt-cpu-kernel"
           1 "--expect bitwise failed for 1 result: 0:0 .* cl:own$"
           compare -d 0 -d host --expect bitwise --engines cl:own,host:exact
           --d-model 67 --layers 3 --batch 1 --runs 2 --warmup 0)
# A uniform model with biases: reg takes its layer table as constants (-DCP_UFLAGS=7, bias,
# ReLU and residual); bit-identical to host:exact at two chunk sizes (37 = 2 x 16 + 5) and with
# the layers taken in turn by 3 groups (rg=3).
foreach(tune rc=16,rg=1 rc=64,rg=1 rg=3)
  string(REGEX REPLACE "[=,]" "" rc "${tune}")
  add_test(NAME exact/kernel_reg_uniform_bias_${rc}
           COMMAND sh -c "${SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/make_uniform_bias.py ${OUT}/ub${rc}.safetensors ${OUT}/ub${rc}_x.npy 37 5 3 && ${LOGGED} ${OUT}/ub${rc}_1.txt $0 compare -d 0 -d host --expect bitwise --engines cl:own,host:exact --model ${OUT}/ub${rc}.safetensors --input ${OUT}/ub${rc}_x.npy --runs 2 --warmup 0 --json ${OUT}/ub${rc}.json && ${SYSTEM_PYTHON} ${CHECK_BUILT} ${OUT}/ub${rc}.json --regex 'CP_UD=37 -DCP_UFLAGS=7'"
           ${CLP})
  set_tests_properties(exact/kernel_reg_uniform_bias_${rc} PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_OWN_KERNEL=reg;CLPARITY_OWN_TUNE=${tune}"
                       LABELS "exact;opencl")
endforeach()
# host:exact at d=1025 B=37 (partial panels and row blocks) with 1 and 2 threads, bit for bit
# against cl:own on PoCL; with the hook corrupt-exact (one bit flipped in the last thread's
# share) the same comparison must fail.
foreach(t 1 2)
  add_test(NAME exact/host_threads${t}_d1025_b37
           COMMAND ${CLP} compare -d 0 -d host --expect bitwise --engines cl:own,host:exact
                   --d-model 1025 --layers 2 --batch 37 --runs 2 --warmup 0)
  set_tests_properties(exact/host_threads${t}_d1025_b37 PROPERTIES
                       ENVIRONMENT "${ENV_POCL};${ENV_CACHE};CLPARITY_HOST_THREADS=${t}"
                       LABELS "exact;opencl")
  add_test(NAME exact/host_threads${t}_d1025_b37_planted
           COMMAND ${EXPECT} 1 "--expect bitwise failed" -- ${CLP} compare -d 0 -d host
                   --expect bitwise --engines cl:own,host:exact --d-model 1025 --layers 2
                   --batch 37 --runs 2 --warmup 0)
  set_tests_properties(exact/host_threads${t}_d1025_b37_planted PROPERTIES
                       ENVIRONMENT
                       "${ENV_POCL};${ENV_CACHE};CLPARITY_HOST_THREADS=${t};CLPARITY_TEST_HOOK=corrupt-exact"
                       LABELS "exact;opencl")
endforeach()
