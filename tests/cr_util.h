/* Shared by the tests of the correctly rounded engines (test_cr.c: host:cr, test_cr_cl.c:
 * cl:cr): a layer whose outputs sit on or next to rounding boundaries. */
#ifndef CLPARITY_TEST_CR_UTIL_H
#define CLPARITY_TEST_CR_UTIL_H

#include "clparity/error.h"
#include "clparity/model.h"

#include <math.h>
#include <stdint.h>

enum { CR_BOUND_IN = 5, CR_BOUND_OUT = 37, CR_BOUND_B = 3 };

/* One layer (no activation, no residual) whose outputs sit on or next to rounding boundaries,
 * where a fast path must fall back: output o is a + t (+ the rest) with a a float of [1, 2)
 * times a scale and t half its ulp, plus or minus a nudge far below the double sum's error, or
 * exactly; or a or t cancelled by another weight or the bias; the scales put the outputs near
 * 1, 2^-120 and 2^100. An infinite weight (output 3) and a NaN one (output 11). Its
 * CR_BOUND_B input rows go to x: x = 1, x = -1, and x = 1 but x[2] = 0 (no nudge). W, bias and
 * x are the caller's (CR_BOUND_OUT × CR_BOUND_IN, CR_BOUND_OUT, CR_BOUND_B × CR_BOUND_IN);
 * returns the model (cp_model_delete), or NULL where cp_model_add_layer failed. */
static inline cp_model *cr_boundary_model(float *W, float *bias, float *x)
{
    enum { IN = CR_BOUND_IN, OUT = CR_BOUND_OUT, B = CR_BOUND_B };
    uint64_t s = 12345;
    for (int o = 0; o < OUT; ++o) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        float a = 1.0f + (float)(s >> 41) * 0x1p-23f; /* 1 <= a < 2, ulp 2^-23 */
        int kind = o % 6;
        float scale = o % 7 == 0 ? 0x1p-120f : o % 7 == 1 ? 0x1p100f : 1.0f;
        float nudge = o % 7 == 0 ? 0x1p-149f : o % 7 == 1 ? 0x1p40f : 0x1p-60f;
        W[o * IN + 0] = a * scale;
        W[o * IN + 1] = 0x1p-24f * scale; /* the tie */
        W[o * IN + 2] = kind == 0 ? nudge : kind == 1 ? -nudge : 0.0f;
        W[o * IN + 3] = kind == 3 || kind == 5 ? -a * scale : 0.0f;
        W[o * IN + 4] = kind == 4 || kind == 5 ? -0x1p-24f * scale : 0.0f;
        bias[o] = kind == 2 ? 0x1p-149f * (float)(o % 3) : 0.0f; /* 0 or off the tie */
    }
    W[3 * IN + 2] = INFINITY;
    W[11 * IN + 2] = NAN;
    for (int b = 0; b < B; ++b)
        for (int k = 0; k < IN; ++k)
            x[b * IN + k] = b == 0 ? 1.0f : b == 1 ? -1.0f : (k == 2 ? 0.0f : 1.0f);
    cp_model *m = cp_model_new();
    if (m && cp_model_add_layer(m, IN, OUT, W, bias, CP_ACT_NONE, false) != CP_OK) {
        cp_model_delete(m);
        m = NULL;
    }
    return m;
}

#endif
