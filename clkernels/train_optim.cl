/* The optimizers' updates and the div/sqrt probe's kernel, one source for two element types:
 * train.cl includes it for cl:own, cl:clblast and cl:relaxed (floats, float arithmetic), cr.cl's
 * CR_TRAIN part for cl:cr (the floats' bits in uints, every operation on the bits:
 * CR_NO_DENORM's promise). One work-item per parameter, in clparity/train.h's order; the
 * scalars come rounded to float from the host (double there, as PyTorch's Python computes
 * them). hostblas/train_host_tmpl.h's train_host_optim_ is the C twin (host:exact, host:cr).
 *
 * The includer defines:
 *   TR_T               the buffers' element type (float, or uint: a float's bits)
 *   TR_F(x)            a float kernel argument as a TR_T
 *   TR_FMA(a, b, c)    RN(a·b + c), one correctly rounded operation (OpenCL's fma)
 *   TR_MUL, TR_ADD, TR_SUB (a, b)   RN(a·b), RN(a + b), RN(a − b)
 *   TR_DIV(a, b), TR_SQRT(a)        RN(a / b), RN(sqrt(a)) (the way train chose)
 *   TR_SMALL(w)        |w| < 1/2;  TR_ONE  1.0f;  TR_UP(a)  the next float up (test hooks)
 * and TR_PLANT (0 but for the test hooks train-plant-m, -v and -root: 1, 2, 3). */

/* sgd with weight decay: g = fma(p, wd, G); p = fma(g, −lr, p). One parameter's (tr_opt_sgd's,
 * and cl:own's CPU gradient kernel's epilogue, train_cpu.cl) from its gradient G. */
void tr_sgd_one(__global TR_T *restrict p, TR_T G, size_t i, float neg_lr, float wd)
{
    TR_T g = TR_FMA(p[i], TR_F(wd), G);
    p[i] = TR_FMA(g, TR_F(neg_lr), p[i]);
}

__kernel void tr_opt_sgd(__global TR_T *restrict p, __global const TR_T *restrict G, int n,
                         float neg_lr, float wd)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    tr_sgd_one(p, G[i], i, neg_lr, wd);
}

/* momentum (dampening 0): b = first ? g : b·mu + g; g = nesterov ? fma(b, mu, g) : b. One
 * parameter's (tr_opt_momentum's, and train_cpu.cl's epilogue) from its gradient G. */
void tr_momentum_one(__global TR_T *restrict p, TR_T G, __global TR_T *restrict buf, size_t i,
                     float neg_lr, int decay_on, float wd, float mom, int first, int nesterov)
{
    TR_T g = decay_on ? TR_FMA(p[i], TR_F(wd), G) : G;
    TR_T b = g;
    if (!first) {
        b = TR_MUL(buf[i], TR_F(mom));
        b = TR_ADD(b, g);
    }
    buf[i] = b;
    g = nesterov ? TR_FMA(b, TR_F(mom), g) : b;
    p[i] = TR_FMA(g, TR_F(neg_lr), p[i]);
}

__kernel void tr_opt_momentum(__global TR_T *restrict p, __global const TR_T *restrict G,
                              __global TR_T *restrict buf, int n, float neg_lr, int decay_on,
                              float wd, float mom, int first, int nesterov)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    tr_momentum_one(p, G[i], buf, i, neg_lr, decay_on, wd, mom, first, nesterov);
}

/* TR_DIV(x, y) (op 1) or TR_SQRT(x) (op 0) for n inputs: train's probe of its div/sqrt way
 * and clparity ulp's rows train_divide and train_sqrt, against the host's. */
__kernel void tr_divsqrt(__global const TR_T *restrict x, __global const TR_T *restrict y,
                         __global TR_T *restrict r, int n, int op)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    r[i] = op ? TR_DIV(x[i], y[i]) : TR_SQRT(x[i]);
}

/* adam and adamw: decoupled (adamw) p = p·(1 − lr·wd), else g = fma(p, wd, G) (both only
 * when decay_on); m = lerp(m, g, w1); v = v·beta2 + (c2·g)·g; denom = sqrt(v) / bc2_sqrt +
 * eps; p = p + (nss·m) / denom. Where plant is set (one step; TR_PLANT 1, 2, 3), every
 * parameter's m, v or sqrt(v) moves one ULP up. */
/* One parameter's adam or adamw update from its gradient g (tr_opt_adam's, and cl:own's tiled
 * weight-gradient kernel's epilogue, train_tile.cl). */
void tr_adam_one(__global TR_T *restrict p, TR_T g, __global TR_T *restrict ms,
                 __global TR_T *restrict vs, size_t i, int decay_on, int decoupled, float wd,
                 float decay, float w1, float beta2, float c2, float bc2_sqrt, float eps, float nss,
                 int plant)
{
    TR_T pi = p[i], w1t = TR_F(w1);
    if (decay_on && decoupled)
        pi = TR_MUL(pi, TR_F(decay));
    else if (decay_on)
        g = TR_FMA(pi, TR_F(wd), g);
    TR_T m = ms[i], d = TR_SUB(g, m);
    m = TR_SMALL(w1t) ? TR_FMA(w1t, d, m) : TR_FMA(TR_SUB(w1t, TR_ONE), d, g);
    TR_T v = TR_MUL(vs[i], TR_F(beta2));
    v = TR_ADD(v, TR_MUL(TR_MUL(TR_F(c2), g), g));
    if (TR_PLANT == 1 && plant)
        m = TR_UP(m);
    if (TR_PLANT == 2 && plant)
        v = TR_UP(v);
    TR_T root = TR_SQRT(v);
    if (TR_PLANT == 3 && plant)
        root = TR_UP(root);
    TR_T denom = TR_ADD(TR_DIV(root, TR_F(bc2_sqrt)), TR_F(eps));
    p[i] = TR_ADD(pi, TR_DIV(TR_MUL(TR_F(nss), m), denom));
    ms[i] = m;
    vs[i] = v;
}

__kernel void tr_opt_adam(__global TR_T *restrict p, __global const TR_T *restrict G,
                          __global TR_T *restrict ms, __global TR_T *restrict vs, int n,
                          int decay_on, int decoupled, float wd, float decay, float w1,
                          float beta2, float c2, float bc2_sqrt, float eps, float nss, int plant)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    tr_adam_one(p, G[i], ms, vs, i, decay_on, decoupled, wd, decay, w1, beta2, c2, bc2_sqrt, eps,
                nss, plant);
}
