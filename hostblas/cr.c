/* host:cr's arithmetic: correctly rounded layers (issue 23; docs/ENGINES.md, "host:cr and
 * cl:cr"). Built, like every file, with -ffp-contract=off (nothing here depends on it: see 2).
 *
 * THE CONTRACT. For each output o of a layer: v = RN(sum_k x[k]·W[o][k] + b[o]), the exact real
 * sum of the exact products and the bias rounded once to the nearest float32, ties to even;
 * then the activation (exact); then the residual y = RN(x[o] + act(v)), one float add. A NaN
 * term (a NaN input, or inf · 0), or +inf and -inf terms together, give NaN; else an infinite
 * term gives that infinity; an exact sum from 2^128 − 2^103 up in magnitude rounds to ±inf;
 * subnormal results are correctly rounded; an exact zero is +0 unless every term (every product
 * and the bias) is -0, and a nonzero sum that rounds to zero keeps its sign, as RN does.
 *
 * THE PROOF (u = 2^-53, gamma_m = m·u / (1 − m·u); Higham, Accuracy and Stability of Numerical
 * Algorithms, 2nd ed., sections 2.2 and 4.2).
 *
 * 1. Terms. A finite float is f = ±m·2^(q − 149), m < 2^24 an integer, q = its biased exponent
 *    − 1 (0 for subnormals), 0 <= q <= 253. A product is ±mx·mw·2^(qx + qw − 298): an integer
 *    below 2^48 times 2^(p − 298), 0 <= p <= 506. So every term (product or bias) is an
 *    integer multiple of 2^-298, a nonzero one is at least 2^-298, and every one is below
 *    2^256 in magnitude.
 *
 * 2. The fast path's sum. A product has at most 48 significant bits and lies in [2^-298, 2^256)
 *    or is 0: it is exact in double (53 bits, normal from 2^-1022). Every partial sum, exact or
 *    rounded, is a multiple of 2^-298 (rounding a multiple of 2^-298 to a double gives a
 *    multiple of the double's ulp where that ulp is at least 2^-298, and leaves it unchanged
 *    where it is smaller: it then has fewer than 53 bits), below n·2^256 < 2^288: no addition
 *    overflows, and a nonzero result is normal, so each rounded addition is (a + b)(1 + d),
 *    |d| <= u, with no underflow term. fma(x, w, acc) = RN(x·w + acc) = RN(p + acc) as p is
 *    exact: contraction, explicit or not, removes no rounding that the bound counts on.
 *    Higham's model for ANY summation tree: s = sum_i p_i · prod_{j on i's path} (1 + d_j), so
 *    |s − S| <= sum_i |p_i| · gamma_(d_i) where d_i counts the additions on term i's path that
 *    round (an exact one, like adding 0, has d = 0). Any binary tree over n terms has paths of
 *    at most n − 1 additions; host:cr's (a chain from 0.0 over the in products, then the bias)
 *    has at most in + 1 that round; we take gamma_(in+2) (n + 1 for the n = in + 1 terms):
 *    every order, split, padding and tree of a later cl:cr is covered.
 *
 * 3. The bound of T = sum_k |x[k]·W[o][k]| + |b[o]|. Cauchy–Schwarz: T <= |x|_2·|W_o|_2 + |b|.
 *    The squares are exact (as the products in 2), a sum of positive terms in any order is at
 *    least (1 − gamma_(in−1)) times the exact sum, and sqrt, the product of the norms, the add
 *    of |b|, the factor's division and its products by 1.01 (itself rounded) and (1 + 2^-40)
 *    (exact), and the final product are fewer than 10 roundings, each a factor at least 1 − u
 *    (sqrt(1 − g) >= 1 − g). So the computed bound is
 *        E >= gamma_(in+2)·(|x||W_o| + |b|)·(1 + 2^-40)·1.01·(1 − gamma_in − 10u)
 *    and for in <= CR_IN_MAX = 2^26 the last factor exceeds 1 − 2^-26: the slack 1.01 covers
 *    the bound's own rounding more than 10^5 times over. Where an input or weight is inf or
 *    NaN, E or s is inf or NaN and the test in 4 fails.
 *
 * 4. The certificate. r = RN32(|s|) (a correctly rounded conversion). For r != 0 and
 *    |s| < 2^127 (so r <= 2^127 and its upper neighbour is finite), the float neighbours
 *    r- < r < r+ are the bit patterns r − 1 and r + 1, and the midpoints m_lo = (r + r-)/2 and
 *    m_hi = (r + r+)/2 are exact in double (at most 26 significant bits). RN32(|S|) = r when
 *    m_lo < |S| < m_hi: r is then the one nearest float (ties sit on the midpoints). The test
 *    computes g_lo = fl(|s| − m_lo) and g_hi = fl(m_hi − |s|): operands are multiples of
 *    2^-298 below 2^288, so each has relative error at most u, and the exact gap is at least
 *    g·(1 − u). It asks g_lo > E and g_hi > E; then the exact gaps exceed
 *    E·(1 − u) >= gamma_(in+2)·T·(1 + 2^-40)·1.01·(1 − 2^-25) > gamma_(in+2)·T >= |s − S|
 *    (the margin 1 + 2^-40 alone covers the subtractions' rounding, 2^-53; 1.01 covers 3), so
 *    m_lo < |S| < m_hi, S has s's sign (m_lo > 0) and RN(S) = sign(s)·r. Any other case (s not
 *    finite, |s| >= 2^127, r = 0, a gap too small) goes to the accumulator, which also owns
 *    the sign of zero.
 *
 * 5. The exact accumulator (Kulisch). A term m·2^(p − 298) (m < 2^48, p <= 506) is added as
 *    three base-2^32 digits into digits p/32 .. p/32 + 2 <= 17 of CR_DIGITS = 20 signed 64-bit
 *    digits, less than 2^32 into each: 2^30 terms (CR_ADDS_MAX) fit before a carry pass
 *    (|digit| < 2^62). The pass makes digits 0..18 the low 32 bits (in [0, 2^32)) and adds the
 *    rest, exactly, into the next; the sum of n <= 2^26 terms is below 2^(554 + 26) units, so
 *    digits 0..18 (up to 2^608) hold it and digit 19 carries its sign. A negative sum is
 *    negated digit by digit and carried again. The digits are S, exactly, in any order of
 *    the terms.
 *
 * 6. Rounding the digits. M = |S| in units of 2^-298, t its top bit. A float32 keeps 24 bits
 *    and no bit below 2^-149 (unit bit 149): q = max(t − 23, 149), R = floor(M / 2^q),
 *    half = bit q − 1, sticky = any bit below it; R += half && (sticky || R odd) (ties to even).
 *    R = 2^24 becomes 2^23 with q + 1. R < 2^23 is a subnormal (q = 149), or 0: a nonzero S
 *    below 2^-150 rounds to a zero of S's sign. Else the exponent field is q − 148, and 255 or
 *    more is ±inf: that happens exactly from |S| >= 2^128 − 2^103, the midpoint between the
 *    largest float (odd significand 2^24 − 1) and 2^128, where ties to even go up.
 *
 * 7. Special values are classified before any digit: a NaN input, or inf · 0, gives NaN; +inf
 *    and -inf terms together give NaN; else an infinite term gives that infinity. An exact zero
 *    is -0 only when every term is -0 (IEEE 754's sign of a sum of zeros under RN). NaN
 *    payloads are not part of the contract (IEEE 754 does not fix them).
 *
 * 8. The activation is cp_relu (exact) and the residual one float add (correctly rounded), as
 *    in host:exact after its sum. So each output has exactly one right answer, and the fast
 *    path (2-4) and the accumulator (5-7) give it whatever the order, threads or instruction
 *    set. */
