/* clparity peak: FP32 fma throughput, streaming bandwidth and launch latency. Tiny on purpose,
 * so that every driver compiles it in a moment. */
#pragma OPENCL FP_CONTRACT OFF

#ifndef CP_PEAK_CHAINS
#define CP_PEAK_CHAINS 8
#endif
/* The vector width of each chain: 4 suits GPUs; CPU drivers (PoCL) run 16 in a wide register. */
#ifndef CP_PEAK_W
#define CP_PEAK_W 4
#endif
#define CP_CAT(a, b) a##b
#define CP_VEC(w) CP_CAT(float, w)
#define vtype CP_VEC(CP_PEAK_W)

/* CP_PEAK_CHAINS independent fma chains on vector registers per work-item: no chain waits on
 * another, so the fma units stay busy. m < 1 keeps every value finite and normal; the sum goes
 * to out so that nothing is optimised away. Each iteration is CP_PEAK_CHAINS * CP_PEAK_W fmas. */
__kernel void cp_peak_fma(__global float *out, float m, float c, int iters)
{
    vtype acc[CP_PEAK_CHAINS];
    float g = (float)get_global_id(0) * 1e-6f;
    for (int i = 0; i < CP_PEAK_CHAINS; ++i)
        acc[i] = (vtype)(g + (float)i * 0.125f);
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int i = 0; i < CP_PEAK_CHAINS; ++i)
            acc[i] = fma(acc[i], (vtype)(m), (vtype)(c));
    }
    vtype s = acc[0];
    for (int i = 1; i < CP_PEAK_CHAINS; ++i)
        s += acc[i];
    out[get_global_id(0)] = s.s0 + s.s1 + s.s2 + s.s3;
}

/* STREAM's triad, a = b + s * c: 12 bytes moved per float. */
__kernel void cp_peak_triad(__global float4 *a, __global const float4 *b,
                            __global const float4 *c, float s)
{
    size_t i = get_global_id(0);
    a[i] = b[i] + s * c[i];
}

/* Nothing: the cost of a launch. */
__kernel void cp_peak_empty(__global float *out)
{
    (void)out;
}
