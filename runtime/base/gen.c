#include "clparity/gen.h"

#include <math.h>
#include <string.h>

uint64_t cp_gen_splitmix64(uint64_t x)
{
    uint64_t z = x + UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t cp_gen_bits(uint64_t seed, uint64_t tensor, uint64_t index)
{
    return cp_gen_splitmix64(cp_gen_splitmix64(cp_gen_splitmix64(seed) ^ tensor) ^ index);
}

float cp_gen_uniform(uint64_t seed, uint64_t tensor, uint64_t index)
{
    /* 24 bits convert to float exactly, and the scale is a power of two: exact. */
    return (float)(cp_gen_bits(seed, tensor, index) >> 40) * 0x1p-24f;
}

float cp_gen_linear_bound(int fan_in)
{
    /* sqrtf and the division are correctly rounded in IEEE arithmetic. */
    return 1.0f / sqrtf((float)fan_in);
}

float cp_gen_weight(uint64_t seed, uint64_t tensor, uint64_t index, float bound, float scale)
{
    float u = cp_gen_uniform(seed, tensor, index);
    float t = 2.0f * u;
    t = t - 1.0f;
    t = t * bound;
    return t * scale;
}

double cp_gen_log(double x)
{
    /* x = m · 2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2·atanh(t), t = (m−1)/(m+1), and
     * |t| ≤ 0.1716, so 14 odd terms are far below double's rounding. */
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff);
    if (e == 0) { /* subnormal: scale into the normal range first */
        double y = x * 0x1p54;
        memcpy(&bits, &y, sizeof bits);
        e = (int)((bits >> 52) & 0x7ff) - 54;
    }
    e -= 1023;
    bits = (bits & UINT64_C(0x000FFFFFFFFFFFFF)) | (UINT64_C(1023) << 52);
    double m;
    memcpy(&m, &bits, sizeof m);
    if (m > 1.4142135623730951) {
        m = m / 2.0;
        e += 1;
    }
    double t = (m - 1.0) / (m + 1.0);
    double t2 = t * t;
    double term = t;
    double sum = 0.0;
    for (int k = 1; k <= 29; k += 2) {
        sum = sum + term / (double)k;
        term = term * t2;
    }
    const double ln2 = 0.69314718055994530942;
    return 2.0 * sum + (double)e * ln2;
}

float cp_gen_normal(uint64_t seed, uint64_t tensor, uint64_t index)
{
    for (uint64_t a = 0; a < 128; ++a) {
        double u = 2.0 * (double)cp_gen_uniform(seed, tensor, index * 256 + 2 * a) - 1.0;
        double v = 2.0 * (double)cp_gen_uniform(seed, tensor, index * 256 + 2 * a + 1) - 1.0;
        double s = u * u + v * v;
        if (s > 0.0 && s < 1.0)
            return (float)(u * sqrt(-2.0 * cp_gen_log(s) / s));
    }
    /* 128 rejections in a row have probability 0.2146^128 ≈ 1e-86. */
    return 0.0f;
}

void cp_gen_fill_uniform_weights(float *dst, size_t n, uint64_t seed, uint64_t tensor, float bound,
                                 float scale)
{
    for (size_t i = 0; i < n; ++i)
        dst[i] = cp_gen_weight(seed, tensor, i, bound, scale);
}

void cp_gen_fill_normal(float *dst, size_t n, uint64_t seed, uint64_t tensor)
{
    for (size_t i = 0; i < n; ++i)
        dst[i] = cp_gen_normal(seed, tensor, i);
}