#include "hostblas/cr.h"

#include "clparity/error.h"
#include "clparity/model.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <math.h>
#include <string.h>

#define CR_MASK 0xffffffffu
#define CR_RADIX 4294967296LL /* 2^32 */

void cr_acc_init(cr_acc *a)
{
    memset(a->digit, 0, sizeof a->digit);
    a->adds = 0;
    a->nan = a->pos_inf = a->neg_inf = a->any = false;
    a->all_neg_zero = true;
}

/* The carry pass: digits 0 .. CR_DIGITS - 2 become their low 32 bits, in [0, 2^32), and the
 * rest goes, exactly, into the next digit (int64_t is two's complement, so & gives the low bits
 * of a negative digit too, and digit - low is a multiple of 2^32: the division is exact). */
static void cr_carry(int64_t *d)
{
    for (int i = 0; i < CR_DIGITS - 1; ++i) {
        int64_t low = d[i] & (int64_t)CR_MASK;
        d[i + 1] += (d[i] - low) / CR_RADIX;
        d[i] = low;
    }
}

/* m · 2^(p − 298), m < 2^48, 0 <= p <= 506, added (or subtracted where neg) as three digits. */
static void cr_acc_add_scaled(cr_acc *a, uint64_t m, int p, bool neg)
{
    int i = p >> 5, sh = p & 31;
    uint64_t lo = (m & CR_MASK) << sh; /* < 2^63 */
    uint64_t t = ((m >> 32) << sh) + (lo >> 32);
    int64_t d0 = (int64_t)(lo & CR_MASK), d1 = (int64_t)(t & CR_MASK), d2 = (int64_t)(t >> 32);
    /* the sign as a factor of ±1, not a branch: a term's sign is as random as the data, and a
     * mispredicted branch per term took most of the fallback's time */
    int64_t sign = 1 - 2 * (int64_t)neg;
    a->digit[i] += sign * d0;
    a->digit[i + 1] += sign * d1;
    a->digit[i + 2] += sign * d2;
    if (++a->adds == CR_ADDS_MAX) {
        cr_carry(a->digit);
        a->adds = 0;
    }
}

/* A finite nonzero |f| (bits u without the sign) as m · 2^(q − 149): returns m, sets q. */
static uint32_t cr_split(uint32_t u, int *q)
{
    uint32_t e = u >> 23;
    *q = e ? (int)e - 1 : 0;
    return e ? (u & 0x7fffffu) | 0x800000u : u;
}

/* A term's class, before its digits: false where the term is NaN, infinite or zero (then
 * recorded here), true where it is finite and nonzero. */
