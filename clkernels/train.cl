/* Training kernels of cl:own (clparity/train.h states the order of every operation, and
 * hostblas/train_host_tmpl.h is the C twin). Buffers are addressed by element offsets, so
 * that one buffer holds every layer's activations. Nothing may be contracted or reordered.
 *
 * cl:relaxed trains with these kernels too, built with -DCP_RELAXED -cl-fast-relaxed-math
 * -cl-mad-enable as its inference kernels are (block.cl): the sums' multiply-adds become a
 * plain a * b + c with contraction on, and the update divides and takes square roots with
 * native_divide and native_sqrt. Its weights may then drift from host:exact's: reported,
 * never promised. */
#ifdef CP_RELAXED
#pragma OPENCL FP_CONTRACT ON
#else
#pragma OPENCL FP_CONTRACT OFF
#endif

/* Mesa's llvmpipe (rusticl, 22.3) returns a·b for fma(a, b, ±0): −0 where a·b = −0 and c = +0,
 * which IEEE 754 and OpenCL make +0. Where train.c's check of fma's signed zeros saw that, it
 * builds with TR_FMA_ZERO_FIX (never with CP_RELAXED), and an exactly zero product takes
 * a * b + c instead (not contracted): with a or b zero both operations are exact, and the sum's
 * sign is IEEE's. (The sign of a zero gradient reaches the optimizer's state, and a weight of
 * exactly zero.) */
#ifdef TR_FMA_ZERO_FIX
float tr_fma(float a, float b, float c)
{
    return (a == 0.0f || b == 0.0f) ? a * b + c : fma(a, b, c);
}
#else
#define tr_fma fma
#endif

#ifdef CP_RELAXED
#define TR_MAC(a, b, c) ((a) * (b) + (c))
#else
#define TR_MAC(a, b, c) tr_fma(a, b, c)
#endif

#include "divsqrt.cl"

float tr_relu(float v)
{
    return (v <= 0.0f) ? 0.0f : v;
}

/* One work-item per (o, b): z = Σ_k fma(x, W) from 0, + bias; y = (residual ? x : 0) +
 * act(z). */
__kernel void tr_forward(__global const float *acts_in, ulong x_off,
                         __global float *acts_out, ulong y_off,
                         __global float *restrict zs, ulong z_off,
                         __global const float *restrict p, ulong w_off, int in, int out,
                         int has_bias, ulong b_off, int act, int residual)
{
    size_t o = get_global_id(0);
    size_t b = get_global_id(1);
    if (o >= (size_t)out)
        return;
    __global const float *x = acts_in + x_off + b * (size_t)in;
    __global const float *w = p + w_off + o * (size_t)in;
    float acc = 0.0f;
    for (int k = 0; k < in; ++k)
        acc = TR_MAC(x[k], w[k], acc);
    if (has_bias)
        acc = acc + p[b_off + o];
    zs[z_off + b * (size_t)out + o] = acc;
    float r = act ? tr_relu(acc) : acc;
    acts_out[y_off + b * (size_t)out + o] = residual ? x[o] + r : r;
}

/* g = s · (y − t), n elements. */
__kernel void tr_outgrad(__global const float *restrict acts, ulong y_off,
                         __global const float *restrict t, __global float *restrict g, int n,
                         float s)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    g[i] = s * (acts[y_off + i] - t[i]);
}

/* dz = act ? (z > 0 ? g : 0) : g. */
__kernel void tr_dz(__global const float *restrict g, __global const float *restrict zs,
                    ulong z_off, __global float *restrict dz, int n, int act)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    float gi = g[i];
    dz[i] = act ? (zs[z_off + i] > 0.0f ? gi : 0.0f) : gi;
}

/* One work-item per (k, b): dx = Σ_o fma(dz, W[o][k]) from 0, then + g[b][k] once for a
 * residual. Runs before tr_update_w, so W is the pre-update one. */
__kernel void tr_dx(__global const float *restrict dz, __global const float *restrict p,
                    ulong w_off, __global const float *restrict g, __global float *restrict dx,
                    int in, int out, int residual)
{
    size_t k = get_global_id(0);
    size_t b = get_global_id(1);
    if (k >= (size_t)in)
        return;
    __global const float *d = dz + b * (size_t)out;
    __global const float *w = p + w_off + k;
    float acc = 0.0f;
    for (int o = 0; o < out; ++o)
        acc = TR_MAC(d[o], w[(size_t)o * (size_t)in], acc);
    if (residual)
        acc = acc + g[b * (size_t)out + k];
    dx[b * (size_t)in + k] = acc;
}

