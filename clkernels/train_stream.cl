/* cl:own's training step in one launch (CLPARITY_TRAIN_KERNELS=stream), included by train.cl
 * after the tiled kernels where the way is stream (TR_STREAM): every product in 16×16 blocks.
 *
 * Every block is computed by the tiled kernels' own bodies (train_tile.cl's tr_fwd_b, tr_dx_b,
 * tr_gw_b for 16×16 blocks, as tiled1's, included once more with suffix s and their reads
 * volatile: TR_VOLATILE), so every output's sum is theirs, term for term: the launch changes
 * only which
 * work-group computes a block, and when. The work-groups that are running meet at a device-wide
 * barrier (grid_sync.cl) between phases:
 *   - the forward, a phase per layer;
 *   - the output's gradient g = s·(y − t) (tr_outgrad's expression);
 *   - the backward, phase j = 0 … L: layer L−1−j's dx (from layer 1 on), and layer L−j's weight
 *     gradient with its update (from j = 1): a layer's update never runs beside its own dx,
 *     which reads the weights before it. Layer l's gradient g_l lives in gradient buffer
 *     (L−1−l) mod 3, so that phase j's three (dx's input, its output, the weight gradient's
 *     input) are distinct.
 * The optimizers that keep a whole gradient (momentum, SGD with weight decay) take their pass
 * after the launch, as with the tiled kernels.
 *
 * The layer table desc holds TR_SD longs per layer: the input's offset in acts (z's too), the
 * output's, the weights', the bias's, in, out, has_bias, act and residual. */
#define TR_SD 9
#define TR_S_B 16

/* The blocks of a rows × cols output in 16×16 blocks, and its columns of blocks. */
int tr_s_cols(int cols)
{
    return (cols + TR_S_B - 1) / TR_S_B;
}
int tr_s_blocks(int rows, int cols)
{
    return (rows + TR_S_B - 1) / TR_S_B * tr_s_cols(cols);
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void
tr_step_s(__global float *acts, __global float *zs, __global float *p, __global const float *t,
          __global float *g0, __global float *g1, __global float *g2, __global float *dst,
          __global float *ms, __global float *vs, __global const float *sc,
          __global const long *desc, volatile __global int *ctl, int n_layers, int batch,
          int n_out, float s, int update, float neg_lr)
{
    /* train_tile.cl's TR_LOCAL for 16×16: float4 for its 16-byte aligned reads */
    __local float4 As4[16 * 68 / 4], Bs4[16 * 68 / 4];
    __local float *As = (__local float *)As4, *Bs = (__local float *)Bs4;
    __local int shared[4];
    const int lid = (int)get_local_id(0);
    const int me = cp_join(ctl, (int)get_num_groups(0), shared);
    const int G = shared[1];
    if (me < 0)
        return;
#ifdef TR_STREAM_GIVEUP
    /* test hook train-stream-giveup: a wait given up, as a device that stops scheduling a
     * joined work-group would leave it (the host must report it, never a result) */
    if (lid == 0)
        atomic_xchg(&ctl[3], 1);
#endif
    int passed = 0;
    bool ok = true;
    /* the forward */
    for (int l = 0; l < n_layers && ok; ++l) {
        __global const long *d = desc + (size_t)TR_SD * (size_t)l;
        const int in = (int)d[4], out = (int)d[5];
        const int nc = tr_s_cols(out), nblk = tr_s_blocks(batch, out);
        for (int v = me; v < nblk; v += G)
            tr_fwd_bs(v / nc * TR_S_B, v % nc * TR_S_B, lid, As, Bs,
                      acts, (ulong)d[0], acts, (ulong)d[1], zs, (ulong)d[0], p, (ulong)d[2], in,
                      out, batch, (int)d[6], (ulong)d[3], (int)d[7], (int)d[8]);
        ok = cp_grid_barrier(ctl, passed++, G, shared);
    }
    /* the output's gradient into g_{L-1} (buffer 0) */
    if (ok && n_layers > 0) {
        const ulong y_off = (ulong)desc[(size_t)TR_SD * (size_t)(n_layers - 1) + 1];
        volatile __global const float *y = acts + y_off;
        for (int i = me * 256 + lid; i < n_out; i += G * 256)
            g0[i] = s * (y[i] - t[i]);
        ok = cp_grid_barrier(ctl, passed++, G, shared);
    }
    /* the backward */
    for (int j = 0; j <= n_layers && ok; ++j) {
        __global float *gb[3] = {g0, g1, g2};
        const int l = n_layers - 1 - j, lw = l + 1; /* dx's layer, the weight gradient's */
        __global const long *d = desc + (size_t)TR_SD * (size_t)(l > 0 ? l : 0);
        __global const long *e = desc + (size_t)TR_SD * (size_t)(j > 0 ? lw : 0);
        const int din = (int)d[4], dout = (int)d[5];
        const int ein = (int)e[4], eout = (int)e[5], ehb = (int)e[6];
        const int ndc = tr_s_cols(din), nd = l > 0 ? tr_s_blocks(batch, din) : 0;
        const int nec = tr_s_cols(ein + ehb), ne = j > 0 ? tr_s_blocks(eout, ein + ehb) : 0;
        for (int v = me; v < nd + ne; v += G) {
            if (v < nd) {
                tr_dx_bs(v / ndc * TR_S_B, v % ndc * TR_S_B, lid, As,
                          Bs, gb[j % 3], zs, (ulong)d[0], p, (ulong)d[2], gb[(j + 1) % 3], din,
                          dout, batch, (int)d[7], (int)d[8]);
            } else {
                const int u = v - nd;
                tr_gw_bs(u / nec * TR_S_B, u % nec * TR_S_B, lid, As,
                          Bs, gb[(j + 2) % 3], zs, (ulong)e[0], acts, (ulong)e[0], dst,
                          (ulong)e[2], (ulong)e[3], ein, eout, batch, (int)e[7], ehb, update,
                          neg_lr, ms, vs, sc);
            }
        }
        if (j < n_layers)
            ok = cp_grid_barrier(ctl, passed++, G, shared);
    }
}