static bool cr_acc_classify(cr_acc *a, bool nan, bool inf, bool zero, bool neg)
{
    a->any = true;
    if (nan) {
        a->nan = true;
        return false;
    }
    if (inf) {
        if (neg)
            a->neg_inf = true;
        else
            a->pos_inf = true;
        return false;
    }
    a->all_neg_zero = a->all_neg_zero && zero && neg;
    return !zero;
}

void cr_acc_add_product(cr_acc *a, float x, float w)
{
    uint32_t ux = cr_bits(x), uw = cr_bits(w);
    uint32_t ax = ux & 0x7fffffffu, aw = uw & 0x7fffffffu;
    bool neg = ((ux ^ uw) >> 31) != 0;
    bool inf = ax == 0x7f800000u || aw == 0x7f800000u, zero = ax == 0 || aw == 0;
    /* a NaN factor, or inf · 0 */
    bool nan = ax > 0x7f800000u || aw > 0x7f800000u || (inf && zero);
    if (!cr_acc_classify(a, nan, inf, zero, neg))
        return;
    int qx, qw;
    uint64_t m = (uint64_t)cr_split(ax, &qx) * (uint64_t)cr_split(aw, &qw);
    cr_acc_add_scaled(a, m, qx + qw, neg);
}

void cr_acc_add(cr_acc *a, float b)
{
    uint32_t ub = cr_bits(b), ab = ub & 0x7fffffffu;
    if (!cr_acc_classify(a, ab > 0x7f800000u, ab == 0x7f800000u, ab == 0, (ub >> 31) != 0))
        return;
    int q;
    uint32_t m = cr_split(ab, &q);
    cr_acc_add_scaled(a, m, q + 149, (ub >> 31) != 0);
}

/* The index of the highest set bit of v != 0. */
static int cr_msb(uint32_t v)
{
    int b = 0;
    while (v >>= 1)
        ++b;
    return b;
}

float cr_acc_round(const cr_acc *a)
{
    if (a->nan || (a->pos_inf && a->neg_inf))
        return cr_float(0x7fc00000u);
    if (a->pos_inf || a->neg_inf)
        return cr_float(a->neg_inf ? 0xff800000u : 0x7f800000u);
    int64_t d[CR_DIGITS];
    memcpy(d, a->digit, sizeof d);
    cr_carry(d);
    uint32_t sign = 0;
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
        return cr_float(a->any && a->all_neg_zero ? 0x80000000u : 0u);
    int t = 32 * top + cr_msb((uint32_t)d[top]);
    int q = t - 23 > 149 ? t - 23 : 149;
    /* bits q - 1 .. q + 24 of M (the window's bits above t are 0); i + 1 <= 18 */
    int i = (q - 1) >> 5, sh = (q - 1) & 31;
    uint64_t win = ((uint64_t)d[i] >> sh) | ((uint64_t)d[i + 1] << (32 - sh));
    uint32_t r = (uint32_t)((win >> 1) & 0x1ffffffu), half = (uint32_t)(win & 1u);
    bool sticky = ((uint64_t)d[i] & ((1ull << sh) - 1u)) != 0;
    for (int j = 0; j < i && !sticky; ++j)
        sticky = d[j] != 0;
    if (half && (sticky || (r & 1u)))
        ++r;
    if (r == 1u << 24) {
        r >>= 1;
        ++q;
    }
    if (r < 1u << 23) /* a subnormal or zero: q = 149 */
        return cr_float(sign | r);
    uint32_t e = (uint32_t)(q - 148);
    if (e >= 255)
        return cr_float(sign | 0x7f800000u);
    return cr_float(sign | e << 23 | (r & 0x7fffffu));
}

int cr_check_inputs(const cp_model *m, const char *engine)
{
    for (int l = 0; l < m->n_layers; ++l)
        if (m->layers[l].in > CR_IN_MAX)
            return cp_err_set(CP_FAIL_USAGE,
                              "%s: layer %d has %d inputs; its error bound is proved for at most "
                              "%d",
                              engine, l, m->layers[l].in, CR_IN_MAX);
    return CP_OK;
}

float cr_dot(const float *x, const float *w, int n, const float *bias)
{
    cr_acc a;
    cr_acc_init(&a);
    for (int k = 0; k < n; ++k)
        cr_acc_add_product(&a, x[k], w[k]);
    if (bias)
        cr_acc_add(&a, *bias);
    return cr_acc_round(&a);
}

float cr_epilogue(float v, int act, bool residual, float x_o)
{
    float r = act == CP_ACT_RELU ? cp_relu(v) : v;
    return residual ? x_o + r : r;
}

void cr_layer_row(const float *x, const float *w, const float *bias, int in, int out, int act,
                  bool residual, float *y)
{
    for (int o = 0; o < out; ++o) {
        float v = cr_dot(x, w + (size_t)o * (size_t)in, in, bias ? bias + o : NULL);
        y[o] = cr_epilogue(v, act, residual, residual ? x[o] : 0.0f);
    }
}

/* ---- the certified fast path ------------------------------------------------------------ */

double cr_norm(const float *x, int n)
{
    double p = 0.0;
    for (int k = 0; k < n; ++k)
        p = p + (double)x[k] * (double)x[k];
    return sqrt(p);
}

/* Eight partial sums of squares (any order is covered by 3), so that the compiler vectorises
 * the loop without reassociating anything. */
