/* cl:own's tables: its kernel paths (own_paths[]: names, counts and error texts come from it),
 * the ordered rules of the default choice and the fallbacks where a probe rejects a path. Data
 * only, in a file of its own, so that a test build can compile it with OWN_PATH_EXTRA set to a
 * path of its own (tests/own_path_planted.c): one row more in own_paths[], at index N_PATHS,
 * and a first rule that takes it wherever it fits. Adding a path to clparity is one file (its
 * struct cl_path_ops, with its kernel file) plus its row here (and an enum own_path entry for
 * its index, and rows in own_rules[] and own_fallbacks[] where the default choice should take
 * it): docs/ENGINES.md, "Adding a kernel path". */
#include "cl-shared-impl.h"

#ifdef OWN_PATH_EXTRA
extern const struct cl_path_ops OWN_PATH_EXTRA;
#endif

const struct cl_path_ops *const own_paths[] = {
    [PATH_NAIVE] = &own_path_naive,   [PATH_SMALL] = &own_path_small,
    [PATH_TILED] = &own_path_tiled,   [PATH_VEC] = &own_path_vec,
    [PATH_PIPE] = &own_path_pipe,     [PATH_REG] = &own_path_reg,
    [PATH_CPU] = &own_path_cpu,       [PATH_CPU1] = &own_path_cpu1,
    [PATH_STREAM] = &own_path_stream, [PATH_CPUG] = &own_path_cpug,
#ifdef OWN_PATH_EXTRA
    [N_PATHS] = &OWN_PATH_EXTRA,
#endif
};
const size_t own_n_paths = sizeof own_paths / sizeof *own_paths;
_Static_assert(sizeof own_paths / sizeof *own_paths <= OWN_PATHS_MAX, "OWN_PATHS_MAX");

/* The default choice is the first rule of own_rules[] (cl_rule_first, cl-shared-impl.h) of
 * the device's kind whose limits hold and whose path fits (its fits()). Widths are the model's
 * widest layer, batches the engine's largest batch, row blocks own_cpu_rows' of it. */
/* Measured 2026-11-23 (docs/PERFORMANCE.md): on PoCL the vectorised GEMM beats the
 * one-launch kernel at every width and batch tried (5x at d=128 L=128 B=1 on 2 cores), since
 * one work-group per row leaves the other cores idle; PoCL takes own_cpu.cl's kernels below.
 *
 * Elsewhere, measured on the H100 (2026-11-25, tools/gpu/variants.sh): the one-launch reg
 * kernel wins at d <= 128 at every batch of the sweeps (several rows per work-group: d=128
 * L=128 B=2048 0.45 ms against the tiled GEMM's 3.06), and stream from d = 256 at B = 1
 * (d=256 L=4096 12.7 against reg's 15.6 ms, L=128 the same 0.46) and at d > 256 up to B = 64
 * (d=512 L=128 B=1 0.43 ms against reg's 5.3 and tiled's 7.8; d=1024 L=16 B=64 0.33 against
 * tiled's 1.91). reg keeps d = 256 at B > 16 (not measured against stream), and takes the
 * rest up to d = 512 where stream does not fit.
 *
 * On CPUs, measured with PoCL:
 * - cpug (one launch, every core on each layer) for small batches on devices of 4 compute
 *   units or more. On 16 cores (PoCL 5, 2026-11-25, ms, cpug against the best of the others):
 *   d=128 L=128 B=1 0.39 / 0.62 (cpu1); d=256 0.81 / 2.36; d=512 1.66 / 8.63 (cpu); d=1024
 *   19.0 / 34.9 (vec); d=2048 L=32 6.6 / 12.6; d=128 B=4 0.49 / 1.09; B=16 0.75 / 0.77;
 *   d=1024 L=16 B=4 1.72 / 1.92. On 2 cores it loses to cpu1 (d=128 L=128 B=1 0.26 against
 *   0.11 ms: one core already takes the memory bandwidth there); 3 to 15 cores are not
 *   measured.
 * - cpu1 (the whole model in one launch) at widths up to 512, where its row blocks are few
 *   enough for each core to stream the weights once or twice per forward. On 2 cores (PoCL
 *   3.1, L=16..128, B=1): d=128 0.30 ms against 0.91 (cpu) and 1.56 (vec); d=256 0.35 against
 *   0.36; d=512 0.62 against 0.63; d=1024 1.14 against 0.70.
 * - cpu (a matrix-vector kernel per layer) for batches up to 16; vec's row tiles beyond
 *   (2 cores, d=128 L=128 B=16: 1.0 ms for vec, 1.2 for either). */
const struct cl_rule own_rules[] = {
#ifdef OWN_PATH_EXTRA
    {.kind = CL_RULE_ANY, .path = N_PATHS}, /* a test build's planted path, wherever it fits */
#endif
    {.kind = CL_RULE_OTHER, .w_max = 128, .path = PATH_REG},
    {.kind = CL_RULE_OTHER, .w_max = 256, .b_over = 16, .path = PATH_REG},
    {.kind = CL_RULE_OTHER, .w_over = 128, .b_max = 64, .path = PATH_STREAM},
    {.kind = CL_RULE_OTHER, .b_max = 64, .unless = 1u << PATH_REG, .path = PATH_STREAM},
    {.kind = CL_RULE_OTHER, .w_max = 256, .path = PATH_REG},
    {.kind = CL_RULE_OTHER, .w_max = 512, .b_max = 64, .path = PATH_REG},
    {.kind = CL_RULE_OTHER, .path = PATH_TILED},
    {.kind = CL_RULE_OTHER, .path = PATH_NAIVE},
    {.kind = CL_RULE_CPU, .min_cus = 4, .b_max = 16, .path = PATH_CPUG},
    {.kind = CL_RULE_CPU, .w_max = 512, .blocks_per_cu = 2, .path = PATH_CPU1},
    {.kind = CL_RULE_CPU, .b_max = 16, .path = PATH_CPU},
    {.kind = CL_RULE_CPU, .path = PATH_VEC},
};
const size_t own_n_rules = sizeof own_rules / sizeof *own_rules;

/* Where the first choice fails its probe, the next path after it in its device's list that
 * fits and passes is taken: on CPUs from the one-launch kernels to the per-layer GEMMs,
 * elsewhere from the one-launch kernels to the tiled GEMM; the naive kernel (block.cl, the
 * reference form) last. */
const struct cl_fallback own_fallbacks[] = {
    {CL_RULE_CPU, {PATH_CPUG, PATH_CPU1, PATH_CPU, PATH_VEC, PATH_NAIVE}, 5},
    {CL_RULE_OTHER, {PATH_REG, PATH_STREAM, PATH_TILED, PATH_NAIVE}, 4},
};
const size_t own_n_fallbacks = sizeof own_fallbacks / sizeof *own_fallbacks;
