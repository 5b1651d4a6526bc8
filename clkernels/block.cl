/* The reference block and its general form, one work-item per output element:
 *   y[b][o] = (residual ? x[b][o] : 0) + act(sum_k x[b][k] * W[o][k] + bias[o])
 * The sum runs k ascending with an explicit fma from 0.0f, and nothing may be contracted or
 * reordered: that fixed order is what makes every conforming device give host:exact's bits.
 * The bias, when present, is added once, after the last fma. */
#pragma OPENCL FP_CONTRACT OFF

#include "mac.cl" /* CP_MAC: fma, or cl:relaxed's contracted a * b + c */

/* DESIGN's ReLU: NaN propagates, -0 becomes +0. */
float cp_relu(float v)
{
    return (v <= 0.0f) ? 0.0f : v;
}

float cp_finish(float acc, float xo, int act, int residual)
{
    float r = act ? cp_relu(acc) : acc;
    return residual ? xo + r : r;
}

#ifndef CP_PLANT_MASK
#define CP_PLANT_MASK 1u
#endif
#ifdef CP_PLANT_BIT /* test hooks kernel-bit:naive (the last bit), relaxed-wrong (a high one) */
#define CP_PLANT(v, at) ((at) ? as_float(as_uint(v) ^ CP_PLANT_MASK) : (v))
#else
#define CP_PLANT(v, at) (v)
#endif

__kernel void cp_linear(__global const float *restrict x, __global float *restrict y,
                        __global const float *restrict p, ulong w_off, int in, int out,
                        int has_bias, ulong b_off, int act, int residual)
{
    size_t o = get_global_id(0);
    size_t b = get_global_id(1);
    if (o >= (size_t)out)
        return;
    __global const float *xr = x + b * (size_t)in;
    __global const float *wr = p + w_off + o * (size_t)in;
    float acc = 0.0f;
    for (int k = 0; k < in; ++k)
        acc = CP_MAC(xr[k], wr[k], acc);
    if (has_bias)
        acc = acc + p[b_off + o];
    y[b * (size_t)out + o] =
        CP_PLANT(cp_finish(acc, residual ? xr[o] : 0.0f, act, residual), o == 0 && b == 0);
}

/* After a GEMM or GEMV (cl:clblast): t holds x·Wᵀ; add the bias, the activation and the
 * residual. t is then set to zero: CLBlast's GEMV computes alpha·A·x + beta·y and reads y even
 * where beta is 0, so that a NaN or an infinity left in t (garbage, or a layer that overflowed)
 * would turn the next layer's outputs into NaN (0·NaN, 0·Inf). */
__kernel void cp_epilogue(__global float *restrict t, __global const float *restrict x,
                          __global float *restrict y, __global const float *restrict p,
                          int in, int out, int has_bias, ulong b_off, int act, int residual)
{
    size_t o = get_global_id(0);
    size_t b = get_global_id(1);
    if (o >= (size_t)out)
        return;
    float acc = t[b * (size_t)out + o];
    t[b * (size_t)out + o] = 0.0f;
    if (has_bias)
        acc = acc + p[b_off + o];
    y[b * (size_t)out + o] =
        cp_finish(acc, residual ? x[b * (size_t)in + o] : 0.0f, act, residual);
}