double cr_norm_f64(const double *x, int n)
{
    double p[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    int k = 0;
    for (; k + 8 <= n; k += 8)
        for (int j = 0; j < 8; ++j)
            p[j] = p[j] + x[k + j] * x[k + j];
    for (; k < n; ++k)
        p[0] = p[0] + x[k] * x[k];
    return sqrt(((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7])));
}

double cr_err_scale(int in)
{
    double mu = ((double)in + 2.0) * 0x1p-53; /* exact: in + 2 < 2^53 */
    return mu / (1.0 - mu) * 1.01 * (1.0 + 0x1p-40);
}

bool cr_certify(double s, double err, float *v)
{
    double a = fabs(s);
    if (!(a < 0x1p127)) /* also NaN */
        return false;
    float r = (float)a;
    uint32_t u = cr_bits(r);
    if (u == 0)
        return false;
    double mid_lo = ((double)r + (double)cr_float(u - 1u)) * 0.5;
    double mid_hi = ((double)r + (double)cr_float(u + 1u)) * 0.5;
    if (!(a - mid_lo > err && mid_hi - a > err))
        return false;
    *v = s < 0.0 ? -r : r;
    return true;
}

/* A tile is CR_ROWS rows (at most) × CR_COLS outputs: 2·CR_ROWS ymm accumulators of 4 doubles,
 * with the two converted weight vectors and the broadcast input, 15 of AVX2's 16 registers. */
#define CR_ROWS 6
#define CR_COLS 8

/* One output o of row x from its double sum s (the products only): the bias added in double
 * (one more rounding, 2), the certificate, else the accumulator (counted in *fallbacks); then the
 * activation and the residual. */
static float cr_output(const cr_layer_args *a, double s, double nx, const float *x, int o,
                       long *fallbacks)
{
    double b = a->bias ? (double)a->bias[o] : 0.0;
    float v;
    if (!cr_certify(s + b, a->scale * (nx * a->wnorm[o] + fabs(b)), &v)) {
        v = cr_dot(x, a->w + (size_t)o * (size_t)a->in, a->in, a->bias ? a->bias + o : NULL);
        ++*fallbacks;
    }
    return cr_epilogue(v, a->act, a->residual, a->residual ? x[o] : 0.0f);
}

/* The rest of a tile of R rows from row r0 × outputs o0 .. o0 + CR_COLS - 1 (fewer at the
 * layer's end), its sums in acc (row-major): each output, as float and as double. Returns the
 * fallbacks. */
static long cr_tile_finish(const cr_layer_args *a, const double *acc, const double *nx, int r0,
                           int R, int o0)
{
    long fallbacks = 0;
    int n = a->out - o0 < CR_COLS ? a->out - o0 : CR_COLS;
    for (int r = 0; r < R; ++r) {
        const float *x = a->x + (size_t)(r0 + r) * (size_t)a->in;
        float *y = a->y + (size_t)(r0 + r) * (size_t)a->out;
        double *yd = a->yd + (size_t)(r0 + r) * (size_t)a->out;
        for (int c = 0; c < n; ++c) {
            y[o0 + c] = cr_output(a, acc[r * CR_COLS + c], nx[r], x, o0 + c, &fallbacks);
            yd[o0 + c] = (double)y[o0 + c];
        }
    }
    return fallbacks;
}

/* The portable tile: R rows × CR_COLS outputs of the half panel wp (stride CR_PANEL), each
 * output's sum over k ascending in double, lanes across outputs. */
static inline __attribute__((always_inline)) void cr_tile(const double *restrict xd, int K,
                                                          const float *restrict wp,
                                                          double *restrict acc, const int R)
{
    for (int i = 0; i < R * CR_COLS; ++i)
        acc[i] = 0.0;
    for (int k = 0; k < K; ++k) {
        const float *w = wp + (size_t)k * CR_PANEL;
        for (int r = 0; r < R; ++r) {
            const double xk = xd[(size_t)r * (size_t)K + (size_t)k];
            for (int c = 0; c < CR_COLS; ++c)
                acc[r * CR_COLS + c] = acc[r * CR_COLS + c] + xk * (double)w[c];
        }
    }
}

/* Defines NAME(a, r0, r1, p0, p1) with attributes ATTR: rows [r0, r1) in tiles of at most
 * CR_ROWS rows (split evenly near the end), each over the half panels of [p0, p1) through TILE
 * then FINISH, the rows' norms first. */
