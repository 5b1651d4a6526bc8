/* cl:cr's kernels (runtime/opencl/cr_cl.c): correctly rounded layers with host:cr's bits on every
 * device, whatever the split of k over work-items, work-groups and launches (issue 23;
 * docs/ENGINES.md, "host:cr and cl:cr"). For each output o:
 *   v = RN(sum_k x[k]·W[o][k] + b[o]) (the exact sum rounded once to float32, ties to even),
 *   then the activation, then y = RN(x[o] + act(v)) where the layer has a residual.
 *
 * hostblas/cr.c states the contract and proves the method; this file is that method in OpenCL
 * C, and its functions carry the names of cr.c's and take the same steps, so that one can be
 * read against the other: cr_carry, cr_acc_add_scaled, cr_split, cr_acc_classify,
 * cr_acc_add_product, cr_acc_add, cr_msb, cr_acc_round, cr_dot, cr_epilogue (with cp_relu) and
 * cr_certify (hostblas/cr_fast.c). Where they differ it is said there. The accumulator reads
 * the operands' bits (as_uint), never through float arithmetic.
 *
 * THE SUMS, ANY SPLIT. In the double path (CR_F64) each work-item sums its slice of k (k = its
 * index, then every CR_WG-th; in cr_split_part a range of k per work-group) with fma(x, w, acc)
 * from 0.0: a float product is exact in double (cr.c, 1-2), so each fma is one rounded addition.
 * The partial sums then meet in a binary tree in local memory, and in cr_split_finish across the
 * work-groups of another launch; in cr_gemm and cr_tiles each output is one work-item's chain
 * over every k;
 * in cr_team (cr_team.cl) CR_TPO chains over k = q, q + CR_TPO, ... meet in a chain of their
 * partial sums (cr_block_sums's loads, issued CR_KU k at a time, leave its chain's order as it
 * is). Whatever the tree: a rounded addition on a term's path merges
 * in at least one other nonzero term (an addition of an exact zero, such as an empty slice's
 * 0.0, is exact), so no term's path holds more than n − 1 rounded additions for the n = in + 1
 * terms (the products and the bias). Higham's bound for any summation tree then gives
 * |s − S| <= gamma_(n−1) · sum_i |p_i| <= gamma_(in+2) · T, which the bound's factor
 * (cr_err_scale(in), cr.c, 2-3, computed by the host) covers: every split, work-group size and
 * launch count of this file, and every tune setting, gives a sum within the same certified
 * bound, and where the certificate fails the exact accumulator decides. So every output has the
 * one right answer, host:cr's. Where a variant's layout puts fewer rounded additions h < in on
 * every term's path (Higham: |s − S| <= gamma_h · sum_i |p_i| for a tree of depth h), the host
 * passes cr_err_scale(h) instead (cr_bound.c's cr_sum_depth, which counts them: cr_gemm's
 * chains of one tile of k and the tiles' sums added; cr_block_sums' chains of in / lanes and
 * their tree): a tighter bound, which fails fewer outputs to the slower certificates and never
 * changes an answer.
 *
 * The x row's norm |x|_2 comes from a sum of squares in any order (cr.c, 3: any order is at
 * least (1 − gamma_(in−1)) times the exact sum), and OpenCL's double sqrt is correctly rounded
 * (a few ulps would still be covered by the factor 1.01). The weights' row norms |W_o|_2 are
 * cr.c's cr_norm, computed on the host once.
 *
 * Build options (runtime/opencl/cr_cl.c):
 *   CR_F64        the device has cl_khr_fp64: the certified double fast path, the exact
 *                 accumulator where the certificate fails. Without it (Mesa rusticl on
 *                 llvmpipe, or CLPARITY_CR_TUNE=exact=1) no double is compiled and every output
 *                 goes through the exact accumulator.
 *   CR_NO_DENORM  the device flushes float denormals (CL_DEVICE_SINGLE_FP_CONFIG without
 *                 CL_FP_DENORM; or CLPARITY_CR_TUNE=ftz=1): no float arithmetic touches an
 *                 operand or a result. Floats reach double through their bits (cr_f2d), the
 *                 certificate takes only results of 2^-125 and up (their neighbours are normal),
 *                 ReLU works on the bits and the residual add goes through the accumulator
 *                 (two terms, rounded once: IEEE's RN sum, signed zeros included).
 *   CR_WG         work-items per work-group (a power of two); CR_OB outputs per work-group;
 *   CR_TK         the GEMM's tile depth; CR_VW, CR_RB the CPU kernel's outputs and rows per
 *                 work-item; CP_PLANT_BIT  test hook corrupt-cl-cr.
 *   CR_TEAM       cr_team (cr_team.cl), with CR_TPO work-items per output and CR_PF weights
 *                 per work-item loaded ahead.
 * The program is built as cl:own's: no fast-math or mad option, and FP_CONTRACT OFF (the
 * residual add is one float add; the double sums use explicit fma, which the proof counts). */
#pragma OPENCL FP_CONTRACT OFF
#ifdef CR_F64
#ifndef cl_khr_fp64
#error "CR_F64 needs cl_khr_fp64"
#endif
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef CR_WG
#define CR_WG 64
#endif
#ifndef CR_OB
#define CR_OB 4
#endif
#ifndef CR_TK
#define CR_TK 16
#endif
#ifndef CR_KU
#define CR_KU 8 /* cr_block_sums: k per work-item whose loads are issued together */
#endif
/* The GEMM: CR_LX × CR_LY work-items, each CR_RM rows × CR_RN outputs; its tiles in local memory
 * k-major with a pitch of CR_TM + 1 doubles (a work-item's stores of one row's k run across the
 * banks). */
#define CR_LX 8
#define CR_LY 8
#ifndef CR_RM /* the host's CR_CL_GEMM_R (runtime/opencl/cr-cl-run-impl.h) */
#define CR_RM 4
#endif
#define CR_RN CR_RM
#define CR_TM (CR_LY * CR_RM)
#define CR_TN (CR_LX * CR_RN)
#define CR_TP (CR_TM + 1)

#ifdef CP_PLANT_BIT /* test hook corrupt-cl-cr: the lowest bit of one output of the layer whose
                      * flags have 8 (the last: a flip in each layer could cancel out) */
#define CP_PLANT(v, at) ((at) && (flags & 8) ? (v) ^ 1u : (v))
#else
#define CP_PLANT(v, at) (v)
#endif

/* The local scratch of the double sums: doubles, or (without CR_F64, where it is unused) longs,
 * so that every kernel keeps one argument list. */
#ifdef CR_F64
#define CR_REAL double
#else
#define CR_REAL long
#endif

/* ---- the exact accumulator (cr.c, 5-7) ------------------------------------------------------ */

#define CR_DIGITS 20
#define CR_MASK 0xffffffffUL
#define CR_RADIX 4294967296L /* 2^32 */

/* cr.c's flags as bits, so that two accumulators' flags combine by OR: CR_NONNEG0 is cr.c's
 * !all_neg_zero (some term was not -0). */
#define CR_NAN 1u
#define CR_POS_INF 2u
#define CR_NEG_INF 4u
#define CR_ANY 8u
#define CR_NONNEG0 16u

/* cr.c's cr_acc without its count of adds: a layer has at most CR_IN_MAX = 2^26 inputs (the
 * host checks), so fewer than 2^30 terms (cr.c's CR_ADDS_MAX) reach an accumulator, merged
 * from several work-items or not, and no carry pass is needed before the rounding: the digits
 * are summed digit by digit in any grouping, exactly. */
typedef struct cr_acc {
    long digit[CR_DIGITS];
    uint flags;
} cr_acc;

void cr_acc_init(cr_acc *a)
{
    for (int i = 0; i < CR_DIGITS; ++i)
        a->digit[i] = 0;
    a->flags = 0u;
}

void cr_carry(long *d)
{
    for (int i = 0; i < CR_DIGITS - 1; ++i) {
        long low = d[i] & (long)CR_MASK;
        d[i + 1] += (d[i] - low) / CR_RADIX;
        d[i] = low;
    }
}

void cr_acc_add_scaled(cr_acc *a, ulong m, int p, bool neg)
{
    int i = p >> 5, sh = p & 31;
    ulong lo = (m & CR_MASK) << sh; /* < 2^63 */
    ulong t = ((m >> 32) << sh) + (lo >> 32);
    long d0 = (long)(lo & CR_MASK), d1 = (long)(t & CR_MASK), d2 = (long)(t >> 32);
    if (neg) {
        a->digit[i] -= d0;
        a->digit[i + 1] -= d1;
        a->digit[i + 2] -= d2;
    } else {
        a->digit[i] += d0;
        a->digit[i + 1] += d1;
        a->digit[i + 2] += d2;
    }
}

uint cr_split(uint u, int *q)
{
    uint e = u >> 23;
    *q = e ? (int)e - 1 : 0;
    return e ? (u & 0x7fffffu) | 0x800000u : u;
}

bool cr_acc_classify(cr_acc *a, bool nan, bool inf, bool zero, bool neg)
{
    a->flags |= CR_ANY;
    if (nan) {
        a->flags |= CR_NAN;
        return false;
    }
    if (inf) {
        a->flags |= neg ? CR_NEG_INF : CR_POS_INF;
        return false;
    }
    if (!(zero && neg))
        a->flags |= CR_NONNEG0;
    return !zero;
}

/* cr.c's, on the factors' bits. */
void cr_acc_add_product(cr_acc *a, uint ux, uint uw)
{
    uint ax = ux & 0x7fffffffu, aw = uw & 0x7fffffffu;
    bool neg = ((ux ^ uw) >> 31) != 0;
    bool inf = ax == 0x7f800000u || aw == 0x7f800000u, zero = ax == 0 || aw == 0;
    bool nan = ax > 0x7f800000u || aw > 0x7f800000u || (inf && zero);
    if (!cr_acc_classify(a, nan, inf, zero, neg))
        return;
    int qx, qw;
    ulong m = (ulong)cr_split(ax, &qx) * (ulong)cr_split(aw, &qw);
    cr_acc_add_scaled(a, m, qx + qw, neg);
}

