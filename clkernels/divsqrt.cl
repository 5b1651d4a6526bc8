/* Correctly rounded float division and square root from float operations alone, for a device
 * that neither reports CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT nor has double precision (Mesa's
 * rusticl on llvmpipe): train's "float (fma correction)" way (docs/TRAINING.md), included by
 * train.cl. Round to nearest, ties to even, as IEEE 754 and the host's `/` and sqrtf.
 *
 * What it relies on: OpenCL's fma is correctly rounded on every device (the specification's
 * 0 ULP, whatever CL_FP_FMA says: that bit reports hardware fma; Oclgrind and rusticl clear it
 * and compute fma exactly, rusticl but for the sign of one zero, which nothing here depends
 * on: an fma result is only compared with zero, or added to a nonzero product), and the
 * device's own `/` and sqrt within a few ULP (OpenCL allows 2.5 and 3, 3 and 4 in the
 * embedded profile): they only give the first guess.
 * Nothing else: every operand of the arithmetic below is a normal float and no result
 * underflows, so a device that flushes subnormals (no CL_FP_DENORM) computes the same bits;
 * subnormal inputs and results are taken apart and put together by their bits. A device whose
 * fma is wrong fails train's probe of this way (tr_divsqrt against the host on clparity ulp's
 * sample), and `clparity ulp` measures it (rows train_divide and train_sqrt).
 *
 * Proof sketch. Write ulp(a) for the gap from a to the next float up, and note that the sign
 * of an fma's result is the sign of the exact a·b + c (correct rounding is monotone and rounds
 * only 0 to 0), and that RN(v) = v whenever v is a float.
 *
 * Division x / y (finite, nonzero; the other cases by bits first). x = X·2^ex and y = Y·2^ey
 * with X, Y in [1, 2) (subnormals normalised by shifting their bits), E = ex − ey; the
 * quotient is Z·2^E with Z = X / Y in (1/2, 2).
 *  1. Bracket. a starts at the device's X / Y, clamped into [1/2, 2]. The sign of
 *     fma(−a, Y, X) is the sign of X − aY, i.e. of Z − a, exactly: a moves down while it is
 *     negative, then up while the next float b = a⁺ still has X − bY > 0 (at most
 *     CP_DIVSQRT_WALK steps each). A guess within k ULP of Z needs at most 2k steps (below
 *     a binade's edge the floats are twice as dense), and the test hook's skew adds 3: 2·3 + 3
 *     = 9 for the embedded profile's 3 ULP, so 16 leaves room. Then a ≤ Z ≤ b = a + ulp(a):
 *     a is faithful.
 *  2. Its residual r = fma(−a, Y, X) is exact: X and aY are multiples of q = ulp(a)·2^-23,
 *     and |X − aY| = (Z − a)·Y ≤ ulp(a)·Y < 2^24·q, so X − aY is a float and fma returns it.
 *  3. Normal result (E ≥ −125: Z·2^E > 2^-126). RN(Z) is a or b; Z > a + h (h = ulp(a)/2,
 *     exact as (b − a)/2) iff X − (a + h)·Y = r − hY > 0, whose sign fma(−h, Y, r) gives
 *     exactly. Z = a + h is impossible: a + h has 25 significant bits, odd in the last, and
 *     (a + h)·Y = X would need an odd 25-bit integer times Y's odd part, at least 2^24, to be
 *     X's 24-bit significand. So no ties. RN(Z)·2^E is exact (the exponent field adds E; a
 *     field past 254 is overflow: ±inf, which is what RN gives past FLT_MAX + ulp/2).
 *  4. Subnormal or tiny result (E ≤ −126: Z·2^E < 2^-125). Every float below 2^-125 is a
 *     multiple of 2^-149, so the result is k·2^-149 with k = RN(Z·2^s), s = 149 + E ≤ 23,
 *     on a uniform grid u = 2^-s ≥ 2^-23 ≥ ulp(a); and the bits of k·2^-149 are the integer
 *     k itself for every k ≤ 2^24 (subnormals, then the first binade). s ≤ −2: Z·2^s < 1/2,
 *     k = 0. Else t = floor(a·2^s) (a·2^s is exact, in [2^-2, 2^24)), and Z lies in
 *     [t·u, (t + 1)·u] since a does and b = a + ulp(a) ≤ (t + 1)·u (both multiples of
 *     ulp(a)). The midpoint m = (2t + 1)·2^-(s+1):
 *     - where u = ulp(a) (s = 23, a ≥ 1), t·u = a and m = a + h: the decision of step 3;
 *     - else u ≥ 2·ulp(a), m has at most 24 significant bits (2t + 1 < 2^24), so it is a float
 *       and sign(fma(−m, Y, X)) = sign(X − mY) = sign(Z − m) exactly (X − mY is a multiple of
 *       2^-47 below 4 in magnitude: no underflow).
 *     k = t + 1 above the midpoint, t below, and the even one of them on it: a tie is
 *     possible here (2^-149 / 2 is halfway between 0 and 2^-149), and it goes to even.
 * Square root x (positive, finite). x = X·2^e with X in [1, 4) and e even (X doubled when
 * the exponent is odd); S = sqrt(X) in [1, 2) and the result S·2^(e/2) is always normal.
 *  1. Bracket as above with the sign of fma(−a, a, X) = sign(X − a²) = sign(S − a), from the
 *     device's sqrt(X) clamped into [1, 2 − 2^-23]: a ≤ S ≤ b = a + 2^-23.
 *  2. The midpoint m = a + 2^-24 has m² = a·b + 2^-48. X and a·b are multiples of 2^-46, so
 *     X − a·b > 2^-48 iff X − a·b > 0, and X = m² cannot happen (no ties). So RN(S) = b iff
 *     fma(−a, b, X) > 0: one exactly signed fma, where X − a² itself need not be a float.
 *     X ≤ 4 − 2^-22 (the largest float below 4), so S ≤ sqrt(4 − 2^-22) < 2 − 2^-24, the
 *     midpoint of 2 − 2^-23 and 2: RN(S) ≤ 2 − 2^-23 keeps the exponent field of [1, 2), and
 *     adding e/2 (in [−75, 63]) to it is exact.
 * NaN: the input's, quieted (or the default NaN); the host's payload may differ, and nothing
 * compares payloads. Zeros, infinities and signs as IEEE 754.
 *
 * Test hooks (clparity ulp and train, CLPARITY_TEST_HOOK): CP_DIVSQRT_SKEW moves each first
 * guess by −3..+3 ULP (the bracket must still find the answer); CP_DIVSQRT_NO_CORRECTION
 * returns the guess as it is, scaled by ldexp and rint (the planted error the tests catch). */