#define CR_UNIT(ATTR, NAME, TILE, FINISH)                                                          \
    ATTR static long NAME(const cr_layer_args *a, int r0, int r1, int p0, int p1)                  \
    {                                                                                              \
        const int K = a->in;                                                                       \
        long fallbacks = 0;                                                                        \
        for (int r = r0; r < r1;) {                                                                \
            int left = r1 - r;                                                                     \
            int R = left >= 2 * CR_ROWS ? CR_ROWS : left > CR_ROWS ? (left + 1) / 2 : left;        \
            const double *xd = a->xd + (size_t)r * (size_t)K;                                      \
            double nx[CR_ROWS], acc[CR_ROWS * CR_COLS];                                            \
            for (int i = 0; i < R; ++i)                                                            \
                nx[i] = cr_norm_f64(xd + (size_t)i * (size_t)K, K);                                \
            for (int o0 = p0 * CR_PANEL; o0 < p1 * CR_PANEL && o0 < a->out; o0 += CR_COLS) {       \
                const float *w = a->wp + (size_t)(o0 / CR_PANEL) * (size_t)K * CR_PANEL +          \
                                 (size_t)(o0 % CR_PANEL);                                          \
                switch (R) {                                                                       \
                case 6:                                                                            \
                    TILE(xd, K, w, acc, 6);                                                        \
                    break;                                                                         \
                case 5:                                                                            \
                    TILE(xd, K, w, acc, 5);                                                        \
                    break;                                                                         \
                case 4:                                                                            \
                    TILE(xd, K, w, acc, 4);                                                        \
                    break;                                                                         \
                case 3:                                                                            \
                    TILE(xd, K, w, acc, 3);                                                        \
                    break;                                                                         \
                case 2:                                                                            \
                    TILE(xd, K, w, acc, 2);                                                        \
                    break;                                                                         \
                default:                                                                           \
                    TILE(xd, K, w, acc, 1);                                                        \
                }                                                                                  \
                fallbacks += FINISH(a, acc, nx, r, R, o0);                                         \
            }                                                                                      \
            r += R;                                                                                \
        }                                                                                          \
        return fallbacks;                                                                          \
    }

CR_UNIT(, cr_unit, cr_tile, cr_tile_finish)

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_CR_ISA 1
CR_UNIT(__attribute__((target("avx2,fma"))), cr_unit_avx2, cr_tile, cr_tile_finish)
CR_UNIT(__attribute__((target("avx512f"))), cr_unit_avx512, cr_tile, cr_tile_finish)

/* cr_tile with AVX2 + FMA intrinsics: the accumulators stay in registers. An fma of an exact
 * product is one rounded add (2). */
static inline __attribute__((always_inline, target("avx2,fma"))) void
cr_tile256(const double *restrict xd, int K, const float *restrict wp, double *restrict acc,
           const int R)
{
    __m256d s[2 * CR_ROWS];
#pragma GCC unroll 12
    for (int i = 0; i < 2 * R; ++i)
        s[i] = _mm256_setzero_pd();
    int k = 0;
    if (R == 1) {
        /* One row: four partial sums over k mod 4 for each vector (8 chains, not 2 that wait on
         * the fma's latency), added at the end; any order is covered by 2. */
        __m256d t[6];
#pragma GCC unroll 6
        for (int i = 0; i < 6; ++i)
            t[i] = _mm256_setzero_pd();
        for (; k + 4 <= K; k += 4) {
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j) {
                const float *wk = wp + (size_t)(k + j) * CR_PANEL;
                __m256d xk = _mm256_broadcast_sd(xd + k + j);
                __m256d w0 = _mm256_cvtps_pd(_mm_loadu_ps(wk));
                __m256d w1 = _mm256_cvtps_pd(_mm_loadu_ps(wk + 4));
                if (j == 0) {
                    s[0] = _mm256_fmadd_pd(xk, w0, s[0]);
                    s[1] = _mm256_fmadd_pd(xk, w1, s[1]);
                } else {
                    t[2 * j - 2] = _mm256_fmadd_pd(xk, w0, t[2 * j - 2]);
                    t[2 * j - 1] = _mm256_fmadd_pd(xk, w1, t[2 * j - 1]);
                }
            }
        }
        s[0] = _mm256_add_pd(_mm256_add_pd(s[0], t[0]), _mm256_add_pd(t[2], t[4]));
        s[1] = _mm256_add_pd(_mm256_add_pd(s[1], t[1]), _mm256_add_pd(t[3], t[5]));
    }
    for (; k < K; ++k) {
        const float *wk = wp + (size_t)k * CR_PANEL;
        _mm_prefetch((const char *)(wk + 16 * CR_PANEL), _MM_HINT_T0);
        __m256d w0 = _mm256_cvtps_pd(_mm_loadu_ps(wk)), w1 = _mm256_cvtps_pd(_mm_loadu_ps(wk + 4));
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            __m256d xk = _mm256_broadcast_sd(xd + (size_t)r * (size_t)K + (size_t)k);
            s[2 * r] = _mm256_fmadd_pd(xk, w0, s[2 * r]);
            s[2 * r + 1] = _mm256_fmadd_pd(xk, w1, s[2 * r + 1]);
        }
    }
#pragma GCC unroll 12
    for (int i = 0; i < 2 * R; ++i)
        _mm256_storeu_pd(acc + 4 * i, s[i]);
}

/* cr_tile_finish with AVX2, four outputs at a time: cr_certify's test on each lane (the same
 * conditions; an fma-free bound, rounded as the scalar one or not, is still a bound: 3), the
 * signed conversion as RN(s), the activation and the residual as in cr_epilogue. A lane whose
 * certificate fails goes through cr_output. Outputs past the last whole vector: cr_output. */
