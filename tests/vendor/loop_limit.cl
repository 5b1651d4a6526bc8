/* Mesa llvmpipe (rusticl) stops loops after 65535 iterations in total per work-item.
 * A reproducer for tests/vendor/README.md: each kernel runs in one work-item and records
 * every iteration it executes, so the host sees how many ran. Valid OpenCL C 1.2: every loop
 * must run to completion, however many iterations it has. */

/* One loop of n iterations: o[i] = i for every i < n. */
__kernel void one_loop(__global int *o, int n)
{
    for (int i = 0; i < n; ++i)
        o[i] = i;
}

/* Two loops one after the other, n iterations each: o[i] = i, then o[n + i] = n + i. */
__kernel void two_loops(__global int *o, int n)
{
    for (int i = 0; i < n; ++i)
        o[i] = i;
    for (int i = 0; i < n; ++i)
        o[n + i] = n + i;
}

/* A float sum: s = 1 + 1 + ... (n terms, exact below 2^24); o[0] = s. */
__kernel void sum_ones(__global float *o, __global const float *one, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
        s += one[i & 1023];
    o[0] = s;
}