#ifndef CP_DIVSQRT_WALK
#define CP_DIVSQRT_WALK 16
#endif

/* The next float up and down of a positive normal float. */
float cp_fup(float a)
{
    return as_float(as_uint(a) + 1u);
}

float cp_fdown(float a)
{
    return as_float(as_uint(a) - 1u);
}

/* ax: the bits of a positive finite nonzero float; returns X in [1, 2) and *e with
 * ax's value = X·2^e, subnormals included (by their bits, never by arithmetic). */
float cp_unpack(uint ax, int *e)
{
    uint ex = ax >> 23, mant = ax & 0x7fffffu;
    if (ex == 0u) {
        int s = (int)clz(mant) - 8; /* mant's top bit to bit 23 */
        mant <<= s;
        *e = -126 - s;
        return as_float(0x3f800000u | (mant & 0x7fffffu));
    }
    *e = (int)ex - 127;
    return as_float(0x3f800000u | mant);
}

/* The first guess of X / Y or sqrt(X) moved by −3..+3 ULP (a function of the input's bits),
 * for the test hook divsqrt-skew; and clamped back into [lo, hi]. */
float cp_skew(float a, uint bits, float lo, float hi)
{
#ifdef CP_DIVSQRT_SKEW
    a = as_float(as_uint(a) + (uint)((int)(bits % 7u) - 3));
#endif
    return fmin(fmax(a, lo), hi);
}

