/* cl:cr's one-work-group kernel (path team, issue 34), included by cr.cl under CR_TEAM: the whole
 * model in one launch of ONE work-group of CR_WG work-items, for narrow models at small batches
 * on GPUs (the reference model, d=128 L=128 B=1), where a device-wide barrier per layer (stream)
 * costs more than the layer's work. Like cl:own's reg, it needs no device-wide barrier: every
 * layer's outputs are this group's, and a work-group barrier orders the layers. Not in cl:cr's
 * rules (runtime/opencl/cr_cl.c): it runs where CLPARITY_CR_TUNE has path=team. On the H200 it
 * took 0.63 ms at the reference model against stream's 0.27 (one compute unit's latency per layer
 * against a device-wide barrier; docs/PERFORMANCE.md, 2026-11-30).
 *
 * The units are (layer, row), in order. For each unit the row's input (the previous layer's
 * output, or the model's input) is read into local memory, as doubles (xd) and bits (xb); then in
 * passes of CR_WG / CR_TPO outputs, CR_TPO work-items share each output: work-item q of an output
 * sums the products of k = q, q + CR_TPO, ... in one chain of fma from 0.0 (each fma one rounded
 * addition: a float product is exact in double), and the first work-item of the output adds the
 * CR_TPO partial sums in order, then certifies (cr_output) or, where the certificate fails, sums
 * the output alone exactly (cr_dot, from the activations in global memory). The first output's
 * work-items also sum the row's squares over their k (any order: cr.c, 3).
 *
 * THE SUMS' BOUND. Each output's sum is a summation tree of its n = in + 1 terms (the products,
 * and the bias added in cr_output): CR_TPO chains from 0.0 (the first addition to 0.0 exact),
 * then a chain of the CR_TPO partial sums. A rounded addition on a term's path always merges in
 * another nonzero term, so no term's path holds more than n - 1 rounded additions, as cr.cl's
 * header requires: the same certified bound (cr_err_scale(in)) holds for every CR_TPO.
 *
 * The weights of the next unit's first pass (CR_PF per work-item) are loaded into registers
 * before the unit's certificates and the barriers, so that their loads are in flight while the
 * group waits (they do not depend on the activations). Rows of the batch after the first reload
 * the same layer's weights (from the cache).
 *
 * Arguments: a0, a1, p, desc and wnorm as cr_stream's (layer l reads a0 when l is even, a1 when
 * odd, and writes the other; desc: 8 ulongs per layer); xd, xb: the widest layer's input in
 * doubles (longs without CR_F64) and bits; part: CR_WG + CR_TPO partial sums. */
#ifndef CR_TPO
#define CR_TPO 8
#endif
#ifndef CR_PF
#define CR_PF 4
#endif
#define CR_SLOTS (CR_WG / CR_TPO)

/* The weights of layer d's first pass that work-item (slot, q) reads first: k = q + CR_TPO · i,
 * i < CR_PF (zero bits past the layer's inputs or outputs: never used). */
void cr_team_prefetch(__global const uint *restrict p, __global const ulong *restrict d, int slot,
                      int q, uint *wpre)
{
    const int in = (int)d[2], out = (int)d[3];
    __global const uint *wr = p + d[0] + (size_t)min(slot, out - 1) * (size_t)in;
    for (int i = 0; i < CR_PF; ++i) {
        int k = q + CR_TPO * i;
        wpre[i] = k < in ? wr[k] : 0u;
    }
}

#if !defined(CP_KERNELS) || defined(CP_K_cr_team)
/* TIMING VARIANT 2 (not landed): rows outer and layers inner with the row in local memory; the
 * layer table in local memory (up to 128 layers); each work-item CR_TPO-th of up to 4 outputs
 * (o = slot, slot + slots, ...), their chains interleaved, weights read in the chain (no
 * prefetch); no exact sum (an output whose certificate fails is written uncertified). */
#define TF_OPW 4
#define TF_DT 128
__kernel __attribute__((reqd_work_group_size(CR_WG, 1, 1))) void
cr_team(__global uint *a0, __global uint *a1, __global const uint *restrict p,
        __global const ulong *restrict desc, __global const ulong *restrict wnorm, int n_layers,
        int batch, __local CR_REAL *xd, __local uint *xb, __local CR_REAL *part)
{
    (void)part;
    __local ulong dt[8 * TF_DT];
    __local double pp[TF_OPW * CR_WG + CR_TPO];
    const int lid = (int)get_local_id(0), q = lid % CR_TPO, slot = lid / CR_TPO;
    for (int i = lid; i < 8 * min(n_layers, TF_DT); i += CR_WG)
        dt[i] = desc[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int row = 0; row < batch; ++row) {
        const int in0 = (int)dt[2];
        for (int k = lid; k < in0; k += CR_WG) {
            uint u = a0[(size_t)row * (size_t)in0 + k];
            xb[k] = u;
#ifdef CR_F64
            xd[k] = cr_f2d(u);
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int l = 0; l < n_layers; ++l) {
            ulong d0, d1, d2, d3, d4, d5, d6;
            if (l < TF_DT) {
                __local const ulong *d = dt + 8 * l;
                d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3]; d4 = d[4]; d5 = d[5]; d6 = d[6];
            } else {
                __global const ulong *d = desc + 8 * (size_t)l;
                d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3]; d4 = d[4]; d5 = d[5]; d6 = d[6];
            }
            const int in = (int)d2, out = (int)d3, flags = (int)d4;
            __global uint *y = (l & 1) ? a0 : a1;
            __global const uint *w = p + d0;
            __global const uint *bias = (flags & 1) ? p + d1 : 0;
#ifdef CR_F64
            double acc[TF_OPW];
            __global const uint *wr[TF_OPW];
            for (int j = 0; j < TF_OPW; ++j) {
                acc[j] = 0.0;
                wr[j] = w + (size_t)min(slot + j * (CR_WG / CR_TPO), out - 1) * (size_t)in;
            }
            for (int k = q; k < in; k += CR_TPO) {
                double xk = xd[k];
                for (int j = 0; j < TF_OPW; ++j)
                    acc[j] = fma(xk, cr_f2d(wr[j][k]), acc[j]);
            }
            for (int j = 0; j < TF_OPW; ++j)
                pp[j * CR_WG + lid] = acc[j];
            if (slot == 0) {
                double xx = 0.0;
                for (int k = q; k < in; k += CR_TPO)
                    xx = fma(xd[k], xd[k], xx);
                pp[TF_OPW * CR_WG + q] = xx;
            }
#endif
            barrier(CLK_LOCAL_MEM_FENCE);
            if (q == 0) {
                for (int j = 0; j < TF_OPW; ++j) {
                    const int o = slot + j * (CR_WG / CR_TPO);
                    if (o >= out)
                        break;
                    uint v = 0u;
#ifdef CR_F64
                    double s = pp[j * CR_WG + lid], xx = pp[TF_OPW * CR_WG];
                    for (int t = 1; t < CR_TPO; ++t) {
                        s = s + pp[j * CR_WG + lid + t];
                        xx = xx + pp[TF_OPW * CR_WG + t];
                    }
                    (void)cr_output(s, xx, wnorm[d5 + (size_t)o], bias ? bias[o] : 0u,
                                    as_double(d6), &v);
#endif
                    uint r = CP_PLANT(cr_epilogue(v, flags, CR_XO(xb, o, flags)), row == 0 && o == 0);
                    y[(size_t)row * (size_t)out + (size_t)o] = r;
                    xb[o] = r;
#ifdef CR_F64
                    xd[o] = cr_f2d(r);
#endif
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
}
#endif
