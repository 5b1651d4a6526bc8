/* cl:own for small models: the whole model in one launch, one work-group per batch row.
 * Rows are independent, so no synchronisation crosses work-groups; inside a work-group the
 * activations stay in local memory and a barrier separates the layers.
 *
 * The order of every sum is cl:own's: k ascending from 0.0f, one fma per term, then the bias,
 * the activation and the residual (see block.cl). Only the memory traffic differs: the weights
 * arrive transposed (Wt[k][o], so that a k-row is one contiguous, coalesced copy) and pass
 * through local memory in tiles of CP_KT k-rows, loaded by every work-item together.
 *
 * Per layer, desc holds 5 ints: in, out, flags (1 bias, 2 relu, 4 residual), the offset of
 * Wt in p, the offset of the bias in p (offsets in floats; the host only takes this path
 * when they fit an int). */
#pragma OPENCL FP_CONTRACT OFF

#ifndef CP_LS
#define CP_LS 128 /* work-group size; >= the widest layer */
#endif
#ifndef CP_MAXW
#define CP_MAXW 128 /* the widest layer */
#endif
#ifndef CP_KT
#define CP_KT 64 /* k-rows of Wt per local tile */
#endif

__kernel __attribute__((reqd_work_group_size(CP_LS, 1, 1))) void
cp_model_small(__global const float *restrict x, __global float *restrict y,
               __global const float *restrict p, __global const int *restrict desc,
               int n_layers, int in0, int out_last)
{
    __local float act[2][CP_MAXW];
    __local float wt[CP_KT * CP_MAXW];
    const int lid = (int)get_local_id(0);
    const size_t row = get_group_id(0);
    for (int i = lid; i < in0; i += CP_LS)
        act[0][i] = x[row * (size_t)in0 + (size_t)i];
    int cur = 0;
    for (int l = 0; l < n_layers; ++l) {
        const int in = desc[5 * l], out = desc[5 * l + 1], flags = desc[5 * l + 2];
        const int w_off = desc[5 * l + 3], b_off = desc[5 * l + 4];
        float acc = 0.0f;
        for (int k0 = 0; k0 < in; k0 += CP_KT) {
            const int kt = min(CP_KT, in - k0);
            barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile (or layer) is consumed */
            for (int i = lid; i < kt * out; i += CP_LS)
                wt[i] = p[(size_t)w_off + (size_t)k0 * (size_t)out + (size_t)i];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid < out)
                for (int k = 0; k < kt; ++k)
                    acc = fma(act[cur][k0 + k], wt[k * out + lid], acc);
        }
        if (lid < out) {
            if (flags & 1)
                acc = acc + p[b_off + lid];
            float r = (flags & 2) ? ((acc <= 0.0f) ? 0.0f : acc) : acc;
            act[1 - cur][lid] = (flags & 4) ? act[cur][lid] + r : r;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        cur = 1 - cur;
    }
    for (int i = lid; i < out_last; i += CP_LS)
        y[row * (size_t)out_last + (size_t)i] = act[cur][i];
}
