/* cl:own's training on CPUs (PoCL; CLPARITY_TRAIN_KERNELS=cpu, auto on CPU devices), included
 * by train.cl when built with -DTR_CPU, after reg_tile.cl with this file's settings (TR_VW,
 * TR_RB; program.c expands includes one level deep). The register tile of the forward's cpu paths
 * (reg_tile.cl: each work-item holds TR_RB rows × 4 vectors of TR_VW adjacent outputs, a
 * scalar of A broadcast against the 4 vectors of B at each k), with a leading dimension for B,
 * A's terms any stride apart and partial tiles, so that the three products need no packing:
 *   forward  z[b][o]  = Σ_k x[b][k]·Wᵀ[k][o]   (Wᵀ: a transposed copy of W, wt below)
 *   backward dx[b][k] = Σ_o dz[b][o]·W[o][k]
 *   gradient gW[o][k] = Σ_b dz[b][o]·x[b][k]
 * Each output is one TR_MAC chain from 0.0f over its terms in ascending order, as the simple
 * kernels' (train.cl), so the bits are host:exact's. Two launches a step, as the forward's cpu1
 * takes one (PoCL's launch cost, about 10 us on 2 cores, is a layer's work at d=128):
 *   tr_cpu_rows: a work-item per TR_RB rows runs the forward of every layer, the loss gradient
 *     and the backward's dz and dx of every layer: all of them depend only on the rows' own
 *     values and on the weights, which nothing writes during the launch;
 *   tr_cpu_grad: a work-item per TR_RB weight rows of one layer (every column, then the
 *     bias): their gradient, the optimizer's update of those parameters in its epilogue
 *     (train_optim.cl's per-parameter functions, the order of tr_opt_*), and the new weights
 *     into wt.
 * The layer table (desc) holds TR_DESC ints a layer: in, out, flags (1 bias, 2 ReLU, 4
 * residual), the offsets of W and of the bias in p, the first work-item of the layer in
 * tr_cpu_grad. Activations and pre-activations keep the simple kernels' layout (layer l at
 * l·stride, rows `width` floats apart); dz overwrites z (nothing reads z after its mask); the
 * gradients g0 and g1 keep each row at b·ld whatever the layer's width (ld the widest), so that
 * a work-item that runs ahead never writes where a slower one still reads. */
#define TR_DESC 6
#define TR_NR CP_NR /* the columns of a work-item's tile */

/* out[r · TR_NR + c] = Σ_{k < K} a[r·sar + k·sak] · b[k·ldb + c] for r < TR_RB (rows from
 * `rows` on repeat row rows − 1, never stored) and c < TR_NR (columns from nn on read as 0,
 * never stored): reg_tile.cl's tile. */
void tr_cpu_tile(__global const float *a, int sar, int sak, int rows, __global const float *b,
                 int ldb, int nn, int K, float out[TR_RB * TR_NR])
{
    __global const float *ar[TR_RB];
#pragma unroll
    for (int r = 0; r < TR_RB; ++r)
        ar[r] = a + (size_t)min(r, rows - 1) * (size_t)sar;
    cp_reg_tile_ld(ar, sak, b, ldb, nn, K, out);
}

/* One layer's forward for rows m0 .. m0 + nr − 1: z = Σ_k fma(x, W) + bias; y = (residual ?
 * x : 0) + act(z), tr_forward's operations. wt holds Wᵀ at W's offset. */
void tr_cpu_fwd_layer(__global const float *x, __global float *y, __global float *z,
                      __global const float *p, __global const float *wt,
                      __global const int *d, int m0, int nr)
{
    const int in = d[0], out = d[1], flags = d[2];
    float acc[TR_RB * TR_NR];
    for (int n0 = 0; n0 < out; n0 += TR_NR) {
        tr_cpu_tile(x + (size_t)m0 * (size_t)in, in, 1, nr, wt + d[3] + n0, out, out - n0, in,
                    acc);
        const int nn = min(TR_NR, out - n0);
#pragma unroll 1
        for (int r = 0; r < nr; ++r) {
            const size_t row = (size_t)(m0 + r);
#pragma unroll 1
            for (int c = 0; c < nn; ++c) {
                float v = acc[r * TR_NR + c];
#ifdef TR_CPU_PLANT
                /* test hook train-cpu-plant: the first output of every layer one ULP up */
                if (row == 0 && n0 + c == 0)
                    v = nextafter(v, INFINITY);
#endif
                if (flags & 1)
                    v = v + p[d[4] + n0 + c];
                z[row * (size_t)out + (size_t)(n0 + c)] = v;
                float rl = (flags & 2) ? tr_relu(v) : v;
                y[row * (size_t)out + (size_t)(n0 + c)] =
                    (flags & 4) ? x[row * (size_t)in + (size_t)(n0 + c)] + rl : rl;
            }
        }
    }
}

