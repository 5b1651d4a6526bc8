/* The device checks behind cl:own's probe (runtime/opencl/own_probe.c).
 *
 * cp_loop_count: one work-item runs one loop of n iterations and records each. OpenCL C puts
 * no limit on a loop; Mesa's llvmpipe (rusticl, 22.3) stops every loop of a work-item once
 * 65535 iterations have run in all, silently (tests/vendor/loop_limit.cl). o[i] = i + 1 for
 * every iteration that ran. */
__kernel void cp_loop_count(__global int *o, int n)
{
    for (int i = 0; i < n; ++i)
        o[i] = i + 1;
}

/* cp_fma_cases: r[i] = fma(a[i], b[i], c[i]), for the check of fma's signed zeros (train.c):
 * IEEE 754 and OpenCL give fma(a, b, c) = +0 when a·b = −0 and c = +0; Mesa's llvmpipe
 * (rusticl, 22.3) returns −0 there. */
__kernel void cp_fma_cases(__global const float *a, __global const float *b,
                           __global const float *c, __global float *r)
{
    size_t i = get_global_id(0);
    r[i] = fma(a[i], b[i], c[i]);
}
