/* cl:cr's first certificate's bound for the layout of each kernel variant (issue 34): how many
 * rounded additions a term of an output's double sum meets, of which the host's
 * cr_err_scale(depth) gives the factor that clkernels/cr.cl's cr_output takes. */
#include "cr-bound-impl.h"
#include "testhook-impl.h"

/* The most rounded additions on any term's path to an output's double sum, the bias's addition
 * included, in the layout of c's variant (cr.cl's first comment: Higham's bound for a summation
 * tree then holds with gamma of it, so cr_err_scale(depth) covers it as cr_err_scale(in) covers
 * the worst case, in). Each chain starts from 0.0 (its first fma is exact), and every other
 * addition is counted:
 * - gemm, tiles at rm <= 2 (cr.cl's CR_TILED): a chain of at most tk products per tile of k,
 *   then the tiles' sums added one after another to a total from 0.0, then the bias:
 *   (tk - 1) + (tiles - 1) + 1;
 * - stream, gemv (cr.cl's cr_block_sums): each of the wg work-items a chain of at most
 *   ceil(in / wg) products, then a binary tree of log2(wg) levels, then the bias:
 *   (ceil(in / wg) - 1) + log2(wg) + 1;
 * - the others (and any variant without double sums): in, the bound for any order.
 * The depth is never taken above in. Test hooks: cr-bound-in takes in everywhere (the bound
 * before issue 34's depths, for side-by-side timing: docs/PERFORMANCE.md); cr-bound-low takes 0,
 * a bound too small (the planted error that tests/check_cr.py's depth cases must see). */
int cr_sum_depth(const struct cr_cl *c, int in)
{
    long depth = in;
    if (cp_test_hook("cr-bound-in"))
        return in;
    if (cp_test_hook("cr-bound-low"))
        return 0;
    if (c->f64 && (c->path == CR_GEMM || c->path == CR_TILES) && c->tune.rm <= 2) {
        const long tk = c->tune.tk, tiles = ((long)in + tk - 1) / tk;
        depth = (tk - 1) + (tiles - 1) + 1;
    } else if (c->f64 && (c->path == CR_STREAM || c->path == CR_GEMV)) {
        const long wg = c->tune.wg;
        long levels = 0;
        while ((1L << levels) < wg)
            ++levels;
        depth = (((long)in + wg - 1) / wg - 1) + levels + 1;
    }
    return depth < in ? (int)depth : in;
}