/* One layer's backward for rows m0 .. m0 + nr − 1, from g (the gradient of its output, rows
 * ld apart): dz = act ? (z > 0 ? g : 0) : g over z (tr_dz), then where dx (not layer 0),
 * dx = Σ_o fma(dz, W[o][k]) (+ g for a residual), tr_dx's operations, rows ld apart. */
void tr_cpu_bwd_layer(__global const float *g, __global float *dx, __global float *z,
                      __global const float *p, __global const int *d, int m0, int nr, int ld,
                      int want_dx)
{
    const int in = d[0], out = d[1], flags = d[2];
    for (int r = 0; r < nr; ++r)
        for (int o = 0; o < out; ++o) {
            const size_t i = (size_t)(m0 + r) * (size_t)out + (size_t)o;
            const float gi = g[(size_t)(m0 + r) * (size_t)ld + (size_t)o];
            z[i] = (flags & 2) ? (z[i] > 0.0f ? gi : 0.0f) : gi;
        }
    if (!want_dx)
        return;
    float acc[TR_RB * TR_NR];
    for (int k0 = 0; k0 < in; k0 += TR_NR) {
        tr_cpu_tile(z + (size_t)m0 * (size_t)out, out, 1, nr, p + d[3] + k0, in, in - k0, out,
                    acc);
        const int nn = min(TR_NR, in - k0);
#pragma unroll 1
        for (int r = 0; r < nr; ++r) {
            const size_t row = (size_t)(m0 + r) * (size_t)ld;
#pragma unroll 1
            for (int c = 0; c < nn; ++c) {
                float v = acc[r * TR_NR + c];
                if (flags & 4)
                    v = v + g[row + (size_t)(k0 + c)];
                dx[row + (size_t)(k0 + c)] = v;
            }
        }
    }
}

/* The forward of every layer for rows g·TR_RB .. (those < M), then (backward) the loss
 * gradient s·(y − t) (tr_outgrad) into g0 and the backward of every layer down to layer 0's
 * dz, its gradients ping-ponging g0, g1, g0, ... */
__kernel void tr_cpu_rows(__global float *acts, __global float *zs, __global float *g0,
                          __global float *g1, __global const float *p,
                          __global const float *wt, __global const int *desc, int n_layers,
                          int M, ulong stride, int ld, __global const float *t, float s,
                          int backward)
{
    const int m0 = (int)get_global_id(0) * TR_RB;
    if (m0 >= M)
        return;
    const int nr = min(TR_RB, M - m0);
    for (int l = 0; l < n_layers; ++l)
        tr_cpu_fwd_layer(acts + (size_t)l * stride, acts + (size_t)(l + 1) * stride,
                         zs + (size_t)l * stride, p, wt, desc + TR_DESC * l, m0, nr);
    if (!backward)
        return;
    const int nout = desc[TR_DESC * (n_layers - 1) + 1];
    __global const float *y = acts + (size_t)n_layers * stride;
    for (int r = 0; r < nr; ++r)
        for (int o = 0; o < nout; ++o) {
            const size_t i = (size_t)(m0 + r) * (size_t)nout + (size_t)o;
            g0[(size_t)(m0 + r) * (size_t)ld + (size_t)o] = s * (y[i] - t[i]);
        }
    for (int l = n_layers - 1; l >= 0; --l) {
        const bool even = (n_layers - 1 - l) % 2 == 0;
        tr_cpu_bwd_layer(even ? g0 : g1, even ? g1 : g0, zs + (size_t)l * stride, p,
                         desc + TR_DESC * l, m0, nr, ld, l > 0);
    }
}

/* The optimizer's update of parameters i0 .. i0 + n − 1 from their gradients gs (upd: 0 store
 * gs into dst, for the update after the launch; 1 plain SGD, tr_update_w's fma(−lr, gW, W);
 * 2 sgd with weight decay, 3 momentum, 4 adam and adamw: train_optim.cl's), whose scalars sc
 * holds: s0 −lr, s1 weight decay, s2 decay on, s3 decoupled, s4 decay, s5 w1, s6 beta2, s7 c2,
 * s8 bc2_sqrt, s9 eps, sa nss, sb plant, sc momentum, sd first, se nesterov. One loop per
 * optimizer over adjacent parameters, which the compiler vectorises (the scalar loop with the
 * optimizer chosen per element took half the step with adam at d=128 L=16 B=64). */
