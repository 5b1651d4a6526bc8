/* The device-wide barrier of cl:own's one-launch kernels that span work-groups (own_stream.cl,
 * own_cpu.cl's cp_cpu_grid), included by them (runtime/engine/program.c expands the #include).
 *
 * OpenCL 1.2 promises nothing about work-groups that are not running, so a launch first finds
 * which ones are (occupancy discovery, after Sorensen et al., "Portable inter-workgroup barrier
 * synchronisation for GPUs", OOPSLA 2016): a group joins only while the poll is open, the
 * first group closes it once every launched group has joined or the count has stopped
 * growing, and a group that comes later does nothing. Every group that joined was running when
 * it joined, so the barrier waits only for groups that are running. Every wait is bounded:
 * past CP_SPIN polls a group raises ctl[3] and all leave; the host then reports an error
 * rather than a result. */
#ifndef CP_POLL
#define CP_POLL 4096 /* polls without a new group before the first group closes the poll */
#endif
#ifndef CP_SPIN_T
#define CP_SPIN_T int /* the poll counter's type: long where CP_SPIN is past int's range */
#endif
#ifndef CP_SPIN
#define CP_SPIN (1 << 26) /* polls before a wait is given up */
#endif
/* ctl: [0] groups that asked to join (bit 30: the poll is closed), [1] the number that
 * joined (0 until known), [2] arrivals at the device-wide barrier, [3] set when a wait was
 * given up. */
#define CP_CLOSED 0x40000000

/* Group 0 of the joined ones closes the poll; every joined group learns G. Returns the
 * group's index among the joined ones, or -1 (did not join, or a wait was given up). */
int cp_join(volatile __global int *ctl, int launched, __local int *shared)
{
    if (get_local_id(0) == 0) {
        int me = atomic_inc(&ctl[0]), g = -1;
        if (!(me & CP_CLOSED)) {
            if (me == 0) {
                /* Close once every launched group has joined, or the count stalls: groups
                 * that are not running by then are not waited for. */
                int last = 1, same = 0;
                for (;;) {
                    int now = atomic_add(&ctl[0], 0);
                    if (now >= launched)
                        break;
                    same = now == last ? same + 1 : 0;
                    last = now;
                    if (same >= CP_POLL)
                        break;
                }
                int joined = atomic_or(&ctl[0], CP_CLOSED) & ~CP_CLOSED;
                atomic_xchg(&ctl[1], joined);
            }
            CP_SPIN_T spins = 0;
            while ((g = atomic_add(&ctl[1], 0)) == 0 && ++spins < CP_SPIN)
                ;
            if (g == 0) {
                atomic_xchg(&ctl[3], 1);
                me = -1;
            }
        }
        /* g: the groups that joined, or -1 for a group that came after the close (it leaves;
         * its callers read shared[1] before they test the return) */
        shared[1] = g;
        shared[0] = (me & CP_CLOSED) ? -1 : me;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return shared[0];
}

/* The device-wide barrier number n (0, 1, ...) among G groups: every group's writes before
 * it are seen by every group after it. Returns false when a wait was given up. */
bool cp_grid_barrier(volatile __global int *ctl, int n, int G, __local int *shared)
{
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_inc(&ctl[2]);
        const int target = (n + 1) * G;
        CP_SPIN_T spins = 0;
        int ok = 1;
        /* Polled with plain volatile loads: an atomic per poll would queue every group's
         * polls behind each other at the counter's one cache line. */
        while (ctl[2] < target) {
            if (++spins >= CP_SPIN || ctl[3]) {
                atomic_xchg(&ctl[3], 1);
                ok = 0;
                break;
            }
        }
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        shared[2] = ok;
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return shared[2] != 0;
}