/* gW[o][k] = Σ_b fma(dz[b][o], x[b][k]) from 0. */
float tr_gw(__global const float *restrict dz, __global const float *restrict x, size_t k,
            size_t o, int in, int out, int batch)
{
    float acc = 0.0f;
    for (int b = 0; b < batch; ++b)
        acc = TR_MAC(dz[(size_t)b * (size_t)out + o], x[(size_t)b * (size_t)in + k], acc);
    return acc;
}

/* gb[o] = Σ_b dz[b][o] from 0 (plain adds). */
float tr_gb(__global const float *restrict dz, size_t o, int out, int batch)
{
    float acc = 0.0f;
    for (int b = 0; b < batch; ++b)
        acc = acc + dz[(size_t)b * (size_t)out + o];
    return acc;
}

/* One work-item per weight (k, o): W = fma(−lr, gW, W) (plain SGD). */
__kernel void tr_update_w(__global const float *restrict dz,
                          __global const float *restrict acts, ulong x_off,
                          __global float *restrict p, ulong w_off, int in, int out, int batch,
                          float neg_lr)
{
    size_t k = get_global_id(0);
    size_t o = get_global_id(1);
    if (k >= (size_t)in)
        return;
    float acc = tr_gw(dz, acts + x_off, k, o, in, out, batch);
    size_t i = w_off + o * (size_t)in + k;
    p[i] = tr_fma(neg_lr, acc, p[i]);
}

/* bias = fma(−lr, gb, bias) (plain SGD). */
__kernel void tr_update_b(__global const float *restrict dz, __global float *restrict p,
                          ulong b_off, int out, int batch, float neg_lr)
{
    size_t o = get_global_id(0);
    if (o >= (size_t)out)
        return;
    float acc = tr_gb(dz, o, out, batch);
    p[b_off + o] = tr_fma(neg_lr, acc, p[b_off + o]);
}

/* The other optimizers: gW and gb into the gradient G (the parameters' layout), for the update
 * after the backward. */
__kernel void tr_grad_w(__global const float *restrict dz, __global const float *restrict acts,
                        ulong x_off, __global float *restrict G, ulong w_off, int in, int out,
                        int batch)
{
    size_t k = get_global_id(0);
    size_t o = get_global_id(1);
    if (k >= (size_t)in)
        return;
    G[w_off + o * (size_t)in + k] = tr_gw(dz, acts + x_off, k, o, in, out, batch);
}

__kernel void tr_grad_b(__global const float *restrict dz, __global float *restrict G,
                        ulong b_off, int out, int batch)
{
    size_t o = get_global_id(0);
    if (o >= (size_t)out)
        return;
    G[b_off + o] = tr_gb(dz, o, out, batch);
}

/* / and sqrt, the way train.c chose (cp_trainer_div_sqrt): correctly rounded by the device's
 * own (the build option -cl-fp32-correctly-rounded-divide-sqrt), in double where OpenCL rounds
 * them correctly, then rounded to float (TR_DIVSQRT_DOUBLE: the correctly rounded float, since
 * double rounding through 53 bits is innocuous for / and sqrt of 24-bit operands, 53 >= 2·24 +
 * 2), or in float with an fma correction (TR_DIVSQRT_FLOAT: divsqrt.cl); cl:relaxed's
 * native_divide and native_sqrt (CP_RELAXED). */
#if defined(CP_RELAXED)
float tr_div(float a, float b)
{
    return native_divide(a, b);
}
float tr_sqrt(float a)
{
    return native_sqrt(a);
}
#elif defined(TR_DIVSQRT_DOUBLE)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* The operands go through volatile doubles: a compiler may otherwise narrow
 * (float)((double)a / (double)b) to a float division (valid where that division is correctly
 * rounded), which NVIDIA's OpenCL 3.0 (driver 580) then does its default, approximate way: on
 * the H100, 0x1.eefbbp-76 / 0x1.eefbb8p-76 gave 0x1.fffff4p-1, not 0x1.fffff8p-1, in 2113 of
 * the probe's 16384 quotients (docs/VENDORS.md). */
float tr_div(float a, float b)
{
    volatile double da = a, db = b;
    return (float)(da / db);
}
float tr_sqrt(float a)
{
    volatile double da = a;
    return (float)sqrt(da);
}
#elif defined(TR_DIVSQRT_FLOAT)
float tr_div(float a, float b)
{
    return cp_div_cr(a, b);
}
float tr_sqrt(float a)
{
    return cp_sqrt_cr(a);
}
#else
float tr_div(float a, float b)
{
    return a / b;
}
float tr_sqrt(float a)
{
    return sqrt(a);
}
#endif

/* The optimizers' updates and tr_divsqrt (train_optim.cl) on floats. The test hooks
 * train-plant-m, -v and -root build with TR_PLANT 1, 2 or 3. */
