/* The device checks behind cl:own's probe (runtime/own_probe.c).
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