static inline __attribute__((always_inline, target("avx2,fma"))) long
cr_tile_finish256(const cr_layer_args *a, const double *acc, const double *nx, int r0, int R,
                  int o0)
{
    long fallbacks = 0;
    int n = a->out - o0 < CR_COLS ? a->out - o0 : CR_COLS;
    const __m256d sign = _mm256_set1_pd(-0.0), half = _mm256_set1_pd(0.5);
    const __m256d big = _mm256_set1_pd(0x1p127), zero = _mm256_setzero_pd();
    const __m256d scale = _mm256_set1_pd(a->scale);
    const __m128i one = _mm_set1_epi32(1);
    for (int r = 0; r < R; ++r) {
        const float *x = a->x + (size_t)(r0 + r) * (size_t)a->in;
        float *y = a->y + (size_t)(r0 + r) * (size_t)a->out;
        double *yd = a->yd + (size_t)(r0 + r) * (size_t)a->out;
        const __m256d nxr = _mm256_set1_pd(nx[r]);
        int c = 0;
        for (; c + 4 <= n; c += 4) {
            int o = o0 + c;
            __m256d b = a->bias ? _mm256_cvtps_pd(_mm_loadu_ps(a->bias + o)) : zero;
            __m256d s = _mm256_add_pd(_mm256_loadu_pd(acc + r * CR_COLS + c), b);
            __m256d err = _mm256_mul_pd(
                scale, _mm256_add_pd(_mm256_mul_pd(nxr, _mm256_loadu_pd(a->wnorm + o)),
                                     _mm256_andnot_pd(sign, b)));
            __m256d abs = _mm256_andnot_pd(sign, s);
            __m128 r32 = _mm256_cvtpd_ps(abs);
            __m128i u = _mm_castps_si128(r32);
            __m256d rd = _mm256_cvtps_pd(r32);
            __m256d lo = _mm256_cvtps_pd(_mm_castsi128_ps(_mm_sub_epi32(u, one)));
            __m256d hi = _mm256_cvtps_pd(_mm_castsi128_ps(_mm_add_epi32(u, one)));
            __m256d mid_lo = _mm256_mul_pd(_mm256_add_pd(rd, lo), half);
            __m256d mid_hi = _mm256_mul_pd(_mm256_add_pd(rd, hi), half);
            __m256d ok = _mm256_and_pd(
                _mm256_and_pd(_mm256_cmp_pd(abs, big, _CMP_LT_OQ),
                              _mm256_cmp_pd(rd, zero, _CMP_NEQ_OQ)),
                _mm256_and_pd(_mm256_cmp_pd(_mm256_sub_pd(abs, mid_lo), err, _CMP_GT_OQ),
                              _mm256_cmp_pd(_mm256_sub_pd(mid_hi, abs), err, _CMP_GT_OQ)));
            __m128 v = _mm256_cvtpd_ps(s);
            if (a->act == CP_ACT_RELU) /* (v <= 0) ? +0 : v */
                v = _mm_andnot_ps(_mm_cmp_ps(v, _mm_setzero_ps(), _CMP_LE_OQ), v);
            if (a->residual)
                v = _mm_add_ps(_mm_loadu_ps(x + o), v);
            _mm_storeu_ps(y + o, v);
            _mm256_storeu_pd(yd + o, _mm256_cvtps_pd(v));
            int certified = _mm256_movemask_pd(ok);
            for (int j = 0; certified != 15 && j < 4; ++j)
                if (!(certified >> j & 1)) {
                    y[o + j] = cr_output(a, acc[r * CR_COLS + c + j], nx[r], x, o + j, &fallbacks);
                    yd[o + j] = (double)y[o + j];
                }
        }
        for (; c < n; ++c) {
            y[o0 + c] = cr_output(a, acc[r * CR_COLS + c], nx[r], x, o0 + c, &fallbacks);
            yd[o0 + c] = (double)y[o0 + c];
        }
    }
    return fallbacks;
}

CR_UNIT(__attribute__((target("avx2,fma"))), cr_unit256, cr_tile256, cr_tile_finish256)

/* ---- the AVX-512 kernel ------------------------------------------------------------------
 * A tile is R rows × NP whole panels (NP·CR_PANEL outputs): 2·R·NP zmm accumulators of 8
 * doubles, at most CR512_ACC of the 32 registers. Each k converts a panel's 16 weights to
 * double once (two vcvtps2pd) for the R rows, and each row's input is an embedded broadcast:
 * at B = 64, 12 rows share a conversion; at B = 1 the row keeps 8 panels (16 chains) in flight,
 * where one chain per fma latency would stall. Any order of the double sum is covered by 2. */
#define CR512_ACC 24
#define CR512_ROWS 12

static inline __attribute__((always_inline, target("avx512f"))) void
cr_tile512(const double *restrict xd, int K, const float *restrict wp, double *restrict acc,
           const int R, const int NP)
{
    __m512d s[CR512_ACC];
#pragma GCC unroll 24
    for (int i = 0; i < 2 * R * NP; ++i)
        s[i] = _mm512_setzero_pd();
    for (int k = 0; k < K; ++k) {
#pragma GCC unroll 8
        for (int j = 0; j < NP; ++j) {
            const float *wk = wp + ((size_t)j * (size_t)K + (size_t)k) * CR_PANEL;
            _mm_prefetch((const char *)(wk + 16 * CR_PANEL), _MM_HINT_T0);
            __m512d w0 = _mm512_cvtps_pd(_mm256_loadu_ps(wk));
            __m512d w1 = _mm512_cvtps_pd(_mm256_loadu_ps(wk + 8));
#pragma GCC unroll 12
            for (int r = 0; r < R; ++r) {
                __m512d xk = _mm512_set1_pd(xd[(size_t)r * (size_t)K + (size_t)k]);
                s[2 * (r * NP + j)] = _mm512_fmadd_pd(xk, w0, s[2 * (r * NP + j)]);
                s[2 * (r * NP + j) + 1] = _mm512_fmadd_pd(xk, w1, s[2 * (r * NP + j) + 1]);
            }
        }
    }
#pragma GCC unroll 24
    for (int i = 0; i < 2 * R * NP; ++i)
        _mm512_storeu_pd(acc + 8 * i, s[i]);
}

