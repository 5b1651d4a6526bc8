/* Training kernels of cl:own (clparity/train.h states the order of every operation, and
 * hostblas/train_host_tmpl.h is the C twin). Buffers are addressed by element offsets, so
 * that one buffer holds every layer's activations. Nothing may be contracted or reordered. */
#pragma OPENCL FP_CONTRACT OFF

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
        acc = fma(x[k], w[k], acc);
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
        acc = fma(d[o], w[(size_t)o * (size_t)in], acc);
    if (residual)
        acc = acc + g[b * (size_t)out + k];
    dx[b * (size_t)in + k] = acc;
}

/* One work-item per weight (k, o): gW = Σ_b fma(dz[b][o], x[b][k]) from 0; W = fma(−lr, gW,
 * W). */
__kernel void tr_update_w(__global const float *restrict dz,
                          __global const float *restrict acts, ulong x_off,
                          __global float *restrict p, ulong w_off, int in, int out, int batch,
                          float neg_lr)
{
    size_t k = get_global_id(0);
    size_t o = get_global_id(1);
    if (k >= (size_t)in)
        return;
    __global const float *x = acts + x_off;
    float acc = 0.0f;
    for (int b = 0; b < batch; ++b)
        acc = fma(dz[(size_t)b * (size_t)out + o], x[(size_t)b * (size_t)in + k], acc);
    size_t i = w_off + o * (size_t)in + k;
    p[i] = fma(neg_lr, acc, p[i]);
}

/* gb = Σ_b dz[b][o] from 0 (plain adds); bias = fma(−lr, gb, bias). */
__kernel void tr_update_b(__global const float *restrict dz, __global float *restrict p,
                          ulong b_off, int out, int batch, float neg_lr)
{
    size_t o = get_global_id(0);
    if (o >= (size_t)out)
        return;
    float acc = 0.0f;
    for (int b = 0; b < batch; ++b)
        acc = acc + dz[(size_t)b * (size_t)out + o];
    p[b_off + o] = fma(neg_lr, acc, p[b_off + o]);
}

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
    p[w_off + i] = fma(neg_lr, gw[i], p[w_off + i]);
}