void tr_cpu_update(__global float *restrict dst, __global float *restrict ms,
                   __global float *restrict vs, size_t i0, const float *gs, int n, int upd,
                   float16 sc)
{
    const float neg_lr = sc.s0, wd = sc.s1, decay = sc.s4, w1 = sc.s5, beta2 = sc.s6,
                c2 = sc.s7, bc2_sqrt = sc.s8, eps = sc.s9, nss = sc.sa, mom = sc.sc;
    const int decay_on = (int)sc.s2, decoupled = (int)sc.s3, plant = (int)sc.sb,
              first = (int)sc.sd, nesterov = (int)sc.se;
    if (upd == 0) {
        for (int c = 0; c < n; ++c)
            dst[i0 + (size_t)c] = gs[c];
    } else if (upd == 1) {
        for (int c = 0; c < n; ++c)
            dst[i0 + (size_t)c] = tr_fma(neg_lr, gs[c], dst[i0 + (size_t)c]);
    } else if (upd == 2) {
        for (int c = 0; c < n; ++c)
            tr_sgd_one(dst, gs[c], i0 + (size_t)c, neg_lr, wd);
    } else if (upd == 3) {
        for (int c = 0; c < n; ++c)
            tr_momentum_one(dst, gs[c], ms, i0 + (size_t)c, neg_lr, decay_on, wd, mom, first,
                            nesterov);
    } else {
        for (int c = 0; c < n; ++c)
            tr_adam_one(dst, gs[c], ms, vs, i0 + (size_t)c, decay_on, decoupled, wd, decay, w1,
                        beta2, c2, bc2_sqrt, eps, nss, plant);
    }
}

/* Work-item u: layer l (desc's first work-item ≤ u), weight rows o0 = (u − first)·TR_RB ..:
 * gW[o][k] = Σ_b fma(dz[b][o], x[b][k]) and the bias's Σ_b dz[b][o] (tr_gw, tr_gb), each
 * parameter's update (tr_cpu_update), then Wᵀ[k][o] = W[o][k] into wt (upd > 0). */
__kernel void tr_cpu_grad(__global const float *acts, __global const float *zs,
                          __global float *restrict dst, __global float *restrict wt,
                          __global float *restrict ms, __global float *restrict vs,
                          __global const int *desc, int n_layers, int M, ulong stride, int upd,
                          float16 sc)
{
    const int u = (int)get_global_id(0);
    int l = n_layers - 1;
    while (l > 0 && desc[TR_DESC * l + 5] > u)
        --l;
    __global const int *d = desc + TR_DESC * l;
    const int in = d[0], out = d[1], o0 = (u - d[5]) * TR_RB;
    if (u < d[5] || o0 >= out)
        return;
    const int nr = min(TR_RB, out - o0);
    __global const float *x = acts + (size_t)l * stride, *dz = zs + (size_t)l * stride;
    float acc[TR_RB * TR_NR];
    for (int k0 = 0; k0 < in; k0 += TR_NR) {
        tr_cpu_tile(dz + o0, 1, out, nr, x + k0, in, in - k0, M, acc);
        const int nn = min(TR_NR, in - k0);
#pragma unroll 1
        for (int r = 0; r < nr; ++r) {
            const size_t o = (size_t)(o0 + r), i0 = (size_t)d[3] + o * (size_t)in + (size_t)k0;
#ifdef TR_CPU_PLANT
            if (o == 0 && k0 == 0)
                acc[r * TR_NR] = nextafter(acc[r * TR_NR], INFINITY);
#endif
            tr_cpu_update(dst, ms, vs, i0, acc + r * TR_NR, nn, upd, sc);
        }
        if (!upd)
            continue;
#pragma unroll 1
        for (int c = 0; c < nn; ++c)
#pragma unroll 1
            for (int r = 0; r < nr; ++r)
                wt[(size_t)d[3] + (size_t)(k0 + c) * (size_t)out + (size_t)(o0 + r)] =
                    dst[(size_t)d[3] + (size_t)(o0 + r) * (size_t)in + (size_t)(k0 + c)];
    }
    if (!(d[2] & 1))
        return;
    float gb[TR_RB];
    for (int r = 0; r < nr; ++r) {
        gb[r] = 0.0f;
        for (int b = 0; b < M; ++b)
            gb[r] = gb[r] + dz[(size_t)b * (size_t)out + (size_t)(o0 + r)];
    }
    tr_cpu_update(dst, ms, vs, (size_t)d[4] + (size_t)o0, gb, nr, upd, sc);
}

/* Wᵀ from p: work-item (o, l) writes column o of layer l's Wᵀ (after the weights were written
 * from the host, or for another weights buffer's forward). */
__kernel void tr_cpu_transpose(__global const float *restrict p, __global float *restrict wt,
                               __global const int *desc)
{
    const int o = (int)get_global_id(0), l = (int)get_global_id(1);
    __global const int *d = desc + TR_DESC * l;
    const int in = d[0], out = d[1];
    if (o >= out)
        return;
    for (int k = 0; k < in; ++k)
        wt[(size_t)d[3] + (size_t)k * (size_t)out + (size_t)o] =
            p[(size_t)d[3] + (size_t)o * (size_t)in + (size_t)k];
}