/* The floats p[i] where mask m has bit i, else 0 (AVX-512 F has no 8-float masked load). */
static inline __attribute__((always_inline, target("avx512f"))) __m256 cr_load8(__mmask8 m,
                                                                                const float *p)
{
    return _mm512_castps512_ps256(_mm512_maskz_loadu_ps((__mmask16)m, p));
}

/* The rest of a tile of R rows from row r0 × the NP panels' outputs from o0 (acc: row r's sums
 * at acc[r · NP · CR_PANEL ..]), eight outputs at a time, the last ones masked: the bias in
 * double, cr_certify's test on each lane (as cr_tile_finish256), RN(s) by the signed conversion,
 * the activation and the residual as in cr_epilogue. A lane whose certificate fails goes
 * through cr_output. Returns the fallbacks. */
static inline __attribute__((always_inline, target("avx512f"))) long
cr_tile_finish512(const cr_layer_args *a, const double *acc, const double *nx, int r0, int R,
                  int o0, int NP)
{
    long fallbacks = 0;
    int n = a->out - o0 < NP * CR_PANEL ? a->out - o0 : NP * CR_PANEL;
    const __m512d half = _mm512_set1_pd(0.5), big = _mm512_set1_pd(0x1p127);
    const __m512d zero = _mm512_setzero_pd(), scale = _mm512_set1_pd(a->scale);
    const __m256i one = _mm256_set1_epi32(1);
    for (int r = 0; r < R; ++r) {
        const float *x = a->x + (size_t)(r0 + r) * (size_t)a->in;
        float *y = a->y + (size_t)(r0 + r) * (size_t)a->out;
        double *yd = a->yd + (size_t)(r0 + r) * (size_t)a->out;
        const double *accr = acc + (size_t)r * (size_t)(NP * CR_PANEL);
        const __m512d nxr = _mm512_set1_pd(nx[r]);
        for (int c = 0; c < n; c += 8) {
            int o = o0 + c;
            __mmask8 m = n - c >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - c)) - 1u);
            __m512d b = a->bias ? _mm512_cvtps_pd(cr_load8(m, a->bias + o)) : zero;
            __m512d s = _mm512_add_pd(_mm512_maskz_loadu_pd(m, accr + c), b);
            __m512d err = _mm512_mul_pd(
                scale, _mm512_add_pd(_mm512_mul_pd(nxr, _mm512_maskz_loadu_pd(m, a->wnorm + o)),
                                     _mm512_abs_pd(b)));
            __m512d abs = _mm512_abs_pd(s);
            __m256 r32 = _mm512_cvtpd_ps(abs);
            __m256i u = _mm256_castps_si256(r32);
            __m512d rd = _mm512_cvtps_pd(r32);
            __m512d lo = _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_sub_epi32(u, one)));
            __m512d hi = _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_add_epi32(u, one)));
            __m512d mid_lo = _mm512_mul_pd(_mm512_add_pd(rd, lo), half);
            __m512d mid_hi = _mm512_mul_pd(_mm512_add_pd(rd, hi), half);
            __mmask8 ok = _mm512_cmp_pd_mask(abs, big, _CMP_LT_OQ) &
                          _mm512_cmp_pd_mask(rd, zero, _CMP_NEQ_OQ) &
                          _mm512_cmp_pd_mask(_mm512_sub_pd(abs, mid_lo), err, _CMP_GT_OQ) &
                          _mm512_cmp_pd_mask(_mm512_sub_pd(mid_hi, abs), err, _CMP_GT_OQ);
            __m256 v = _mm512_cvtpd_ps(s);
            if (a->act == CP_ACT_RELU) /* (v <= 0) ? +0 : v */
                v = _mm256_andnot_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LE_OQ), v);
            if (a->residual)
                v = _mm256_add_ps(cr_load8(m, x + o), v);
            _mm512_mask_storeu_ps(y + o, (__mmask16)m, _mm512_castps256_ps512(v));
            _mm512_mask_storeu_pd(yd + o, m, _mm512_cvtps_pd(v));
            unsigned bad = (unsigned)(m & (__mmask8)~ok);
            for (int j = 0; bad && j < 8; ++j, bad >>= 1)
                if (bad & 1u) {
                    y[o + j] = cr_output(a, accr[c + j], nx[r], x, o + j, &fallbacks);
                    yd[o + j] = (double)y[o + j];
                }
        }
    }
    return fallbacks;
}

/* cr_norm_f64 with 16 partial sums of squares in two zmm registers (any order is covered by 3;
 * a square of a float's value is exact, so its fma is one rounded add), a masked tail. */
