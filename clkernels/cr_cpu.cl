/* cl:cr on CPUs (PoCL), the whole model in one launch (issue 34): cr_cpu_model, the row cpu1 of
 * runtime/opencl/cr_cl_run.c. cr.cl's cr_cpu launches a kernel per layer, and PoCL's cost per
 * launch (1.8-9 us on the 2-core EPYC) is most of the reference model's time; here, as in
 * cl:own's cp_cpu_model (own_cpu.cl), a work-item runs every layer of its own CR_RB rows, with
 * no barrier: a row's layers depend only on that row.
 *
 * The sums are cr.cl's method (its first comment: any split of k, any tree), with k in the
 * vector lanes: for a block of CR_OB outputs, each of the CR_RB × CR_OB accumulators is a
 * vector of CR_VW doubles whose lane i sums the products of k = i, i + CR_VW, ... with
 * fma(x, w, acc) from 0.0, over the weights as stored (W [out][in], the rows contiguous in k:
 * no packed copy); the k past the last whole vector go to a scalar fma chain from 0.0; then
 * the lanes meet in a binary tree (cr_hsum) and the chain is added. Every rounded addition on a
 * term's path merges in another term, as cr.cl's proof asks, so the certified bound
 * cr_err_scale(in) covers it. The row's sum of squares likewise (any order), once per row and
 * layer, and its sqrt with it. The certificate is cr.cl's cr_certify on the CR_OB outputs of a
 * row at once (cr_certify_v: each lane the same IEEE double operations, so the same verdict
 * and bits); an output whose certificate fails is summed exactly alone (cr.cl's cr_dot), as
 * every output is without CR_F64.
 *
 * Build options beyond cr.cl's: CR_VW the lanes of k (4, 8 or 16), CR_RB rows per work-item,
 * CR_OB outputs per block (2, 4 or 8: a vector of the certificate). */
#include "cr.cl"

#if CR_OB < 2
#error "cr_cpu_model takes CR_OB of 2, 4 or 8"
#endif

#ifdef CR_F64
#define CR_OV CR_CAT(double, CR_OB) /* a row's CR_OB outputs */
#define CR_OL CR_CAT(long, CR_OB)
#define CR_OU CR_CAT(uint, CR_OB)
#define CR_OF CR_CAT(float, CR_OB)

/* The exact doubles of the CR_VW floats at p + i · CR_VW. */
CR_DVEC cr_f2d_v(__global const uint *p, int i)
{
#ifdef CR_NO_DENORM
    double t[CR_VW];
    for (int c = 0; c < CR_VW; ++c)
        t[c] = cr_f2d(p[(size_t)i * CR_VW + (size_t)c]);
    return CR_CAT(vload, CR_VW)(0, t);
#else
    return CR_CAT(convert_double, CR_VW)(CR_CAT(as_float, CR_VW)(CR_CAT(vload, CR_VW)(i, p)));
#endif
}

/* The lanes of v summed in a binary tree. */
double cr_hsum(CR_DVEC v)
{
#if CR_VW == 16
    double8 h8 = v.lo + v.hi;
    double4 h4 = h8.lo + h8.hi;
#elif CR_VW == 8
    double4 h4 = v.lo + v.hi;
#else
    double4 h4 = v;
#endif
    double2 h2 = h4.lo + h4.hi;
    return h2.x + h2.y;
}

/* cr.cl's cr_certify, lane by lane: -1 where lane j's s is certified (its bits into v's lane
 * j), else 0. */
