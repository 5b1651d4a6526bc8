/* cl:cr's loop budgets (cr_paths[]' loop_need): how many loop iterations a work-item of each
 * variant may run for a layer of `in` inputs, which cr_cl.c's cr_check_loops holds against a
 * device that stops a work-item's loops early (Mesa llvmpipe). */
#include "cr-cl-loops-impl.h"

/* ---- loop budgets (llvmpipe stops a work-item's loops after 65535 iterations in all) ----------
 */

static long cr_log2(long v)
{
    long b = 0;
    while (v >>= 1)
        ++b;
    return b;
}

/* cr.cl's cr_acc_round and a residual through the accumulator (the CR_NO_DENORM epilogue):
 * carries, negation, the scans, the init. */
#define CR_LOOPS_ROUND (6L * CR_CL_DIGITS)

/* cr_group_dot for `in` inputs over wg work-items: the slice, the init, the tree, the copy,
 * the rounding and the epilogue. */
static long cr_group_dot_need(const struct cr_cl *c, long in)
{
    long wg = c->tune.wg;
    return (in + wg - 1) / wg + CR_CL_DIGITS * (cr_log2(wg) + 2) + 2 * CR_LOOPS_ROUND;
}

/* The double sums of a slice of `in` inputs over wg work-items, with the tree of ob + 1 rows
 * (f32's float-float sums: the same loops). */
static long cr_sums_need(const struct cr_cl *c, long in)
{
    long wg = c->tune.wg, ob = c->tune.ob;
    return c->f64 || cr_path_f32_group(c->path)
               ? ((in + wg - 1) / wg + 1) * (ob + 1) + cr_log2(wg) * (ob + 1) + ob
               : 0;
}

long cr_gemv_need(const void *priv, long in)
{
    const struct cr_cl *c = priv;
    return cr_sums_need(c, in) + c->tune.ob * cr_group_dot_need(c, in);
}

long cr_splitk_need(const void *priv, long in)
{
    const struct cr_cl *c = priv;
    long part = c->f64 ? cr_sums_need(c, in / c->tune.split + 1)
                       : c->tune.ob * cr_group_dot_need(c, in / c->tune.split + 1);
    long finish = 2L * c->tune.split * (CR_CL_DIGITS + 1) + CR_LOOPS_ROUND +
                  c->tune.ob * cr_group_dot_need(c, in);
    return part > finish ? part : finish;
}

long cr_gemm_need(const void *priv, long in)
{
    const struct cr_cl *c = priv;
    long tk = c->tune.tk, tiles = (in + tk - 1) / tk, per = (long)CR_CL_GEMM_LX * CR_CL_GEMM_LY;
    long sums = c->f64 || cr_path_f32(c->path)
                    ? tiles * (2L * CR_CL_GEMM_TILE(c) * tk / per + 3 + tk * 80)
                    : 0;
    /* every output of its rm × rm through cr_dot where the certificate
     * fails */
    return sums + (long)c->tune.rm * c->tune.rm * (in + 2 * CR_LOOPS_ROUND);
}

/* f32-item: the float-float sums, then cr_dot where the certificate fails. */
long cr_f32_item_need(const void *priv, long in)
{
    (void)priv;
    return in + 1 + in + 2 * CR_LOOPS_ROUND;
}

long cr_cpu_need(const void *priv, long in)
{
    const struct cr_cl *c = priv;
    long outs = (long)c->tune.rb * c->tune.vw;
    long sums = c->f64 ? in * (c->tune.rb + (c->ftz ? c->tune.vw : 0) + 1) + 2 * outs : 0;
    return sums + outs * (in + 2 * CR_LOOPS_ROUND);
}

/* cpu1: a layer of cr_cpu_model's rows (the whole is refused where the device stops loops,
 * cr_check_loops): the norms, the sums, the tails, the outputs exactly where they fail. */
long cr_cpu1_need(const void *priv, long in)
{
    const struct cr_cl *c = priv;
    long vw = c->tune.vw, rb = c->tune.rb, ob = c->tune.ob;
    long sums = c->f64 ? rb * (in + 2 * vw) + ob * (in / vw + rb * ob * vw + 2) : 0;
    return sums + rb * ob * (in + 2 * CR_LOOPS_ROUND);
}

/* team: a unit's input, its passes' chains and the CR_TPO partial sums, or cr_dot's exact sum,
 * for every output of the widest layer (the whole model in one work-item's loops is refused
 * where the device stops loops, cr_check_loops). */
long cr_team_need(const void *priv, long in)
{
    const struct cr_cl *c = priv;
    long slots = c->tune.wg / c->tune.split, passes = (in + slots - 1) / slots + 1;
    long sums = c->f64 ? passes * (in / c->tune.split + 2 * c->tune.split + c->pf + 4) : 0;
    return sums + in / c->tune.wg + 1 + passes * (in + 2 * CR_LOOPS_ROUND);
}