static inline __attribute__((always_inline, target("avx512f"))) double cr_norm512(const double *x,
                                                                                  int n)
{
    __m512d p0 = _mm512_setzero_pd(), p1 = _mm512_setzero_pd();
    int k = 0;
    for (; k + 16 <= n; k += 16) {
        __m512d a = _mm512_loadu_pd(x + k), b = _mm512_loadu_pd(x + k + 8);
        p0 = _mm512_fmadd_pd(a, a, p0);
        p1 = _mm512_fmadd_pd(b, b, p1);
    }
    for (; k < n; k += 8) {
        __m512d a = _mm512_maskz_loadu_pd(
            n - k >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - k)) - 1u), x + k);
        p0 = _mm512_fmadd_pd(a, a, p0);
    }
    return sqrt(_mm512_reduce_add_pd(_mm512_add_pd(p0, p1)));
}

/* R rows × NP panels from panel pn: the tile, then its outputs. */
#define CR512_TILE(R, NP)                                                                          \
    do {                                                                                           \
        cr_tile512(xd, K, w, acc, R, NP);                                                          \
        fallbacks += cr_tile_finish512(a, acc, nx, r, R, pn * CR_PANEL, NP);                       \
    } while (0)

/* Rows [r0, r1) × panels [p0, p1): tiles of at most CR512_ROWS rows (split evenly near the
 * end), each with as many panels as CR512_ACC accumulators allow (at most 8), one panel at a
 * time where fewer are left; the rows' norms first. The shape of a tile changes no bit. */
__attribute__((target("avx512f"))) static long cr_unit512(const cr_layer_args *a, int r0, int r1,
                                                          int p0, int p1)
{
    const int K = a->in;
    long fallbacks = 0;
    double acc[CR512_ACC * 8];
    for (int r = r0; r < r1;) {
        int left = r1 - r;
        int R = left >= 2 * CR512_ROWS ? CR512_ROWS : left > CR512_ROWS ? (left + 1) / 2 : left;
        const double *xd = a->xd + (size_t)r * (size_t)K;
        double nx[CR512_ROWS];
        for (int i = 0; i < R; ++i)
            nx[i] = cr_norm512(xd + (size_t)i * (size_t)K, K);
        int most = CR512_ACC / (2 * R) < 8 ? CR512_ACC / (2 * R) : 8;
        for (int pn = p0; pn < p1;) {
            const float *w = a->wp + (size_t)pn * (size_t)K * CR_PANEL;
            int left_p = p1 - pn;
            /* the widest tile that fits the panels left: one or two rows keep 2, 4 or 8 chains
             * a row in flight at a layer's odd end too */
            int np = left_p >= most          ? most
                     : R <= 2 && left_p >= 4 ? 4
                     : R <= 2 && left_p >= 2 ? 2
                                             : 1;
            switch (R * 16 + np) {
            case 1 * 16 + 8:
                CR512_TILE(1, 8);
                break;
            case 1 * 16 + 4:
                CR512_TILE(1, 4);
                break;
            case 1 * 16 + 2:
                CR512_TILE(1, 2);
                break;
            case 2 * 16 + 6:
                CR512_TILE(2, 6);
                break;
            case 2 * 16 + 4:
                CR512_TILE(2, 4);
                break;
            case 2 * 16 + 2:
                CR512_TILE(2, 2);
                break;
            case 3 * 16 + 4:
                CR512_TILE(3, 4);
                break;
            case 4 * 16 + 3:
                CR512_TILE(4, 3);
                break;
            case 5 * 16 + 2:
                CR512_TILE(5, 2);
                break;
            case 6 * 16 + 2:
                CR512_TILE(6, 2);
                break;
            case 12 * 16 + 1:
                CR512_TILE(12, 1);
                break;
            case 11 * 16 + 1:
                CR512_TILE(11, 1);
                break;
            case 10 * 16 + 1:
                CR512_TILE(10, 1);
                break;
            case 9 * 16 + 1:
                CR512_TILE(9, 1);
                break;
            case 8 * 16 + 1:
                CR512_TILE(8, 1);
                break;
            case 7 * 16 + 1:
                CR512_TILE(7, 1);
                break;
            case 6 * 16 + 1:
                CR512_TILE(6, 1);
                break;
            case 5 * 16 + 1:
                CR512_TILE(5, 1);
                break;
            case 4 * 16 + 1:
                CR512_TILE(4, 1);
                break;
            case 3 * 16 + 1:
                CR512_TILE(3, 1);
                break;
            case 2 * 16 + 1:
                CR512_TILE(2, 1);
                break;
            default:
                CR512_TILE(1, 1);
            }
            pn += np;
        }
        r += R;
    }
    return fallbacks;
}
#endif

cr_unit_fn cr_unit_get(enum cr_kernel k)
{
#ifdef HAVE_CR_ISA
    switch (k) {
    case CR_KERNEL_C:
        return cr_unit;
    case CR_KERNEL_C_AVX2:
        return cr_unit_avx2;
    case CR_KERNEL_C_AVX512:
        return cr_unit_avx512;
    case CR_KERNEL_AVX2:
        return cr_unit256;
    case CR_KERNEL_AVX512:
        return cr_unit512;
    }
#else
    (void)k;
#endif
    return cr_unit;
}