CR_OL cr_certify_v(CR_OV s, CR_OV err, CR_OU *v)
{
    CR_OV a = fabs(s);
    CR_OL ok = a < 0x1p127; /* also NaN */
#ifdef CR_NO_DENORM
    ok &= a >= 0x1p-125;
#endif
    CR_OF r = CR_CAT(convert_float, CR_CAT(CR_OB, _rte))(a);
    CR_OU u = CR_CAT(as_uint, CR_OB)(r);
    ok &= CR_CAT(convert_long, CR_OB)(u != (CR_OU)(0u));
    CR_OV rd = CR_CAT(convert_double, CR_OB)(r);
    CR_OV mid_lo = (rd + CR_CAT(convert_double, CR_OB)(CR_CAT(as_float, CR_OB)(u - 1u))) * 0.5;
    CR_OV mid_hi = (rd + CR_CAT(convert_double, CR_OB)(CR_CAT(as_float, CR_OB)(u + 1u))) * 0.5;
    ok &= (a - mid_lo > err) & (mid_hi - a > err);
    *v = select(u, u | 0x80000000u, CR_CAT(convert_uint, CR_OB)(s < (CR_OV)(0.0)));
    return ok;
}
#endif

/* One layer for the rows x (rows ldx apart; `rows` of them, CR_RB at most: the others repeat
 * the last, unused) into y (ldy apart): the weights w as stored, bias (0: none), flags, this
 * layer's norms wn and the bound's factor's bits scale as cr.cl's kernels take them; row0: the
 * block holds row 0 (the test hook's). */
void cr_cpu_rows(__global const uint *x, int ldx, __global uint *y, int ldy, int rows,
                 __global const uint *w, __global const uint *bias, int in, int out, int flags,
                 __global const ulong *wn, ulong scale, bool row0, __global CR_REAL *xd, int ldd)
{
    __global const uint *xr[CR_RB];
#pragma unroll
    for (int r = 0; r < CR_RB; ++r)
        xr[r] = x + (size_t)min(r, rows - 1) * (size_t)ldx;
#ifdef CR_F64
    const int kv = in / CR_VW, kt = kv * CR_VW;
    double nx[CR_RB];            /* each row's |x|_2 */
    __global double *xdr[CR_RB]; /* each row's doubles, converted once here */
#pragma unroll
    for (int r = 0; r < CR_RB; ++r) {
        xdr[r] = xd + (size_t)min(r, rows - 1) * (size_t)ldd;
        CR_DVEC q = (CR_DVEC)(0.0);
        for (int i = 0; i < kv; ++i) {
            CR_DVEC xv = cr_f2d_v(xr[r], i);
            CR_CAT(vstore, CR_VW)(xv, i, xdr[r]);
            q = fma(xv, xv, q);
        }
        double t = 0.0;
        for (int k = kt; k < in; ++k) {
            double xk = cr_f2d(xr[r][k]);
            t = fma(xk, xk, t);
        }
        nx[r] = sqrt(cr_hsum(q) + t);
    }
#else
    (void)wn;
    (void)scale;
    (void)xd;
    (void)ldd;
#endif
    for (int o0 = 0; o0 < out; o0 += CR_OB) {
#ifdef CR_F64
        __global const uint *wr[CR_OB];
#pragma unroll
        for (int j = 0; j < CR_OB; ++j) /* past the layer's end: its last output again, unused */
            wr[j] = w + (size_t)min(o0 + j, out - 1) * (size_t)in;
        double s[CR_RB][CR_OB];
        {
            CR_DVEC acc[CR_RB][CR_OB];
#pragma unroll
            for (int r = 0; r < CR_RB; ++r)
#pragma unroll
                for (int j = 0; j < CR_OB; ++j)
                    acc[r][j] = (CR_DVEC)(0.0);
            for (int i = 0; i < kv; ++i) {
                CR_DVEC xv[CR_RB];
#pragma unroll
                for (int r = 0; r < CR_RB; ++r)
                    xv[r] = CR_CAT(vload, CR_VW)(i, xdr[r]);
#pragma unroll
                for (int j = 0; j < CR_OB; ++j) {
                    CR_DVEC wv = cr_f2d_v(wr[j], i);
#pragma unroll
                    for (int r = 0; r < CR_RB; ++r)
                        acc[r][j] = fma(xv[r], wv, acc[r][j]);
                }
            }
#pragma unroll
            for (int r = 0; r < CR_RB; ++r)
#pragma unroll
                for (int j = 0; j < CR_OB; ++j) {
                    double t = 0.0;
                    for (int k = kt; k < in; ++k)
                        t = fma(cr_f2d(xr[r][k]), cr_f2d(wr[j][k]), t);
                    s[r][j] = cr_hsum(acc[r][j]) + t;
                }
        }
        /* the bias and the norms of the block's outputs (cr.cl's cr_output) */
        double bl[CR_OB], nl[CR_OB];
#pragma unroll
        for (int j = 0; j < CR_OB; ++j) {
            int o = min(o0 + j, out - 1);
            bl[j] = bias ? cr_f2d(bias[o]) : 0.0;
            nl[j] = as_double(wn[o]);
        }
        const CR_OV bv = CR_CAT(vload, CR_OB)(0, bl), wnv = CR_CAT(vload, CR_OB)(0, nl);
#endif
        for (int r = 0; r < rows; ++r) {
#ifdef CR_F64
            CR_OU vv;
            CR_OL okv = cr_certify_v(CR_CAT(vload, CR_OB)(0, s[r]) + bv,
                                     as_double(scale) * (nx[r] * wnv + fabs(bv)), &vv);
            uint vs[CR_OB];
            long oks[CR_OB];
            CR_CAT(vstore, CR_OB)(vv, 0, vs);
            CR_CAT(vstore, CR_OB)(okv, 0, oks);
#endif
            for (int j = 0; j < CR_OB && o0 + j < out; ++j) {
                const int o = o0 + j;
                uint v;
#ifdef CR_F64
                if (oks[j])
                    v = vs[j];
                else
#endif
                    v = cr_dot(xr[r], w + (size_t)o * (size_t)in, in, bias ? bias + o : 0);
                y[(size_t)r * (size_t)ldy + (size_t)o] = CP_PLANT(
                    cr_epilogue(v, flags, CR_XO(xr[r], o, flags)), row0 && r == 0 && o == 0);
            }
        }
    }
}

