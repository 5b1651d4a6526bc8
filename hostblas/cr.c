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

float cr_dot_zero(const float *x, const float *w, int n, const float *bias)
{
    /* a term is -0 where its sign bit is set: a product's is x's xor w's */
    for (int k = 0; k < n; ++k)
        if (((cr_bits(x[k]) ^ cr_bits(w[k])) >> 31) == 0)
            return 0.0f;
    if (bias)
        return (cr_bits(*bias) >> 31) ? -0.0f : 0.0f;
    return n > 0 ? -0.0f : 0.0f;
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