/* cr.c's, on the float's bits. */
void cr_acc_add(cr_acc *a, uint ub)
{
    uint ab = ub & 0x7fffffffu;
    if (!cr_acc_classify(a, ab > 0x7f800000u, ab == 0x7f800000u, ab == 0, (ub >> 31) != 0))
        return;
    int q;
    uint m = cr_split(ab, &q);
    cr_acc_add_scaled(a, m, q + 149, (ub >> 31) != 0);
}

int cr_msb(uint v)
{
    return 31 - (int)clz(v);
}

/* cr.c's, returning the float's bits; it carries a's digits in place (cr.c rounds a copy). */
uint cr_acc_round(cr_acc *a)
{
    uint f = a->flags;
    if ((f & CR_NAN) || ((f & CR_POS_INF) && (f & CR_NEG_INF)))
        return 0x7fc00000u;
    if (f & (CR_POS_INF | CR_NEG_INF))
        return (f & CR_NEG_INF) ? 0xff800000u : 0x7f800000u;
    long *d = a->digit;
    cr_carry(d);
    uint sign = 0u;
    if (d[CR_DIGITS - 1] < 0) { /* digits 0..18 are in [0, 2^32): digit 19 has the sign */
        for (int i = 0; i < CR_DIGITS; ++i)
            d[i] = -d[i];
        cr_carry(d);
        sign = 0x80000000u;
    }
    int top = CR_DIGITS - 1;
    while (top >= 0 && d[top] == 0)
        --top;
    if (top < 0) /* an exact zero */
        return (f & CR_ANY) && !(f & CR_NONNEG0) ? 0x80000000u : 0u;
    int t = 32 * top + cr_msb((uint)d[top]);
    int q = t - 23 > 149 ? t - 23 : 149;
    /* bits q - 1 .. q + 24 of M (the window's bits above t are 0); i + 1 <= 18 */
    int i = (q - 1) >> 5, sh = (q - 1) & 31;
    ulong win = ((ulong)d[i] >> sh) | ((ulong)d[i + 1] << (32 - sh));
    /* cr.c's half (a type's name in OpenCL C) */
    uint r = (uint)((win >> 1) & 0x1ffffffUL), half_bit = (uint)(win & 1UL);
    bool sticky = ((ulong)d[i] & ((1UL << sh) - 1UL)) != 0;
    for (int j = 0; j < i && !sticky; ++j)
        sticky = d[j] != 0;
    if (half_bit && (sticky || (r & 1u)))
        ++r;
    if (r == 1u << 24) {
        r >>= 1;
        ++q;
    }
    if (r < 1u << 23) /* a subnormal or zero: q = 149 */
        return sign | r;
    uint e = (uint)(q - 148);
    if (e >= 255)
        return sign | 0x7f800000u;
    return sign | e << 23 | (r & 0x7fffffu);
}

/* The activations that the group functions and cr_dot read. In cr_stream and cr_tiles (CR_STREAM)
 * other work-groups of the same launch wrote them: they are read past any cache that is not
 * coherent across compute units (as own_stream.cl's cp_act_rd). */
#ifdef CR_STREAM
typedef volatile __global const uint *cr_x_rd;
#else
typedef __global const uint *cr_x_rd;
#endif

/* cr.c's cr_dot by one work-item (the GEMM's fallback): the products x[k]·w[k], k ascending,
 * then the bias (b NULL: none), rounded once. */
uint cr_dot(cr_x_rd x, __global const uint *w, int n, __global const uint *b)
{
    cr_acc a;
    cr_acc_init(&a);
    for (int k = 0; k < n; ++k)
        cr_acc_add_product(&a, x[k], w[k]);
    if (b)
        cr_acc_add(&a, *b);
    return cr_acc_round(&a);
}

/* ---- the activation and the residual (cr.c, 8) ---------------------------------------------- */

#ifdef CR_NO_DENORM
/* DESIGN's ReLU, (v <= 0) ? +0 : v, on the bits: a subnormal v must not be read as 0. NaN
 * passes, -0 and every negative become +0. */
uint cp_relu(uint v)
{
    return (v & 0x7fffffffu) > 0x7f800000u ? v : (v >> 31) || v == 0u ? 0u : v;
}

/* act, then the residual as RN(x_o + r) through the accumulator: the exact sum of two terms
 * rounded once is IEEE's sum (an exact zero +0 unless both are -0, inf - inf NaN). */
uint cr_epilogue(uint v, int flags, uint x_o)
{
    uint r = (flags & 2) ? cp_relu(v) : v;
    if (!(flags & 4))
        return r;
    cr_acc a;
    cr_acc_init(&a);
    cr_acc_add(&a, x_o);
    cr_acc_add(&a, r);
    return cr_acc_round(&a);
}
#else
float cp_relu(float v)
{
    return (v <= 0.0f) ? 0.0f : v;
}

/* flags as cl:own's: 2 ReLU, 4 residual; one float add (FP_CONTRACT OFF). */
uint cr_epilogue(uint v, int flags, uint x_o)
{
    float r = (flags & 2) ? cp_relu(as_float(v)) : as_float(v);
    return as_uint((flags & 4) ? as_float(x_o) + r : r);
}
#endif

/* The residual's input x[o], read only where the layer has a residual (then in = out; o may
 * be past the row's end otherwise). */
#define CR_XO(xr, o, flags) (((flags) & 4) ? (xr)[o] : 0u)

/* ---- the certified double path (cr.c, 2-4) -------------------------------------------------- */

#ifdef CR_F64
/* A float's exact double. Where the device flushes float denormals, from its bits: the sign,
 * a normal's exponent and fraction moved to double's fields, a subnormal's m · 2^-149 (a double
 * product, exact), infinities and NaNs kept. */
double cr_f2d(uint u)
{
#ifdef CR_NO_DENORM
    uint a = u & 0x7fffffffu, e = a >> 23;
    double mag;
    if (e == 255u)
        mag = as_double(0x7ff0000000000000UL | (ulong)(a & 0x7fffffu) << 29);
    else if (e)
        mag = as_double((ulong)(e + 896u) << 52 | (ulong)(a & 0x7fffffu) << 29);
    else
        mag = (double)a * 0x1p-149;
    return (u >> 31) ? -mag : mag;
#else
    return (double)as_float(u);
#endif
}

/* cr.c's cr_certify on the bits of *v. Where the device flushes float denormals, only
 * |s| >= 2^-125 is certified: r and its neighbours are then normal floats, whose conversions
 * no flush can touch. */
bool cr_certify(double s, double err, uint *v)
{
    double a = fabs(s);
    if (!(a < 0x1p127)) /* also NaN */
        return false;
#ifdef CR_NO_DENORM
    if (!(a >= 0x1p-125))
        return false;
#endif
    float r = convert_float_rte(a);
    uint u = as_uint(r);
    if (u == 0u)
        return false;
    double mid_lo = ((double)r + (double)as_float(u - 1u)) * 0.5;
    double mid_hi = ((double)r + (double)as_float(u + 1u)) * 0.5;
    if (!(a - mid_lo > err && mid_hi - a > err))
        return false;
    *v = s < 0.0 ? u | 0x80000000u : u;
    return true;
}

/* The certificate for an output of a row: s its products' double sum, xx the row's sum of
 * squares, wn the bits of the output's |W_o|_2 and bias its bias's (0 without); the bias added in
 * double (one more rounding, cr.c, 2), as cr.c's cr_output. */
bool cr_output(double s, double xx, ulong wn, uint bias, double scale, uint *v)
{
    double b = cr_f2d(bias); /* 0u where the layer has no bias: + 0.0, as cr.c adds */
    return cr_certify(s + b, scale * (sqrt(xx) * as_double(wn) + fabs(b)), v);
}

/* The second certificate, for an output whose first failed, before the exact accumulator: on a
 * GPU the first fails for about 6e-5 of the outputs at d = 128 and 4e-3 at d = 4096 (random
 * operands; its bound grows with n · |x| · |W_o|), and one output summed by cr_dot holds a
 * work-item for tens of µs (docs/PERFORMANCE.md). Ogita, Rump and Oishi's Sum2 (Accurate sum and
 * dot product, SIAM J. Sci. Comput. 26(6), 2005, Algorithm 4.4, Proposition 4.5) over the N =
 * n + 1 terms, the bias, then p_k = x[k]·w[k] for k ascending (each exact in double: cr.c, 1):
 * TwoSum keeps each addition's error q exactly and the errors are summed in double, res = s +
 * sum q. Then |res - S| <= u·|S| + gamma_(N-1)^2 · sum|p| (u = 2^-53), so with A the computed
 * sum of |p| (sum|p| <= A / (1 - gamma_N)) and N·u <= 2^-26 (N <= 2^26 + 1, the host's limit):
 * |res - S| <= (u·|res| + gamma_(N-1)^2 · A / (1 - gamma_N)) / (1 - u)
 *          <= 1.000001 · (u·|res| + (N·u)^2 · A) < 2^-52·|res| + 2·(N·u)^2·A,
 * the last even as computed (its few roundings are each a factor 1 + u). Every term, partial sum
 * and error is an integer multiple of 2^-298 (a product of two floats' units) below 2^283: no
 * underflow or overflow, so each TwoSum is exact. NaN or infinity makes res NaN: it fails, and
 * the caller's exact sum decides. cr_certify then rounds res once, or declines. Its callers are
 * whole work-groups (cr_gemm_tile's, cr_block_finish's): the same res, err and answer in every
 * work-item. */