/* The whole model: work-item g runs every layer for rows g · CR_RB ... (those < batch), as
 * own_cpu.cl's cp_cpu_model: layer 0 reads x (rows ldx apart), layer l writes a, b, a, ...
 * (rows ld apart) and reads the one before. Every row stays at one place in each buffer through
 * all layers, so a work-item that runs ahead never writes where a slower one still reads. desc:
 * cr.cl's cr_stream's layer table (8 ulongs a layer: w_off, b_off, in, out, flags with 8 on the
 * test hook's layer, wn_off, the bound's factor's bits, unused); p the weights as stored; xd
 * (with CR_F64) [batch][ld] doubles, each work-item's rows of the layer's inputs converted once
 * (the sums then load doubles: half the conversions at 4 rows). */
#if !defined(CP_KERNELS) || defined(CP_K_cr_cpu_model)
__kernel void cr_cpu_model(__global const uint *x, __global uint *a, __global uint *b,
                           __global const uint *restrict p, __global const ulong *restrict desc,
                           __global const ulong *restrict wnorm, int n_layers, int batch, int ldx,
                           int ld, __global CR_REAL *restrict xd)
{
    const int r0 = (int)get_global_id(0) * CR_RB;
    if (r0 >= batch)
        return;
    const int rows = min(CR_RB, batch - r0);
    for (int l = 0; l < n_layers; ++l) {
        __global const ulong *d = desc + 8 * (size_t)l;
        const int in = (int)d[2], out = (int)d[3], flags = (int)d[4];
        __global const uint *xs = l == 0 ? x : (l % 2) ? a : b;
        __global uint *ys = (l % 2) ? b : a;
        const int lx = l == 0 ? ldx : ld;
        cr_cpu_rows(xs + (size_t)r0 * (size_t)lx, lx, ys + (size_t)r0 * (size_t)ld, ld, rows,
                    p + d[0], (flags & 1) ? p + d[1] : 0, in, out, flags, wnorm + d[5], d[6],
                    r0 == 0, xd + (size_t)r0 * (size_t)ld, ld);
    }
}
#endif