float cp_div_cr(float x, float y)
{
    uint bx = as_uint(x), by = as_uint(y);
    uint sign = (bx ^ by) & 0x80000000u, ax = bx & 0x7fffffffu, ay = by & 0x7fffffffu;
    /* Each case its own branch: written with selects (ay == inf ? NaN : ±inf), Oclgrind 21.10
     * carried x / −inf on into the finite path (docs/VENDORS.md, "Quirks") */
    uint fx = ax >> 23, fy = ay >> 23;
    if (fx == 255u || fy == 255u || ax == 0u || ay == 0u) {
        if (fx == 255u && (ax & 0x7fffffu)) /* NaN: x's, quieted */
            return as_float(bx | 0x400000u);
        if (fy == 255u && (ay & 0x7fffffu))
            return as_float(by | 0x400000u);
        if ((fx == 255u && fy == 255u) || (ax == 0u && ay == 0u)) /* inf / inf, 0 / 0 */
            return as_float(0xffc00000u);
        if (fx == 255u || ay == 0u) /* inf / y, x / 0 */
            return as_float(sign | 0x7f800000u);
        return as_float(sign); /* x / inf, 0 / y */
    }
    int ex, ey;
    float X = cp_unpack(ax, &ex), Y = cp_unpack(ay, &ey);
    int E = ex - ey;
    float a = cp_skew(X / Y, bx, 0.5f, 2.0f);
#ifdef CP_DIVSQRT_NO_CORRECTION
    if (E >= -125) {
        if ((int)(as_uint(a) >> 23) + E > 254)
            return as_float(sign | 0x7f800000u);
        return as_float(sign | (as_uint(a) + (uint)E * 0x800000u));
    }
    return as_float(sign | (149 + E < -1 ? 0u : (uint)rint(ldexp(a, 149 + E))));
#endif
    /* step 1: a ≤ Z ≤ b = a⁺ */
    float r = fma(-a, Y, X);
    for (int i = 0; i < CP_DIVSQRT_WALK && r < 0.0f; ++i) {
        a = cp_fdown(a);
        r = fma(-a, Y, X);
    }
    float b = cp_fup(a), rb = fma(-b, Y, X);
    for (int i = 0; i < CP_DIVSQRT_WALK && rb > 0.0f; ++i) {
        a = b;
        r = rb;
        b = cp_fup(b);
        rb = fma(-b, Y, X);
    }
    /* r = X − aY exactly (step 2); the sign of Z − (a + ulp(a)/2) */
    float dh = fma(-0.5f * (b - a), Y, r);
    if (E >= -125) { /* step 3 */
        float q = dh > 0.0f || (dh == 0.0f && (as_uint(a) & 1u)) ? b : a;
        if ((int)(as_uint(q) >> 23) + E > 254)
            return as_float(sign | 0x7f800000u);
        return as_float(sign | (as_uint(q) + (uint)E * 0x800000u));
    }
    int s = 149 + E; /* step 4 */
    if (s < -1)
        return as_float(sign);
    float t = floor(ldexp(a, s));
    float d = (s == 23 && a >= 1.0f) ? dh : fma(-ldexp(2.0f * t + 1.0f, -(s + 1)), Y, X);
    uint k = (uint)t + (d > 0.0f || (d == 0.0f && ((uint)t & 1u)) ? 1u : 0u);
    return as_float(sign | k);
}

float cp_sqrt_cr(float x)
{
    uint bx = as_uint(x), ax = bx & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return as_float(bx | 0x400000u);
    if (ax == 0u || bx == 0x7f800000u) /* ±0, +inf */
        return x;
    if (bx & 0x80000000u)
        return as_float(0xffc00000u);
    int e;
    float X = cp_unpack(bx, &e);
    if (e & 1) { /* odd, negative ones too: X in [2, 4), e even */
        X = 2.0f * X;
        e -= 1;
    }
    float a = cp_skew(sqrt(X), bx, 1.0f, 0x1.fffffep0f);
#ifndef CP_DIVSQRT_NO_CORRECTION
    for (int i = 0; i < CP_DIVSQRT_WALK && fma(-a, a, X) < 0.0f; ++i)
        a = cp_fdown(a);
    float b = cp_fup(a);
    for (int i = 0; i < CP_DIVSQRT_WALK && fma(-b, b, X) > 0.0f; ++i) {
        a = b;
        b = cp_fup(b);
    }
    if (fma(-a, b, X) > 0.0f) /* step 2 */
        a = b;
#endif
    return as_float(as_uint(a) + (uint)(e / 2) * 0x800000u);
}