#define TR_T float
#define TR_F(x) (x)
#define TR_FMA(a, b, c) tr_fma(a, b, c)
#define TR_MUL(a, b) ((a) * (b))
#define TR_ADD(a, b) ((a) + (b))
#define TR_SUB(a, b) ((a) - (b))
#define TR_DIV(a, b) tr_div(a, b)
#define TR_SQRT(a) tr_sqrt(a)
#define TR_SMALL(w) (fabs(w) < 0.5f)
#define TR_ONE 1.0f
#define TR_UP(a) nextafter(a, INFINITY)
#ifndef TR_PLANT
#define TR_PLANT 0
#endif
#include "train_optim.cl"

/* cl:own's tiled products (train_tile.cl), three sizes of work-item block; left out
 * (TR_NO_TILES) where the way never launches them (simple, cpu: PoCL by default), whose
 * compile they would lengthen, and only the size TR_TILE_RM where the way launches no other
 * (tiled1, tiled4, tiled8, and stream's 1: a driver may compile every kernel of a program,
 * runtime/engine/program-impl.h's cp_program_keep). */
#ifndef TR_NO_TILES
#if !defined(TR_TILE_RM) || TR_TILE_RM == 1
#define TR_RM 1
#define TR_SFX 1
#include "train_tile.cl"
#undef TR_RM
#undef TR_SFX
#endif
#if !defined(TR_TILE_RM) || TR_TILE_RM == 4
#define TR_RM 4
#define TR_SFX 4
#include "train_tile.cl"
#undef TR_RM
#undef TR_SFX
#endif
#if !defined(TR_TILE_RM) || TR_TILE_RM == 8
#define TR_RM 8
#define TR_SFX 8
#include "train_tile.cl"
#undef TR_RM
#undef TR_SFX
#endif
/* the step in one launch (train_stream.cl), built only for its way */
#ifdef TR_STREAM
#define TR_RM 1
#define TR_SFX s
#define TR_VOLATILE
#define TR_NO_KERNELS
#include "train_tile.cl"
#undef TR_RM
#undef TR_SFX
#undef TR_VOLATILE
#undef TR_NO_KERNELS
#include "grid_sync.cl"
#include "train_stream.cl"
#endif
#endif

/* cl:own on CPUs (train_cpu.cl), built only for that way: reg_tile.cl's register tile of 4
 * vectors of TR_VW floats × TR_RB rows (the forward's cpu paths'), with partial tiles, and its
 * multiply-add as tr_fma's on vectors (TR_FMA_ZERO_FIX: a·b + c where a product is exactly
 * zero). */
#ifdef TR_CPU
#ifndef TR_VW
#define TR_VW 16
#endif
#ifndef TR_RB
#define TR_RB 4
#endif
#define CP_VW TR_VW
#define CP_NV 4
#define CP_RB TR_RB
#define CP_TILE_PARTIAL
#ifdef TR_FMA_ZERO_FIX
#define CP_MAC(a, b, c) select(fma(a, b, c), (a) * (b) + (c), ((a) == 0.0f) | ((b) == 0.0f))
#else
#define CP_MAC(a, b, c) fma(a, b, c)
#endif
#include "reg_tile.cl"
#include "train_cpu.cl"
#endif

/* cl:clblast: after CLBlast's z = x·Wᵀ, the bias, the activation and the residual; z keeps
 * the pre-activation (with the bias). */
__kernel void tr_fwd_epi(__global const float *acts_in, ulong x_off, __global float *acts_out,
                         ulong y_off, __global float *restrict zs, ulong z_off,
                         __global const float *restrict p, int in, int out, int has_bias,
                         ulong b_off, int act, int residual)
{
    size_t o = get_global_id(0);
    size_t b = get_global_id(1);
    if (o >= (size_t)out)
        return;
    size_t i = z_off + b * (size_t)out + o;
    float acc = zs[i];
    if (has_bias)
        acc = acc + p[b_off + o];
    zs[i] = acc;
    float r = act ? tr_relu(acc) : acc;
    acts_out[y_off + b * (size_t)out + o] =
        residual ? acts_in[x_off + b * (size_t)in + o] + r : r;
}

/* cl:clblast: dx += g (the residual), n elements. */
__kernel void tr_add(__global float *restrict dx, __global const float *restrict g, int n)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    dx[i] = dx[i] + g[i];
}

/* cl:clblast: W = fma(−lr, gW, W) over n weights from w_off. */
__kernel void tr_axpy(__global float *restrict p, ulong w_off, __global const float *restrict gw,
                      int n, float neg_lr)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    p[w_off + i] = tr_fma(neg_lr, gw[i], p[w_off + i]);
}