bool cr_dot2(cr_x_rd x, __global const uint *w, int n, __global const uint *b, uint *v,
             __local double *ls, int tid, int G)
{
    /* The group's G work-items (a power of two; ls: 3 · G doubles): t sums k = t, t + G, ... by TwoSum (the bias by
     * work-item 0), then the partial sums meet in a binary tree, again by TwoSum, their errors
     * and the sums of |p| added. Every TwoSum is exact, so S = s + (the sum of every error q)
     * whatever the tree, and the proof above holds as it is for any tree: each computed partial
     * sum is bounded by (1 + gamma) times its terms' sum of |p|, so sum|q| <= gamma_(N-1) ·
     * sum|p|, and the errors' double sum (any tree) is within gamma_(N-2) · sum|q| of theirs. */
    double s = (tid == 0 && b) ? cr_f2d(*b) : 0.0, e = 0.0, a = fabs(s);
    for (int k = tid; k < n; k += G) {
        double p = cr_f2d(x[k]) * cr_f2d(w[k]);
        double t = s + p, bp = t - s;
        e = e + ((s - (t - bp)) + (p - bp));
        s = t;
        a = a + fabs(p);
    }
    ls[tid] = s;
    ls[G + tid] = e;
    ls[2 * G + tid] = a;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = G / 2; h > 0; h >>= 1) {
        if (tid < h) {
            double s1 = ls[tid], s2 = ls[tid + h];
            double t = s1 + s2, bp = t - s1;
            ls[tid] = t;
            ls[G + tid] = (ls[G + tid] + ls[G + tid + h]) + ((s1 - (t - bp)) + (s2 - bp));
            ls[2 * G + tid] = ls[2 * G + tid] + ls[2 * G + tid + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    double res = ls[0] + ls[G], nu = (double)(n + 1) * 0x1p-53, err = 0x1p-52 * fabs(res) +
                                                                   2.0 * (nu * nu) * ls[2 * G];
    barrier(CLK_LOCAL_MEM_FENCE); /* ls is read by all before it is written again */
    return cr_certify(res, err, v);
}

/* Rows 0 .. R - 1 of ls (each CR_WG doubles, one per work-item) summed in a binary tree; row r's
 * sum is left in ls[r * CR_WG]. */
void cr_group_sums(__local double *ls, int R)
{
    const int lid = (int)get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = CR_WG / 2; h > 0; h >>= 1) {
        if (lid < h)
            for (int r = 0; r < R; ++r)
                ls[r * CR_WG + lid] = ls[r * CR_WG + lid] + ls[r * CR_WG + lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif

#ifndef CR_TRAIN /* the layers' kernels; CR_TRAIN builds the training kernels alone */

/* ---- a work-group's exact sum ------------------------------------------------------------- */


/* The work-group's accumulators (each work-item's a) summed in a binary tree in local memory,
 * digit by digit and flag by flag: the sum's digits are left in ld[0 .. CR_DIGITS - 1], its
 * flags in lf[0]. */
void cr_group_tree(const cr_acc *a, __local long *ld, __local uint *lf)
{
    const int lid = (int)get_local_id(0);
    for (int i = 0; i < CR_DIGITS; ++i)
        ld[lid * CR_DIGITS + i] = a->digit[i];
    lf[lid] = a->flags;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = CR_WG / 2; h > 0; h >>= 1) {
        if (lid < h) {
            for (int i = 0; i < CR_DIGITS; ++i)
                ld[lid * CR_DIGITS + i] += ld[(lid + h) * CR_DIGITS + i];
            lf[lid] |= lf[lid + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* cr_group_tree, then the sum rounded: the result in *res for every work-item. */
uint cr_group_round(cr_acc *a, __local long *ld, __local uint *lf, __local uint *res)
{
    const int lid = (int)get_local_id(0);
    cr_group_tree(a, ld, lf);
    if (lid == 0) {
        for (int i = 0; i < CR_DIGITS; ++i)
            a->digit[i] = ld[i];
        a->flags = lf[0];
        *res = cr_acc_round(a);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *res;
}

/* RN(sum_k x[k]·w[k] + *b) (b NULL: no bias) by the whole work-group, k split over its
 * work-items (every work-item calls it): each accumulates its slice exactly, then
 * cr_group_round. */
uint cr_group_dot(cr_x_rd x, __global const uint *w, int n, __global const uint *b,
                  __local long *ld, __local uint *lf, __local uint *res)
{
    const int lid = (int)get_local_id(0);
    cr_acc a;
    cr_acc_init(&a);
    for (int k = lid; k < n; k += CR_WG)
        cr_acc_add_product(&a, x[k], w[k]);
    if (b && lid == 0)
        cr_acc_add(&a, *b);
    return cr_group_round(&a, ld, lf, res);
}

/* ---- a block of outputs of one row ------------------------------------------------------- */

#ifdef CR_F64
/* The double sums of the block of outputs o0 .. o0 + CR_OB - 1 over k in [k0, k1) (each
 * work-item its slice: k0 + its index, then every CR_WG-th) and of the row's squares, reduced
 * in a tree in local memory: output j's sum is left at ls[j * CR_WG], the squares' at
 * ls[CR_OB * CR_WG]. Past the layer's end a block sums its last output again, unused. */
void cr_block_sums(cr_x_rd xr, __global const uint *w, int in, int out, int o0,
                   int k0, int k1, __local double *ls)
{
    const int lid = (int)get_local_id(0);
    double acc[CR_OB], xx = 0.0;
    __global const uint *wr[CR_OB];
    for (int j = 0; j < CR_OB; ++j) {
        acc[j] = 0.0;
        wr[j] = w + (size_t)min(o0 + j, out - 1) * (size_t)in;
    }
    int k = k0 + lid;
    /* CR_KU of the work-item's k at a time: every load of the CR_KU issued before the first
     * fma, so that one memory latency covers them (one per k, issued one after another, left
     * the kernel waiting a latency per k: issue 34); the fmas in the same order as below */
    for (; k + (CR_KU - 1) * CR_WG < k1; k += CR_KU * CR_WG) {
        uint xu[CR_KU], wu[CR_OB][CR_KU];
        for (int u = 0; u < CR_KU; ++u)
            xu[u] = xr[k + u * CR_WG];
        for (int j = 0; j < CR_OB; ++j)
            for (int u = 0; u < CR_KU; ++u)
                wu[j][u] = wr[j][k + u * CR_WG];
        for (int u = 0; u < CR_KU; ++u) {
            double xk = cr_f2d(xu[u]);
            xx = fma(xk, xk, xx);
            for (int j = 0; j < CR_OB; ++j)
                acc[j] = fma(xk, cr_f2d(wu[j][u]), acc[j]);
        }
    }
    if (k < k1) { /* the rest, fewer than CR_KU k: their loads issued together too */
        uint xu[CR_KU], wu[CR_OB][CR_KU];
        for (int u = 0; u < CR_KU; ++u) {
            const bool in_range = k + u * CR_WG < k1;
            xu[u] = in_range ? xr[k + u * CR_WG] : 0u;
            for (int j = 0; j < CR_OB; ++j)
                wu[j][u] = in_range ? wr[j][k + u * CR_WG] : 0u;
        }
        for (int u = 0; u < CR_KU && k + u * CR_WG < k1; ++u) {
            double xk = cr_f2d(xu[u]);
            xx = fma(xk, xk, xx);
            for (int j = 0; j < CR_OB; ++j)
                acc[j] = fma(xk, cr_f2d(wu[j][u]), acc[j]);
        }
    }
    for (int j = 0; j < CR_OB; ++j)
        ls[j * CR_WG + lid] = acc[j];
    ls[CR_OB * CR_WG + lid] = xx;
    cr_group_sums(ls, CR_OB + 1);
}
#endif

/* What the certificate of output o0 + lid needs besides the sums, for work-item lid < CR_OB (an
 * output of the layer): its |W_o|_2's bits, its bias's (0 without) and the residual's x[o].
 * Loaded before the sums, so that their latency is the sums' and not one more after the tree. */
typedef struct cr_pre {
    ulong wn;
    uint b, xo;
} cr_pre;

cr_pre cr_block_pre(cr_x_rd xr, __global const ulong *wnorm, __global const uint *bias, int out,
                    int o0, int flags)
{
    const int lid = (int)get_local_id(0), o = o0 + lid;
    cr_pre pre = {0UL, 0u, 0u};
#ifdef CR_F64
    if (lid < CR_OB && o < out) {
        pre.wn = wnorm[o];
        pre.b = bias ? bias[o] : 0u;
        pre.xo = CR_XO(xr, o, flags);
    }
#else
    (void)xr;
    (void)wnorm;
    (void)bias;
    (void)out;
    (void)o0;
    (void)flags;
#endif
    return pre;
}

/* The block's outputs into the output row yr: with CR_F64, work-item j < CR_OB certifies output
 * o0 + j from s, its products' double sum, and xx, the row's sum of squares, and stores it
 * where the certificate holds; then the whole group sums exactly each output whose certificate
 * failed (every output without CR_F64: s and xx are unused). flags and scale as the kernels
 * take them; pre: work-item j's cr_block_pre for output o0 + j, loaded
 * before the sums; row0: the block is in row 0 (the test hook's); fail: CR_OB ints of local
 * memory. Every work-item calls it. */
void cr_block_finish(cr_x_rd xr, __global const uint *w, __global const uint *bias,
                     int in, int out, int o0, int flags, ulong scale, cr_pre pre, CR_REAL s,
                     CR_REAL xx, __global uint *yr, bool row0, __local int *fail,
                     __local long *ld, __local uint *lf, __local uint *res)
{
    const int lid = (int)get_local_id(0);
#ifdef CR_F64
    if (lid < CR_OB && o0 + lid < out) {
        int o = o0 + lid;
        uint v;
        fail[lid] = !cr_output(s, xx, pre.wn, pre.b, as_double(scale), &v);
#ifdef CR_CERT2_ONLY /* test hook corrupt-cl-cr:second: every output to the second certificate */
        fail[lid] = 1;
#endif
        if (!fail[lid])
            yr[o] = CP_PLANT(cr_epilogue(v, flags, pre.xo), row0 && o == 0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    (void)pre;
    (void)scale;
    (void)s;
    (void)xx;
    (void)fail;
#endif
    for (int j = 0; j < CR_OB && o0 + j < out; ++j) {
#ifdef CR_F64
        if (!fail[j]) /* the same for every work-item: the group stays together */
            continue;
#endif
        int o = o0 + j;
        __global const uint *wo = w + (size_t)o * (size_t)in, *bo = bias ? bias + o : 0;
        uint v;
#ifdef CR_F64 /* the second certificate first, in ld's room (CR_WG · CR_DIGITS longs) */
        if (!cr_dot2(xr, wo, in, bo, &v, (__local double *)ld, lid, CR_WG))
#endif
            v = cr_group_dot(xr, wo, in, bo, ld, lf, res);
        if (lid == 0)
            yr[o] = CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), row0 && o == 0);
    }
}

/* A block's whole work, as cr_gemv and cr_stream do it: its double sums (with CR_F64), then
 * cr_block_finish. Every work-item calls it. */
void cr_block(cr_x_rd xr, __global const uint *w, __global const uint *bias, int in, int out,
              int o0, int flags, __global const ulong *wnorm, ulong scale, __global uint *yr,
              bool row0, __local int *fail, __local long *ld, __local uint *lf, __local uint *res,
              __local CR_REAL *ls)
{
    CR_REAL s = 0, xx = 0;
    const cr_pre pre = cr_block_pre(xr, wnorm, bias, out, o0, flags);
#ifdef CR_F64
    cr_block_sums(xr, w, in, out, o0, 0, in, ls);
    if ((int)get_local_id(0) < CR_OB)
        s = ls[(int)get_local_id(0) * CR_WG];
    xx = ls[CR_OB * CR_WG];
#else
    (void)ls;
#endif
    cr_block_finish(xr, w, bias, in, out, o0, flags, scale, pre, s, xx, yr, row0, fail, ld, lf,
                    res);
}

/* ---- the kernels -------------------------------------------------------------------------- */

/* The layer's arguments, as every kernel takes them: x [batch][in] and y [batch][out] (floats
 * read and written as bits), p the buffer of the weights as stored (W [out][in] from w_off, the
 * bias from b_off), flags as cl:own's (1 bias, 2 ReLU, 4 residual), wnorm each output's |W_o|_2
 * (doubles' bits, from wn_off; unused without CR_F64) and scale the bound's factor
 * cr_err_scale(in) (a double's bits: a device without fp64 takes no double argument). */
#define CR_LAYER_ARGS                                                                              \
    __global const uint *restrict x, __global uint *restrict y, __global const uint *restrict p,  \
        ulong w_off, ulong b_off, int in, int out, int flags,                                      \
        __global const ulong *restrict wnorm, ulong wn_off, ulong scale

/* (a) A work-group per (row, block of CR_OB outputs); k split over its work-items, the partial
 * sums (and the row's sum of squares) reduced in a tree in local memory; the certificate for
 * each output; the outputs it fails (all of them without CR_F64) summed exactly by the whole
 * group. ld and lf: CR_WG × CR_DIGITS longs and CR_WG uints; ls: (CR_OB + 1) × CR_WG doubles. */
#if !defined(CP_KERNELS) || defined(CP_K_cr_gemv)
__kernel __attribute__((reqd_work_group_size(CR_WG, 1, 1))) void
cr_gemv(CR_LAYER_ARGS, __local long *ld, __local uint *lf, __local CR_REAL *ls)
{
    __local uint res;
    __local int fail[CR_OB];
    const size_t row = get_global_id(1);
    cr_block(x + row * (size_t)in, p + w_off, (flags & 1) ? p + b_off : 0, in, out,
             (int)get_group_id(0) * CR_OB, flags, wnorm + wn_off, scale, y + row * (size_t)out,
             row == 0, fail, ld, lf, &res, ls);
}
#endif

/* (b) Split k: cr_split_part gives the sums of `split` ranges of k, a work-group for each
 * (row, block of CR_OB outputs, range): with CR_F64 each output's double sum into part
 * [row][o][range] and the row's sum of squares into xpart [row][range] (by the groups of the
 * first block); without, each output's exact accumulator (its CR_DIGITS digits into part, its
 * flags into pflags). cr_split_finish, a launch later, adds the ranges (in any order: the proof
 * covers any tree), certifies, and sums exactly, by the whole group, each output whose
 * certificate fails; without CR_F64 it adds the ranges' digits and rounds. */
#if !defined(CP_KERNELS) || defined(CP_K_cr_split_part)
__kernel __attribute__((reqd_work_group_size(CR_WG, 1, 1))) void
cr_split_part(CR_LAYER_ARGS, int split, __global CR_REAL *restrict part,
              __global uint *restrict pflags, __global CR_REAL *restrict xpart, __local long *ld,
              __local uint *lf, __local CR_REAL *ls)
{
    const int lid = (int)get_local_id(0);
    const int o0 = (int)get_group_id(0) * CR_OB, r = (int)get_global_id(1);
    const size_t row = get_global_id(2);
    const int k0 = (int)((long)in * r / split), k1 = (int)((long)in * (r + 1) / split);
    __global const uint *xr = x + row * (size_t)in;
    __global const uint *w = p + w_off;
    (void)y;
    (void)b_off;
    (void)flags;
    (void)wnorm;
    (void)wn_off;
    (void)scale;
#ifdef CR_F64
    (void)pflags;
    (void)ld;
    (void)lf;
    cr_block_sums(xr, w, in, out, o0, k0, k1, ls);
    if (lid < CR_OB && o0 + lid < out)
        part[(row * (size_t)out + (size_t)(o0 + lid)) * (size_t)split + (size_t)r] =
            ls[lid * CR_WG];
    if (lid == CR_OB && o0 == 0)
        xpart[row * (size_t)split + (size_t)r] = ls[CR_OB * CR_WG];
#else
    (void)xpart;
    (void)ls;
    for (int j = 0; j < CR_OB && o0 + j < out; ++j) {
        __global const uint *wr = w + (size_t)(o0 + j) * (size_t)in;
        cr_acc a;
        cr_acc_init(&a);
        for (int k = k0 + lid; k < k1; k += CR_WG)
            cr_acc_add_product(&a, xr[k], wr[k]);
        cr_group_tree(&a, ld, lf); /* not rounded: the range's digits go out as they are */
        size_t at = (row * (size_t)out + (size_t)(o0 + j)) * (size_t)split + (size_t)r;
        for (int i = lid; i < CR_DIGITS; i += CR_WG)
            part[at * CR_DIGITS + (size_t)i] = ld[i];
        if (lid == 0)
            pflags[at] = lf[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
}
#endif

#if !defined(CP_KERNELS) || defined(CP_K_cr_split_finish)
__kernel __attribute__((reqd_work_group_size(CR_WG, 1, 1))) void
cr_split_finish(CR_LAYER_ARGS, int split, __global const CR_REAL *restrict part,
                __global const uint *restrict pflags, __global const CR_REAL *restrict xpart,
                __local long *ld, __local uint *lf, __local CR_REAL *ls)
{
    __local uint res;
    __local int fail[CR_OB];
    const int lid = (int)get_local_id(0);
    const int o0 = (int)get_group_id(0) * CR_OB;
    const size_t row = get_global_id(1);
    __global const uint *xr = x + row * (size_t)in;
    __global const uint *w = p + w_off;
    __global const uint *bias = (flags & 1) ? p + b_off : 0;
    __global uint *yr = y + row * (size_t)out;
    (void)ls;
#ifdef CR_F64
    (void)pflags;
    double s = 0.0, xx = 0.0;
    if (lid < CR_OB && o0 + lid < out) {
        __global const double *pr = part + (row * (size_t)out + (size_t)(o0 + lid)) * (size_t)split;
        for (int r = 0; r < split; ++r) {
            s = s + pr[r];
            xx = xx + xpart[row * (size_t)split + (size_t)r];
        }
    }
    cr_block_finish(xr, w, bias, in, out, o0, flags, scale,
                    cr_block_pre(xr, wnorm + wn_off, bias, out, o0, flags), s, xx, yr, row == 0,
                    fail, ld, lf, &res);
#else
    (void)w;
    (void)wnorm;
    (void)wn_off;
    (void)scale;
    (void)xpart;
    (void)ld;
    (void)lf;
    (void)res;
    (void)fail;
    if (lid < CR_OB && o0 + lid < out) {
        int o = o0 + lid;
        size_t at = (row * (size_t)out + (size_t)o) * (size_t)split;
        cr_acc a;
        cr_acc_init(&a);
        for (int r = 0; r < split; ++r) {
            for (int i = 0; i < CR_DIGITS; ++i)
                a.digit[i] += part[(at + (size_t)r) * CR_DIGITS + (size_t)i];
            a.flags |= pflags[at + (size_t)r];
        }
        if (bias)
            cr_acc_add(&a, bias[o]);
        uint v = cr_acc_round(&a);
        yr[o] = CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), row == 0 && o == 0);
    }
#endif
}
#endif

/* (c) The register-blocked GEMM for large batches: a work-group of CR_LX × CR_LY work-items per
 * tile of CR_TM rows × CR_TN outputs, each work-item CR_RM rows × CR_RN outputs (strided by CR_LY
 * and CR_LX) in CR_RM · CR_RN double accumulators (4 × 4: 8 × 8 was slower on the H200,
 * docs/PERFORMANCE.md); CR_TK-deep tiles of x and W through local memory as
 * doubles (converted once, by cr_f2d, as they are loaded; stored k-major, xs and ws: CR_TK × CR_TP,
 * so that a work-item's operands for one k are CR_LY or CR_LX apart). The padding
 * is zeros in both tiles (0 · 0 adds nothing exactly; a padded row or output is never stored).
 *
 * The rows' sums of squares are inside it (no second launch): work-item t < CR_TM sums the squares
 * of the tile's row t from the x tiles already in local memory, k ascending from 0.0 (each square
 * of a float is exact in double, so each fma is one rounded addition: cr.c, 3, any order), and
 * leaves it in xq [CR_TM] for the certificates. Each output's sum is one work-item's chain of fma
 * from 0.0 over k ascending, the padding's zeros exact: a summation tree of the n = in + 1 terms
 * with at most n - 1 rounded additions per term, inside the bound of this file's header (at
 * rm <= 2, CR_TILED, a chain per tile of k and the tiles' sums added: fewer, the host's
 * cr_sum_depth). Each
 * work-item certifies its outputs; the ones that fail go to the whole group's second
 * certificate (cr_dot2), then, where that fails too, to the exact sum (cr_dot). Without CR_F64
 * each of its outputs goes through cr_dot (xs, ws, xq unused). */
#define CR_NT (CR_LX * CR_LY)
#define CR_TILED (CR_RM <= 2) /* the tiles' sums kept apart (cr_gemm_tile); the host's too */
#define CR_XL ((CR_TM * CR_TK + CR_NT - 1) / CR_NT) /* a tile's elements per work-item */

/* The bits of the tile of depth CR_TK from k0 (x's rows m0 .., W's outputs n0 ..; CR_TM = CR_TN)
 * that work-item tid stores: element e = tid + i · CR_NT into xn[i] and wn[i], zero past the
 * batch, the layer's outputs or in. */
void cr_gemm_fetch(cr_x_rd x, __global const uint *w, int in, int out, int batch, int m0, int n0,
                   int k0, int tid, uint *xn, uint *wn)
{
    for (int i = 0; i < CR_XL; ++i) {
        const int e = tid + i * CR_NT, r = e / CR_TK, kk = k0 + e % CR_TK;
        const bool inside = CR_TM * CR_TK % CR_NT == 0 || e < CR_TM * CR_TK;
        xn[i] = inside && m0 + r < batch && kk < in ? x[(size_t)(m0 + r) * (size_t)in + (size_t)kk]
                                                    : 0u;
        wn[i] = inside && n0 + r < out && kk < in ? w[(size_t)(n0 + r) * (size_t)in + (size_t)kk]
                                                  : 0u;
    }
}

/* The outputs of work-item (tx, ty) of a tile at (m0, n0) marked in fails (bit i · CR_RN + j:
 * row i, output j of its CR_RM × CR_RN), each summed exactly by the work-item alone (cr_dot),
 * with its activation and residual: one call of cr_dot in a loop. */
void cr_tile_exact(cr_x_rd x, __global uint *y, __global const uint *w, __global const uint *bias,
                   int in, int out, int flags, int m0, int n0, int tx, int ty, ulong fails)
{
    for (; fails; fails &= fails - 1) {
        const int b = 63 - (int)clz(fails & (~fails + 1)); /* the lowest bit set */
        const int m = m0 + ty + (b / CR_RN) * CR_LY, o = n0 + tx + (b % CR_RN) * CR_LX;
        cr_x_rd xr = x + (size_t)m * (size_t)in;
        uint v = cr_dot(xr, w + (size_t)o * (size_t)in, in, bias ? bias + o : 0);
        y[(size_t)m * (size_t)out + (size_t)o] =
            CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), m == 0 && o == 0);
    }
}

/* One tile of cr_gemm's: rows m0 .. m0 + CR_TM - 1 and outputs n0 .. n0 + CR_TN - 1 of the layer
 * (wnorm: its outputs' norms; scale: the bound's factor's bits), by the work-item (tx, ty) of
 * CR_LX × CR_LY; every work-item of the group calls it. slot: CR_LX · CR_LY + 1 ints of local
 * memory (the failed outputs' rounds, and a flag). */
void cr_gemm_tile(cr_x_rd x, __global uint *y, __global const uint *w, __global const uint *bias,
                  int in, int out, int flags, __global const ulong *wnorm, ulong scale, int batch,
                  int m0, int n0, int tx, int ty, __local CR_REAL *xs, __local CR_REAL *ws,
                  __local CR_REAL *xq, __local CR_REAL *ls2, __local int *slot)
{
#ifdef CR_F64
    const int tid = ty * CR_LX + tx;
    /* acc: each output's chain of fma from 0.0, over every k (CR_TILED 0), or over the tile of k
     * in hand, the tiles' sums then added one after another to tot from 0.0 (CR_TILED 1: the
     * bound's depth is then about tk + in / tk, cr_bound.c's cr_sum_depth; twice the
     * accumulators, so only up to rm = 2: at rm = 4 the H200 ran d=4096 B=4096 25 % slower) */
    double acc[CR_RM][CR_RN], tot[CR_RM][CR_RN], sq = 0.0;
    for (int i = 0; i < CR_RM; ++i)
        for (int j = 0; j < CR_RN; ++j)
            acc[i][j] = tot[i][j] = 0.0;
    /* The certificates' operands of the work-item's outputs, loaded before the products (their
     * latency is then theirs): each output's |W_o|_2 and bias (0 past the layer's end, unused). */
    ulong wno[CR_RN];
    uint bno[CR_RN];
    for (int j = 0; j < CR_RN; ++j) {
        const int o = n0 + tx + j * CR_LX;
        wno[j] = o < out ? wnorm[o] : 0UL;
        bno[j] = o < out && bias ? bias[o] : 0u;
    }
    /* The next tile's operands are loaded into registers (xn, wn: element e = tid + i · CR_NT of
     * the tile, row or output e / CR_TK, k e % CR_TK) while the current one's fmas run, every
     * load of a tile issued before the first of them is used: one memory latency per tile, and
     * that one hidden behind the products (issue 34; as cl:own's tiles, train_tile.cl). The
     * values and the order of every fma are as they were. */
    uint xn[CR_XL], wn[CR_XL];
    cr_gemm_fetch(x, w, in, out, batch, m0, n0, 0, tid, xn, wn);
    for (int k0 = 0; k0 < in; k0 += CR_TK) {
        for (int i = 0; i < CR_XL; ++i) {
            const int e = tid + i * CR_NT;
            if (CR_TM * CR_TK % CR_NT == 0 || e < CR_TM * CR_TK) {
                xs[(e % CR_TK) * CR_TP + e / CR_TK] = cr_f2d(xn[i]);
                ws[(e % CR_TK) * CR_TP + e / CR_TK] = cr_f2d(wn[i]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (k0 == 0 && tid == 0) /* the previous tile's readers are past the barrier above */
            slot[CR_NT] = 0;
        if (k0 + CR_TK < in)
            cr_gemm_fetch(x, w, in, out, batch, m0, n0, k0 + CR_TK, tid, xn, wn);
        if (tid < CR_TM)
            for (int kk = 0; kk < CR_TK; ++kk) {
                double xk = xs[kk * CR_TP + tid];
                sq = fma(xk, xk, sq);
            }
        if (CR_TILED)
            for (int i = 0; i < CR_RM; ++i)
                for (int j = 0; j < CR_RN; ++j)
                    acc[i][j] = 0.0;
        for (int kk = 0; kk < CR_TK; ++kk) {
            double xv[CR_RM], wv[CR_RN];
            for (int i = 0; i < CR_RM; ++i)
                xv[i] = xs[kk * CR_TP + ty + i * CR_LY];
            for (int j = 0; j < CR_RN; ++j)
                wv[j] = ws[kk * CR_TP + tx + j * CR_LX];
            for (int i = 0; i < CR_RM; ++i)
                for (int j = 0; j < CR_RN; ++j)
                    acc[i][j] = fma(xv[i], wv[j], acc[i][j]);
        }
        if (CR_TILED)
            for (int i = 0; i < CR_RM; ++i)
                for (int j = 0; j < CR_RN; ++j)
                    tot[i][j] = tot[i][j] + acc[i][j];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid < CR_TM)
        xq[tid] = sq;
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    (void)wnorm;
    (void)scale;
    (void)xs;
    (void)ws;
    (void)xq;
#endif
    /* The certified outputs are stored here; the others (every one without CR_F64, or with the
     * test hook's CR_CERT2_ONLY) are marked in fails, bit i · CR_RN + j, and summed below one at
     * a time, by the second certificate (cr_dot2), else exactly (cr_dot): one call of each in
     * a loop, not CR_RM · CR_RN inlined copies beside the accumulators. */
    ulong fails = 0;
    for (int i = 0; i < CR_RM; ++i) {
        int m = m0 + ty + i * CR_LY;
        if (m >= batch)
            break;
        for (int j = 0; j < CR_RN; ++j) {
            int o = n0 + tx + j * CR_LX;
            if (o >= out)
                break;
#if defined(CR_F64) && !defined(CR_CERT2_ONLY)
            uint v;
            cr_x_rd xr = x + (size_t)m * (size_t)in;
            if (cr_output(CR_TILED ? tot[i][j] : acc[i][j], xq[ty + i * CR_LY], wno[j], bno[j],
                          as_double(scale), &v))
                y[(size_t)m * (size_t)out + (size_t)o] =
                    CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), m == 0 && o == 0);
            else
#endif
                fails |= (ulong)1 << (i * CR_RN + j);
        }
    }
#ifdef CR_F64
    /* The failed outputs by the whole group, in rounds: each work-item shows its lowest in
     * slot[tid] (bit index, or -1), and the group sums each shown one with cr_dot2 (the same
     * slot values in every work-item, so every barrier is reached by all), work-item 0 storing
     * it, from cr_dot where the second certificate fails too; until a round shows none. Where
     * no output of the tile failed (slot[CR_NT], set by any that did, is 0), none: the rounds'
     * scan of every slot costs a tile more than its certificates. */
    const int me = ty * CR_LX + tx;
    if (fails)
        atomic_or(&slot[CR_NT], 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (bool some = slot[CR_NT] != 0; some;) {
        slot[me] = fails ? 63 - (int)clz(fails & (~fails + 1)) : -1;
        barrier(CLK_LOCAL_MEM_FENCE);
        bool any = false;
        for (int i = 0; i < CR_LX * CR_LY; ++i) {
            const int b = slot[i];
            if (b < 0)
                continue;
            any = true;
            const int m = m0 + i / CR_LX + (b / CR_RN) * CR_LY;
            const int o = n0 + i % CR_LX + (b % CR_RN) * CR_LX;
            cr_x_rd xr = x + (size_t)m * (size_t)in;
            __global const uint *wo = w + (size_t)o * (size_t)in, *bo = bias ? bias + o : 0;
            uint v;
            bool ok = cr_dot2(xr, wo, in, bo, &v, ls2, me, CR_LX * CR_LY);
            if (me == 0) {
                if (!ok)
                    v = cr_dot(xr, wo, in, bo);
                y[(size_t)m * (size_t)out + (size_t)o] =
                    CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), m == 0 && o == 0);
            }
        }
        fails &= fails - 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        some = any;
    }
#else
    (void)ls2;
    (void)slot;
    cr_tile_exact(x, y, w, bias, in, out, flags, m0, n0, tx, ty, fails);
#endif
}

/* The tiled kernels' names and the function that does a tile: cr_gemm and cr_tiles with
 * cr_gemm_tile here; cr_f32.cl, which includes this file, names its own (cr_f32_tiles with
 * cr_f32_tile, the float32-only method's tile, which takes cr_gemm_tile's arguments and is
 * defined there) and no CR_GEMM_NAME: its kernel of a launch per layer is its own. */
#ifndef CR_GEMM_TILE
#define CR_GEMM_NAME cr_gemm
#define CR_TILES_NAME cr_tiles
#define CR_GEMM_TILE cr_gemm_tile
/* each kernel kept unless the host names others (-DCP_KERNELS, cp_program_keep) */
#if !defined(CP_KERNELS) || defined(CP_K_cr_gemm)
#define CR_GEMM_KEEP
#endif
#if !defined(CP_KERNELS) || defined(CP_K_cr_tiles)
#define CR_TILES_KEEP
#endif
#else
void CR_GEMM_TILE(cr_x_rd x, __global uint *y, __global const uint *w, __global const uint *bias,
                  int in, int out, int flags, __global const ulong *wnorm, ulong scale, int batch,
                  int m0, int n0, int tx, int ty, __local CR_REAL *xs, __local CR_REAL *ws,
                  __local CR_REAL *xq, __local CR_REAL *ls2, __local int *slot);
#endif

#ifdef CR_GEMM_NAME
#ifdef CR_GEMM_KEEP
__kernel __attribute__((reqd_work_group_size(CR_LX, CR_LY, 1))) void
CR_GEMM_NAME(CR_LAYER_ARGS, int batch, __local CR_REAL *xs, __local CR_REAL *ws,
             __local CR_REAL *xq)
{
    __local CR_REAL ls2[3 * CR_LX * CR_LY];
    __local int slot[CR_LX * CR_LY + 1]; /* cr_gemm_tile's slots, and its flag */
    CR_GEMM_TILE(x, y, p + w_off, (flags & 1) ? p + b_off : 0, in, out, flags, wnorm + wn_off,
                 scale, batch, (int)get_group_id(1) * CR_TM, (int)get_group_id(0) * CR_TN,
                 (int)get_local_id(0), (int)get_local_id(1), xs, ws, xq, ls2, slot);
}
#endif
#endif

/* (d) CPUs (PoCL): a work-item per block of CR_RB rows × CR_VW outputs, in work-groups of one
 * (no local memory, no barrier), over the layer's packed weights wp: Wp[o / CR_VW][k][o % CR_VW]
 * (outputs past the layer's end zero; the bias is read where it is stored). Each row's CR_VW sums go
 * in a double vector, k ascending, with the row's sum of squares beside them; each output is
 * then certified, or summed exactly alone (cr_dot, from the weights as stored). Rows past the
 * batch repeat the last row, unused. Without CR_F64 every output goes through cr_dot. */
#ifndef CR_VW
#define CR_VW 8
#endif
#ifndef CR_RB
#define CR_RB 4
#endif
#define CR_CAT_(a, b) a##b
#define CR_CAT(a, b) CR_CAT_(a, b)
#define CR_DVEC CR_CAT(double, CR_VW)

#if !defined(CP_KERNELS) || defined(CP_K_cr_cpu)
__kernel void cr_cpu(CR_LAYER_ARGS, int batch, __global const uint *restrict wp)
{
    const int pnl = (int)get_global_id(0), r0 = (int)get_global_id(1) * CR_RB;
    const int o0 = pnl * CR_VW;
    __global const uint *w = p + w_off;
    __global const uint *bias = (flags & 1) ? p + b_off : 0;
#ifdef CR_F64
    double sums[CR_RB][CR_VW], xx[CR_RB];
    {
        CR_DVEC acc[CR_RB];
        __global const uint *xr[CR_RB];
        for (int r = 0; r < CR_RB; ++r) {
            acc[r] = (CR_DVEC)(0.0);
            xx[r] = 0.0;
            xr[r] = x + (size_t)min(r0 + r, batch - 1) * (size_t)in;
        }
        __global const uint *pw = wp + (size_t)pnl * (size_t)in * CR_VW;
        for (int k = 0; k < in; ++k) {
#ifdef CR_NO_DENORM
            double wl[CR_VW];
            for (int c = 0; c < CR_VW; ++c)
                wl[c] = cr_f2d(pw[(size_t)k * CR_VW + (size_t)c]);
            CR_DVEC wv = CR_CAT(vload, CR_VW)(0, wl);
#else
            CR_DVEC wv = CR_CAT(convert_double, CR_VW)(
                CR_CAT(as_float, CR_VW)(CR_CAT(vload, CR_VW)(k, pw)));
#endif
            for (int r = 0; r < CR_RB; ++r) {
                double xk = cr_f2d(xr[r][k]);
                acc[r] = fma((CR_DVEC)(xk), wv, acc[r]);
                xx[r] = fma(xk, xk, xx[r]);
            }
        }
        for (int r = 0; r < CR_RB; ++r)
            CR_CAT(vstore, CR_VW)(acc[r], 0, sums[r]);
    }
#else
    (void)wp;
    (void)wnorm;
    (void)wn_off;
    (void)scale;
#endif
    for (int r = 0; r < CR_RB && r0 + r < batch; ++r) {
        __global const uint *xr = x + (size_t)(r0 + r) * (size_t)in;
        for (int c = 0; c < CR_VW && o0 + c < out; ++c) {
            int o = o0 + c;
            uint v;
#ifdef CR_F64
            if (!cr_output(sums[r][c], xx[r], wnorm[wn_off + (size_t)o], bias ? bias[o] : 0u,
                           as_double(scale), &v))
#endif
                v = cr_dot(xr, w + (size_t)o * (size_t)in, in, bias ? bias + o : 0);
            y[(size_t)(r0 + r) * (size_t)out + (size_t)o] =
                CP_PLANT(cr_epilogue(v, flags, CR_XO(xr, o, flags)), r0 + r == 0 && o == 0);
        }
    }
}
#endif
#ifdef CR_STREAM
#include "grid_sync.cl"

/* (e) The whole model in one launch, for small batches on GPUs: cr_gemv's work (a work-group
 * per row and block of CR_OB outputs) for every layer, the work-groups that are running taking
 * the units of each layer in turn (unit u: row u / blocks, block u % blocks; group me takes me,
 * me + G, ...) and meeting at grid_sync.cl's device-wide barrier between layers (occupancy
 * discovery first: only groups that are running are waited for; a wait given up raises ctl[3]
 * and the host reports an error, never a result). Each output's sums are cr_gemv's, so its
 * bits are host:cr's whatever the number of groups that joined. desc: 8 ulongs per layer
 * (w_off, b_off, in, out, flags with 8 for the test hook's layer, wn_off, the bound's factor's
 * bits, unused); layer l reads a0 when l is even, a1 when odd, and writes the other (rows of
 * the layer's in and out); max_units: the most units of any layer (groups beyond leave). */
/* Before the barrier: a hint (OpenCL's prefetch, which changes no value) that the weights of the
 * group's first unit of the next layer (layer table row d) be brought into the cache while the
 * group waits: the first CR_KU · CR_WG of each of its CR_OB rows, CR_KU per work-item. */
void cr_stream_prefetch(__global const uint *p, __global const ulong *d, int me, int batch)
{
    const int in = (int)d[2], out = (int)d[3], blocks = (out + CR_OB - 1) / CR_OB;
    const int k = (int)get_local_id(0) * CR_KU;
    if (me >= blocks * batch || k >= in)
        return;
    const int o0 = (me % blocks) * CR_OB;
    for (int j = 0; j < CR_OB && o0 + j < out; ++j)
        prefetch(p + d[0] + (size_t)(o0 + j) * (size_t)in + (size_t)k, (size_t)min(CR_KU, in - k));
}

/* The kernel's name and the function that does a unit's work: cr_stream with cr_block here;
 * cr_f32.cl, which includes this file, names its own (cr_f32_stream with cr_f32_block, the
 * float32-only method's block, which takes cr_block's arguments and is defined there). */
#ifndef CR_STREAM_NAME
#define CR_STREAM_NAME cr_stream
#define CR_STREAM_BLOCK cr_block
#if !defined(CP_KERNELS) || defined(CP_K_cr_stream)
#define CR_STREAM_KEEP
#endif
#else
void CR_STREAM_BLOCK(cr_x_rd xr, __global const uint *w, __global const uint *bias, int in,
                     int out, int o0, int flags, __global const ulong *wnorm, ulong scale,
                     __global uint *yr, bool row0, __local int *fail, __local long *ld,
                     __local uint *lf, __local uint *res, __local CR_REAL *ls);
#endif

#ifdef CR_STREAM_KEEP
__kernel __attribute__((reqd_work_group_size(CR_WG, 1, 1))) void
CR_STREAM_NAME(__global uint *a0, __global uint *a1, __global const uint *restrict p,
          __global const ulong *restrict desc, __global const ulong *restrict wnorm,
          volatile __global int *ctl, int n_layers, int batch, int max_units, __local long *ld,
          __local uint *lf, __local CR_REAL *ls)
{
    __local uint res;
    __local int fail[CR_OB];
    __local int shared[4];
    const int me = cp_join(ctl, (int)get_num_groups(0), shared);
    const int G = min(shared[1], max_units);
    if (me < 0 || me >= G)
        return;
    bool ok = true;
    for (int l = 0; l < n_layers && ok; ++l) {
        __global const ulong *d = desc + 8 * (size_t)l;
        const int in = (int)d[2], out = (int)d[3], flags = (int)d[4];
        cr_x_rd x = (l & 1) ? a1 : a0;
        __global uint *y = (l & 1) ? a0 : a1;
        __global const uint *w = p + d[0];
        __global const uint *bias = (flags & 1) ? p + d[1] : 0;
        const int blocks = (out + CR_OB - 1) / CR_OB;
        for (int u = me; u < blocks * batch; u += G) {
            const int row = u / blocks;
            CR_STREAM_BLOCK(x + (size_t)row * (size_t)in, w, bias, in, out, (u % blocks) * CR_OB,
                            flags, wnorm + d[5], d[6], y + (size_t)row * (size_t)out, row == 0,
                            fail, ld, lf, &res, ls);
        }
        if (l + 1 < n_layers) {
            cr_stream_prefetch(p, d + 8, me, batch);
            ok = cp_grid_barrier(ctl, l, G, shared);
        }
    }
}
#endif

/* (g) The whole model in one launch for larger batches on GPUs: cr_gemm's tiles for every layer
 * (issue 34: a launch per layer costs more than a layer's tiles at d=128), the work-groups of
 * CR_LX · CR_LY work-items that are running taking the tiles of each layer in turn (tile u: rows
 * from (u / tiles across) · CR_TM, outputs from (u % tiles across) · CR_TN; group me takes me,
 * me + G, ...) and meeting at grid_sync.cl's barrier between layers, as cr_stream's groups do
 * (arguments as cr_stream's; max_units: the most tiles of any layer). Each output's sum is
 * cr_gemm's, so its bits are host:cr's whatever the number of groups that joined. */
#ifdef CR_TILES_KEEP
__kernel __attribute__((reqd_work_group_size(CR_LX * CR_LY, 1, 1))) void
CR_TILES_NAME(__global uint *a0, __global uint *a1, __global const uint *restrict p,
         __global const ulong *restrict desc, __global const ulong *restrict wnorm,
         volatile __global int *ctl, int n_layers, int batch, int max_units, __local CR_REAL *xs,
         __local CR_REAL *ws, __local CR_REAL *xq)
{
    __local int shared[4];
    __local CR_REAL ls2[3 * CR_LX * CR_LY];
    __local int slot[CR_LX * CR_LY + 1]; /* cr_gemm_tile's slots, and its flag */
    const int me = cp_join(ctl, (int)get_num_groups(0), shared);
    const int G = min(shared[1], max_units);
    if (me < 0 || me >= G)
        return;
    const int lid = (int)get_local_id(0), rows = (batch + CR_TM - 1) / CR_TM;
    bool ok = true;
    for (int l = 0; l < n_layers && ok; ++l) {
        __global const ulong *d = desc + 8 * (size_t)l;
        const int in = (int)d[2], out = (int)d[3], flags = (int)d[4];
        cr_x_rd x = (l & 1) ? a1 : a0;
        __global uint *y = (l & 1) ? a0 : a1;
        const int across = (out + CR_TN - 1) / CR_TN;
        for (int u = me; u < across * rows; u += G)
            CR_GEMM_TILE(x, y, p + d[0], (flags & 1) ? p + d[1] : 0, in, out, flags, wnorm + d[5],
                         d[6], batch, (u / across) * CR_TM, (u % across) * CR_TN, lid % CR_LX,
                         lid / CR_LX, xs, ws, xq, ls2, slot);
        if (l + 1 < n_layers)
            ok = cp_grid_barrier(ctl, l, G, shared);
    }
}
#endif
#endif
#ifdef CR_TEAM /* (f) the whole model in one work-group */
#include "cr_team.cl"
#endif

#endif /* CR_TRAIN */

#ifdef CR_TRAIN
/* ---- training (cl:cr's trainer, runtime/train/train.c; host:cr's is hostblas/train_cr.c) -------- */

/* The kernels of clkernels/train.cl under the same names and arguments, with the contract for
 * every sum: each is the exact sum of its exact terms rounded once (RN). Built with
 * CR_NO_DENORM: no float arithmetic touches a subnormal operand or result, so that a device that
 * flushes float denormals gives IEEE's results too; an operation of one or two terms rounded
 * once is IEEE's correctly rounded -, ·, + and fma, which host:cr's trainer computes with float
 * arithmetic. The sums certified in double where the device has it (CR_F64, "the trainer's
 * sums" below). The optimizers other than plain SGD (tr_grad_w, tr_grad_b, then
 * train_optim.cl's tr_opt_* at the end) follow the same rule; their / and sqrt are divsqrt.cl's
 * (docs/TRAINING.md, "Correctly rounded training"). */

/* RN(a·b + c) (fma), RN(a·b), RN(a − b): IEEE's operations, whatever the device does with
 * subnormals. With CR_FAST_OPS (the device rounds float arithmetic to nearest, CL_FP_ROUND_TO_
 * NEAREST, and CLPARITY_CR_TUNE does not say exact=1: runtime/opencl/train_cl_options.c) by the
 * device's own float operation where every operand is a normal float or a zero and the result
 * is finite with |r| >= 2^-125: OpenCL's fma, · and − are then correctly rounded on any device,
 * since flushing subnormals changes only subnormal operands and results (fma rounds once, its
 * exact product inside it), and a result at 2^-125 or more is normal before and after rounding
 * on a device that flushes or not. Else (a subnormal, infinite or NaN operand; a zero, tiny or
 * non-finite result) on the bits: the operands' exact terms in the accumulator, rounded once.
 * Test hook cr-train-flip-ops (CR_TR_FLIP_OPS) flips the lowest bit of every answer of the
 * device's own operation: the planted error that the tests of this path must see. */
/* The bits that the test hooks flip (0: none): cr-train-flip (CR_TR_FLIP) in each certified sum
 * and the sign of each all-zero sum, cr-train-flip-ops (CR_TR_FLIP_OPS) in each answer of the
 * device's own operation. */
#ifdef CR_TR_FLIP
#define CR_TR_FLIP_SUM 1u
#define CR_TR_FLIP_ZERO 0x80000000u
#else
#define CR_TR_FLIP_SUM 0u
#define CR_TR_FLIP_ZERO 0u
#endif
#ifdef CR_TR_FLIP_OPS
#define CR_TR_FLIP_OP 1u
#else
#define CR_TR_FLIP_OP 0u
#endif

#ifdef CR_FAST_OPS
bool cr_fast_in(uint a) /* a normal float or a zero */
{
    const uint e = (a >> 23) & 0xffu;
    return (e != 0u && e != 255u) || (a & 0x7fffffffu) == 0u;
}

bool cr_fast_out(float r, uint *v) /* finite, |r| >= 2^-125 */
{
    const uint e = (as_uint(r) >> 23) & 0xffu;
    *v = as_uint(r) ^ CR_TR_FLIP_OP;
    return e >= 2u && e != 255u;
}
#endif

uint cr_fma_bits(uint a, uint b, uint c)
{
#ifdef CR_FAST_OPS
    uint v;
    if (cr_fast_in(a) && cr_fast_in(b) && cr_fast_in(c) &&
        cr_fast_out(fma(as_float(a), as_float(b), as_float(c)), &v))
        return v;
#endif
    cr_acc acc;
    cr_acc_init(&acc);
    cr_acc_add_product(&acc, a, b);
    cr_acc_add(&acc, c);
    return cr_acc_round(&acc);
}

uint cr_mul_bits(uint a, uint b)
{
#ifdef CR_FAST_OPS
    uint v;
    if (cr_fast_in(a) && cr_fast_in(b) && cr_fast_out(as_float(a) * as_float(b), &v))
        return v;
#endif
    cr_acc acc;
    cr_acc_init(&acc);
    cr_acc_add_product(&acc, a, b);
    return cr_acc_round(&acc);
}

uint cr_sub_bits(uint a, uint b)
{
#ifdef CR_FAST_OPS
    uint v;
    if (cr_fast_in(a) && cr_fast_in(b) && cr_fast_out(as_float(a) - as_float(b), &v))
        return v;
#endif
    cr_acc acc;
    cr_acc_init(&acc);
    cr_acc_add(&acc, a);
    cr_acc_add(&acc, b ^ 0x80000000u);
    return cr_acc_round(&acc);
}

/* z > 0 on the bits: not NaN, positive, not zero (a subnormal counts). */
bool cr_positive(uint z)
{
    return !(z >> 31) && z != 0u && z <= 0x7f800000u;
}

/* ---- the trainer's sums ------------------------------------------------------------------
 * Every sum of the trainer is RN(sum_k a[k·sa]·b[k·sb] + c), c a term only where has_c (the
 * forward's bias, dx's residual g; dW and the bias gradient have none), host:cr's answer
 * whatever the way:
 * - with CR_F64 (a device with cl_khr_fp64, unless CLPARITY_CR_TUNE says exact=1 or
 *   method=f32: runtime/opencl/train_cl_options.c), first the forward's first certificate: the
 *   products' double sum, one fma chain from 0.0 over k ascending, with the two operands' sums of
 *   squares beside it, c added in double, certified by cr_output with cr_err_scale(n) (the bound
 *   for any order of n products and one more term, cr.c 2-3; the norms from sums of squares in
 *   any order, cr.c 3). Floats reach double through their bits (cr_f2d: CR_NO_DENORM, as the
 *   trainer is built), so a device that flushes float denormals sums the same terms. A bound of
 *   exactly 0 (an operand all zeros, c ±0 or none: every term a zero, each factor finite, else a
 *   norm is inf or NaN and so is the bound) is an exact zero whose sign comes from the terms'
 *   signs (cr_tr_zero, host:cr's cr_dot_zero): in dW a unit that the ReLU masks for the whole
 *   batch. Test hook cr-train-flip (CR_TR_FLIP) flips the lowest bit of every certified answer
 *   and the sign of every such zero: the planted errors that the tests of this path must see;
 * - else, and where the certificate fails, the exact accumulator (cr.c's cr_dot). */
#ifdef CR_F64
uint cr_tr_zero(__global const uint *a, size_t sa, __global const uint *b, size_t sb, int n,
                bool has_c, uint c)
{
    for (int k = 0; k < n; ++k) /* a term is -0 where its sign bit is set */
        if (!((a[(size_t)k * sa] ^ b[(size_t)k * sb]) >> 31))
            return 0u;
    if (has_c)
        return c & 0x80000000u;
    return n > 0 ? 0x80000000u : 0u;
}
#endif

uint cr_tr_dot(__global const uint *a, size_t sa, __global const uint *b, size_t sb, int n,
               bool has_c, uint c)
{
#ifdef CR_F64
    double s = 0.0, aa = 0.0, bb = 0.0;
    for (int k = 0; k < n; ++k) {
        double x = cr_f2d(a[(size_t)k * sa]), w = cr_f2d(b[(size_t)k * sb]);
        s = fma(x, w, s);
        aa = fma(x, x, aa);
        bb = fma(w, w, bb);
    }
    const double mu = ((double)n + 2.0) * 0x1p-53; /* cr.c's cr_err_scale(n) */
    const double scale = mu / (1.0 - mu) * 1.01 * (1.0 + 0x1p-40);
    const uint cb = has_c ? c : 0u;
    if (sqrt(aa) * sqrt(bb) + fabs(cr_f2d(cb)) == 0.0)
        return cr_tr_zero(a, sa, b, sb, n, has_c, c) ^ CR_TR_FLIP_ZERO;
    uint v;
    if (cr_output(s, aa, as_ulong(sqrt(bb)), cb, scale, &v))
        return v ^ CR_TR_FLIP_SUM;
#endif
    cr_acc acc;
    cr_acc_init(&acc);
    for (int k = 0; k < n; ++k)
        cr_acc_add_product(&acc, a[(size_t)k * sa], b[(size_t)k * sb]);
    if (has_c)
        cr_acc_add(&acc, c);
    return cr_acc_round(&acc);
}

/* One work-item per (o, b): z = RN(Σ_k x·W + b); y = act(z), then RN(x[o] + y) for a
 * residual. */
__kernel void tr_forward(__global const uint *acts_in, ulong x_off, __global uint *acts_out,
                         ulong y_off, __global uint *restrict zs, ulong z_off,
                         __global const uint *restrict p, ulong w_off, int in, int out,
                         int has_bias, ulong b_off, int act, int residual)
{
    size_t o = get_global_id(0);
    size_t b = get_global_id(1);
    if (o >= (size_t)out)
        return;
    __global const uint *x = acts_in + x_off + b * (size_t)in;
    uint v = cr_tr_dot(x, 1, p + w_off + o * (size_t)in, 1, in, has_bias != 0,
                       has_bias ? p[b_off + o] : 0u);
    zs[z_off + b * (size_t)out + o] = v;
    int flags = (act ? 2 : 0) | (residual ? 4 : 0);
    acts_out[y_off + b * (size_t)out + o] = cr_epilogue(v, flags, residual ? x[o] : 0u);
}

/* g = RN(s · RN(y − t)), n elements. */
__kernel void tr_outgrad(__global const uint *restrict acts, ulong y_off,
                         __global const uint *restrict t, __global uint *restrict g, int n,
                         float s)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    g[i] = cr_mul_bits(as_uint(s), cr_sub_bits(acts[y_off + i], t[i]));
}

/* dz = act ? (z > 0 ? g : +0) : g. */
__kernel void tr_dz(__global const uint *restrict g, __global const uint *restrict zs,
                    ulong z_off, __global uint *restrict dz, int n, int act)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    dz[i] = act && !cr_positive(zs[z_off + i]) ? 0u : g[i];
}

/* One work-item per (k, b): dx = RN(Σ_o dz·W[o][k] + g[b][k] for a residual), with the
 * pre-update W. */
__kernel void tr_dx(__global const uint *restrict dz, __global const uint *restrict p,
                    ulong w_off, __global const uint *restrict g, __global uint *restrict dx,
                    int in, int out, int residual)
{
    size_t k = get_global_id(0);
    size_t b = get_global_id(1);
    if (k >= (size_t)in)
        return;
    dx[b * (size_t)in + k] = cr_tr_dot(dz + b * (size_t)out, 1, p + w_off + k, (size_t)in, out,
                                       residual != 0, residual ? g[b * (size_t)out + k] : 0u);
}

/* gW[o][k] = RN(Σ_b dz[b][o]·x[b][k]) and gb[o] = RN(Σ_b dz[b][o]). */
uint cr_gw(__global const uint *restrict dz, __global const uint *restrict x, size_t k, size_t o,
           int in, int out, int batch)
{
    return cr_tr_dot(dz + o, (size_t)out, x + k, (size_t)in, batch, false, 0u);
}

uint cr_gb(__global const uint *restrict dz, size_t o, int out, int batch)
{
    cr_acc a;
    cr_acc_init(&a);
    for (int b = 0; b < batch; ++b)
        cr_acc_add(&a, dz[(size_t)b * (size_t)out + o]);
    return cr_acc_round(&a);
}

/* One work-item per weight (k, o): W = RN(−lr·gW + W) (plain SGD). */
__kernel void tr_update_w(__global const uint *restrict dz, __global const uint *restrict acts,
                          ulong x_off, __global uint *restrict p, ulong w_off, int in, int out,
                          int batch, float neg_lr)
{
    size_t k = get_global_id(0);
    size_t o = get_global_id(1);
    if (k >= (size_t)in)
        return;
    size_t i = w_off + o * (size_t)in + k;
    p[i] = cr_fma_bits(as_uint(neg_lr), cr_gw(dz, acts + x_off, k, o, in, out, batch), p[i]);
}

/* bias = RN(−lr·gb + bias) (plain SGD). */
__kernel void tr_update_b(__global const uint *restrict dz, __global uint *restrict p,
                          ulong b_off, int out, int batch, float neg_lr)
{
    size_t o = get_global_id(0);
    if (o >= (size_t)out)
        return;
    p[b_off + o] = cr_fma_bits(as_uint(neg_lr), cr_gb(dz, o, out, batch), p[b_off + o]);
}

/* The other optimizers: gW and gb into the gradient G (the parameters' layout), for the update
 * after the backward; train.cl's arguments. */
__kernel void tr_grad_w(__global const uint *restrict dz, __global const uint *restrict acts,
                        ulong x_off, __global uint *restrict G, ulong w_off, int in, int out,
                        int batch)
{
    size_t k = get_global_id(0);
    size_t o = get_global_id(1);
    if (k >= (size_t)in)
        return;
    G[w_off + o * (size_t)in + k] = cr_gw(dz, acts + x_off, k, o, in, out, batch);
}

__kernel void tr_grad_b(__global const uint *restrict dz, __global uint *restrict G,
                        ulong b_off, int out, int batch)
{
    size_t o = get_global_id(0);
    if (o >= (size_t)out)
        return;
    G[b_off + o] = cr_gb(dz, o, out, batch);
}

/* The optimizers' updates (train_optim.cl, train.cl's own source) on the bits: +, −, · and
 * fma through the accumulator (two or three exact terms rounded once: IEEE's correctly
 * rounded operation, signed zeros included); / and sqrt by divsqrt.cl's cp_div_cr and
 * cp_sqrt_cr, train's float way, whose proof holds on a device that flushes float denormals
 * (their float arithmetic sees only normal operands and results; subnormals go by the bits);
 * |w| < 1/2 on the bits. No test hook plants here (TR_PLANT 0): cl:cr's planted errors are
 * corrupt-cl-cr's and divsqrt-no-correction's. */
uint cr_add_bits(uint a, uint b)
{
    return cr_sub_bits(a, b ^ 0x80000000u);
}

#include "divsqrt.cl"
#define TR_T uint
#define TR_F(x) as_uint(x)
#define TR_FMA(a, b, c) cr_fma_bits(a, b, c)
#define TR_MUL(a, b) cr_mul_bits(a, b)
#define TR_ADD(a, b) cr_add_bits(a, b)
#define TR_SUB(a, b) cr_sub_bits(a, b)
#define TR_DIV(a, b) as_uint(cp_div_cr(as_float(a), as_float(b)))
#define TR_SQRT(a) as_uint(cp_sqrt_cr(as_float(a)))
#define TR_SMALL(w) (((w) & 0x7fffffffu) < 0x3f000000u)
#define TR_ONE 0x3f800000u
#define TR_UP(a) ((a) + 1u)
#define TR_PLANT 0
#include "train_optim.cl"
#endif
