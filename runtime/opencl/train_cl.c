/* Training on OpenCL (clparity/train.h): cl:own, cl:clblast and cl:relaxed with train.cl's
 * kernels (cl:clblast's products through CLBlast), cl:cr with cr.cl's CR_TRAIN kernels (the
 * optimizers' from train_optim.cl in both). The
 * weights, activations and gradients stay on the device between steps. */
#include "clparity/env.h"
#include "clparity/train.h"

#include "cl-shared-impl.h"
#include "engine-impl.h"
#include "own-impl.h"
#include "program-impl.h"
#include "train-cl-state-impl.h"
#include "train-impl.h"
#include "hostblas/cr.h"

#include "clparity/error.h"

#include <clblast_c.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int enqueue(struct train_cl *c, cl_kernel k, const char *name, cl_uint dims, size_t g0,
                   size_t g1)
{
    size_t gws[2] = {own_round_up(g0 ? g0 : 1, 8), g1 ? g1 : 1};
    cl_int rc = own_enqueue_kernel(c->q, k, dims, NULL, gws, NULL, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueNDRangeKernel(%s) failed: %s (%d)", name,
                          cp_cl_error_name(rc), rc);
    return CP_OK;
}

/* A host copy of bytes in memory that the driver allocated (CL_MEM_ALLOC_HOST_PTR), which
 * NVIDIA's driver pins, so that a read into it is one DMA at the bus's speed where a read into
 * malloc'd memory goes through a staging copy; mapped until cl_destroy. what names it. */
static int host_stage(struct train_cl *c, size_t bytes, cl_mem *buf, void **map, const char *what)
{
    cl_int rc;
    char call[96];
    if (!*buf && !(*buf = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                                         NULL, &rc))) {
        snprintf(call, sizeof call, "clCreateBuffer(%s)", what);
        return cp_err_cl(rc, call);
    }
    *map = clEnqueueMapBuffer(c->q, *buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
                              NULL, &rc);
    if (!*map) {
        snprintf(call, sizeof call, "clEnqueueMapBuffer(%s)", what);
        return cp_err_cl(rc, call);
    }
    return CP_OK;
}

static int cl_create(cp_trainer *tr, const cp_device *dev, const float *x, const float *t)
{
    struct train_cl *c = tr->c;
    const cp_model *m = tr->m;
    cl_int rc;
    int st = cp_cl_open(dev, 0, &c->ctx, &c->q);
    if (st != CP_OK)
        return st;
    /* cl:own's way (CLPARITY_TRAIN_KERNELS, unless own_create forced one), before the build:
     * the cpu kernels are built only for their way */
    if (c->clblast || c->relaxed || c->cr) {
        c->mode = TILE_SIMPLE;
    } else if (c->mode == TILE_AUTO && train_cl_probing()) {
        c->mode = train_cl_probe_mode(); /* the probe's trainer: the probed one's way */
    } else if (c->mode == TILE_AUTO) {
        if ((st = cp_env_word("CLPARITY_TRAIN_KERNELS", &c->mode)) != CP_OK)
            return st;
        bool cpu = own_cpu_device(dev);
        /* auto takes the cpu kernels on PoCL only: llvmpipe (rusticl) compiled them for 335 s
         * before its probe failed, Intel's runtime for tens (vendors job, 2026-11-28) */
        bool pocl = strstr(dev->platform, "Portable Computing Language") != NULL;
        c->auto_cpu = c->mode <= TILE_AUTO && cpu && pocl && train_cl_cpu_fits(tr->m);
        /* on GPUs, the step in one launch where every product is small (16x16 blocks, few
         * outputs and terms: train_cl_tile_small): there a launch per product costs more than
         * the product (docs/PERFORMANCE.md, 2026-11-29: d=128 L=128, 2.0-2.3 ms a step tiled,
         * 1.0-1.2 in one launch, on an H200) */
        if (c->mode <= TILE_AUTO)
            c->mode = cpu                                     ? c->auto_cpu ? TILE_CPU : TILE_SIMPLE
                      : train_cl_tile_small(tr->m, tr->batch) ? TILE_STREAM
                                                              : TILE_GRID;
    }
    if ((st = train_cl_build_options(tr, dev)) != CP_OK)
        return st;
    struct cp_build_cache bc = {0};
    st = cp_program_build_ex(c->ctx, dev->device_id, c->cr ? "cr.cl" : "train.cl",
                             tr->build_options, &c->prog, &bc);
    tr->build_cache = bc.state;
    snprintf(tr->build_cache_note, sizeof tr->build_cache_note, "%s", bc.note);
    if (st != CP_OK)
        return st;
    static const char *const names[] = {
        "tr_forward",  "tr_outgrad", "tr_dz",           "tr_dx",      "tr_update_w",
        "tr_update_b", "tr_fwd_epi", "tr_add",          "tr_axpy",    "tr_grad_w",
        "tr_grad_b",   "tr_opt_sgd", "tr_opt_momentum", "tr_opt_adam"};
    cl_kernel *ks[] = {&c->k_fwd, &c->k_outgrad, &c->k_dz,  &c->k_dx,   &c->k_upw,
                       &c->k_upb, &c->k_epi,     &c->k_add, &c->k_axpy, &c->k_gw,
                       &c->k_gb,  &c->k_sgd,     &c->k_mom, &c->k_adam};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i) {
        if (c->cr && i >= 6 && i <= 8)
            continue; /* cr.cl has all but cl:clblast's tr_fwd_epi, tr_add and tr_axpy */
        *ks[i] = clCreateKernel(c->prog, names[i], &rc);
        if (rc != CL_SUCCESS)
            return cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(%s) failed: %s (%d)", names[i],
                              cp_cl_error_name(rc), rc);
    }
    size_t B = (size_t)tr->batch, L = (size_t)m->n_layers;
    c->stride = B * (size_t)m->max_width;
    size_t nt = B * (size_t)m->out_width;
    c->t_host = malloc((nt ? nt : 1) * sizeof(float));
    if (!c->t_host)
        return cp_err_set(CP_FAIL_RUNTIME, "cl:own training: out of memory");
    void *ymap = NULL;
    if ((st = host_stage(c, (nt ? nt : 1) * sizeof(float), &c->ystage, &ymap,
                         "the output's host copy")) != CP_OK)
        return st;
    c->y = ymap;
    memcpy(c->t_host, t, nt * sizeof(float));
    if ((st = train_cl_buffer(c, m->n_params, m->params, &c->p, "weights")) != CP_OK ||
        (st = train_cl_buffer(c, (L + 1) * c->stride, NULL, &c->acts, "activations")) != CP_OK ||
        (st = train_cl_buffer(c, L * c->stride, NULL, &c->z, "pre-activations")) != CP_OK ||
        (st = train_cl_buffer(c, nt, t, &c->t, "target")) != CP_OK ||
        (st = train_cl_buffer(c, c->stride, NULL, &c->g, "gradient")) != CP_OK ||
        (st = train_cl_buffer(c, c->stride, NULL, &c->gn, "gradient")) != CP_OK ||
        (st = train_cl_buffer(c, c->stride, NULL, &c->dz, "dz")) != CP_OK)
        return st;
    if (tr->needs_grad) {
        /* the gradient, then the state: zeros (PyTorch's zeros_like; the momentum buffer is
         * set at the first step) */
        size_t np = m->n_params ? m->n_params : 1;
        float *zeros = calloc(np, sizeof *zeros);
        if (!zeros)
            return cp_err_set(CP_FAIL_RUNTIME, "training: out of memory");
        st = train_cl_buffer(c, m->n_params, zeros, &c->G, "gradient");
        for (size_t k = 0; st == CP_OK && k < train_state_count(tr->opt.kind); ++k)
            st = train_cl_buffer(c, m->n_params, zeros, &c->st[k],
                                 train_state_name(tr->opt.kind, k));
        free(zeros);
        if (st != CP_OK)
            return st;
    } else if (c->clblast) {
        if ((st = train_cl_buffer(c, cp_model_max_weights(m), NULL, &c->gw, "weight gradient")) !=
            CP_OK)
            return st;
    }
    static const char *const ways[] = {"auto",   "simple", "tiled", "tiled1",
                                       "tiled4", "tiled8", "cpu",   "stream"};
    int mode = c->mode;
    if (mode == TILE_CPU && (st = train_cl_cpu_setup(tr)) != CP_OK)
        return st;
    if (mode != TILE_SIMPLE && mode != TILE_CPU &&
        (st = train_cl_tile_setup(tr, dev, mode)) != CP_OK)
        return st;
    const char *tp = strstr(tr->build_options, " -DTR_TILE_PLANT");
    if (!tp)
        tp = strstr(tr->build_options, " -DTR_CPU_PLANT");
    char rb[16] = ""; /* the cpu kernels' rows per work-item: another program */
    if (c->k_rows)
        snprintf(rb, sizeof rb, " rb=%d", c->rb);
    snprintf(c->kernels, sizeof c->kernels, "kernels=%s%s%s",
             c->lk || c->k_rows ? ways[mode] : "simple", rb, tp ? tp : "");
    rc = clEnqueueWriteBuffer(c->q, c->acts, CL_TRUE, 0, B * (size_t)m->in_width * sizeof(float), x,
                              0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueWriteBuffer(input)");
    return CP_OK;
}

/* The forward from weights buffer p into acts/z. */
static int cl_forward(cp_trainer *tr, cl_mem p)
{
    struct train_cl *c = tr->c;
    const cp_model *m = tr->m;
    if (c->k_rows)
        return train_cl_cpu_rows(tr, p, false);
    for (int l = 0; c->lk && l < m->n_layers; ++l) {
        cl_kernel k = c->lk[3 * l];
        int st = own_set_args_at(k, "tr_fwd_t", 6, 1, (const size_t[]){sizeof p},
                                 (const void *const[]){&p});
        if (st == CP_OK)
            st = train_cl_tile_enqueue(c, k, "tr_fwd_t", c->lrm[3 * l], (size_t)tr->batch,
                                       (size_t)m->layers[l].out);
        if (st != CP_OK)
            return st;
    }
    for (int l = 0; !c->lk && l < m->n_layers; ++l) {
        const cp_layer *ly = &m->layers[l];
        cl_ulong x_off = (cl_ulong)l * c->stride, y_off = x_off + c->stride, z_off = x_off;
        cl_ulong w_off = ly->w_off, b_off = ly->b_off;
        cl_int in = ly->in, out = ly->out, hb = ly->has_bias, act = ly->act == CP_ACT_RELU,
               res = ly->residual;
        if (c->clblast) {
            cl_command_queue q = c->q;
            CLBlastStatusCode bs = CLBlastSgemm(
                CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes, (size_t)tr->batch,
                (size_t)out, (size_t)in, 1.0f, c->acts, (size_t)x_off, (size_t)in, p, (size_t)w_off,
                (size_t)in, 0.0f, c->z, (size_t)z_off, (size_t)out, &q, NULL);
            if (bs != CLBlastSuccess)
                return cp_err_set(CP_FAIL_RUNTIME,
                                  "CLBlastSgemm (forward, layer %d) failed: %s (%d)", l,
                                  cp_clblast_status_name(bs), (int)bs);
        }
        /* tr_fwd_epi (after CLBlast's GEMM) takes tr_forward's arguments but w_off. */
        cl_kernel k = c->clblast ? c->k_epi : c->k_fwd;
        const char *name = c->clblast ? "tr_fwd_epi" : "tr_forward";
        const size_t sz[] = {sizeof c->acts, sizeof x_off, sizeof c->acts, sizeof y_off,
                             sizeof c->z,    sizeof z_off, sizeof p,       sizeof w_off};
        const void *const va[] = {&c->acts, &x_off, &c->acts, &y_off, &c->z, &z_off, &p, &w_off};
        const size_t sz2[] = {sizeof in,    sizeof out, sizeof hb,
                              sizeof b_off, sizeof act, sizeof res};
        const void *const va2[] = {&in, &out, &hb, &b_off, &act, &res};
        cl_uint n1 = c->clblast ? 7 : 8; /* w_off: tr_forward's only */
        int st = own_set_args_at(k, name, 0, n1, sz, va);
        if (st == CP_OK)
            st = own_set_args_at(k, name, n1, 6, sz2, va2);
        if (st == CP_OK)
            st = enqueue(c, k, name, 2, (size_t)out, (size_t)tr->batch);
        if (st != CP_OK)
            return st;
    }
    return CP_OK;
}

/* The output into y: blocking where ev is NULL, else without blocking, *ev its event. */
static int cl_read_output_ev(cp_trainer *tr, float *y, cl_event *ev)
{
    struct train_cl *c = tr->c;
    size_t nt = (size_t)tr->batch * (size_t)tr->m->out_width;
    cl_int rc = clEnqueueReadBuffer(c->q, c->acts, ev ? CL_FALSE : CL_TRUE,
                                    (size_t)tr->m->n_layers * c->stride * sizeof(float),
                                    nt * sizeof(float), y, 0, NULL, ev);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(output)");
    return CP_OK;
}

static int cl_read_output(cp_trainer *tr, float *y)
{
    return cl_read_output_ev(tr, y, NULL);
}

/* The optimizer's update of every parameter from G, at step tr->step (clparity/train.h). */
static int cl_optim(cp_trainer *tr)
{
    struct train_cl *c = tr->c;
    struct train_scalars s;
    train_scalars_at(&tr->opt, tr->step, &s);
    cl_int n = (cl_int)tr->m->n_params, decay_on = s.wd != 0.0, first = s.first,
           nesterov = tr->opt.nesterov, decoupled = tr->opt.kind == CP_OPTIM_ADAMW,
           plant = c->plant && tr->step == TRAIN_PLANT_STEP;
    float neg_lr = (float)s.neg_lr, wd = (float)s.wd, mom = (float)s.mom, decay = (float)s.decay,
          w1 = (float)s.w1, beta2 = (float)s.beta2, c2 = (float)s.c2, bc2_sqrt = (float)s.bc2_sqrt,
          eps = (float)s.eps, nss = (float)s.nss;
    /* every kernel's arguments in order: tr_opt_sgd's, tr_opt_momentum's, tr_opt_adam's */
    const size_t sgd_sz[] = {sizeof c->p, sizeof c->G, sizeof n, sizeof neg_lr, sizeof wd};
    const void *const sgd_va[] = {&c->p, &c->G, &n, &neg_lr, &wd};
    const size_t mom_sz[] = {sizeof c->p,   sizeof c->G,     sizeof c->st[0], sizeof n,
                             sizeof neg_lr, sizeof decay_on, sizeof wd,       sizeof mom,
                             sizeof first,  sizeof nesterov};
    const void *const mom_va[] = {&c->p,     &c->G, &c->st[0], &n,     &neg_lr,
                                  &decay_on, &wd,   &mom,      &first, &nesterov};
    const size_t adam_sz[] = {sizeof c->p,     sizeof c->G,     sizeof c->st[0],  sizeof c->st[1],
                              sizeof n,        sizeof decay_on, sizeof decoupled, sizeof wd,
                              sizeof decay,    sizeof w1,       sizeof beta2,     sizeof c2,
                              sizeof bc2_sqrt, sizeof eps,      sizeof nss,       sizeof plant};
    const void *const adam_va[] = {&c->p,      &c->G, &c->st[0], &c->st[1], &n,     &decay_on,
                                   &decoupled, &wd,   &decay,    &w1,       &beta2, &c2,
                                   &bc2_sqrt,  &eps,  &nss,      &plant};
    cl_kernel k = c->k_adam;
    const char *name = "tr_opt_adam";
    size_t na = sizeof adam_sz / sizeof *adam_sz;
    const size_t *sz = adam_sz;
    const void *const *va = adam_va;
    if (tr->opt.kind == CP_OPTIM_SGD) {
        k = c->k_sgd;
        name = "tr_opt_sgd";
        na = sizeof sgd_sz / sizeof *sgd_sz;
        sz = sgd_sz;
        va = sgd_va;
    } else if (tr->opt.kind == CP_OPTIM_MOMENTUM) {
        k = c->k_mom;
        name = "tr_opt_momentum";
        na = sizeof mom_sz / sizeof *mom_sz;
        sz = mom_sz;
        va = mom_va;
    }
    int st = own_set_args_at(k, name, 0, na, sz, va);
    if (st != CP_OK)
        return st;
    return enqueue(c, k, name, 1, (size_t)n, 0);
}

/* The plain SGD update of layer l's weights with cl:clblast's gW (axpy), or tr_update_w /
 * tr_grad_w, then its bias's (tr_update_b / tr_grad_b). */
static int cl_update_layer(cp_trainer *tr, const cp_layer *ly, cl_ulong off)
{
    struct train_cl *c = tr->c;
    float neg_lr = -tr->lr;
    cl_int batch = tr->batch, in = ly->in, out = ly->out;
    cl_ulong w_off = ly->w_off, b_off = ly->b_off;
    int st = CP_OK;
    /* tr_grad_w and tr_grad_b take tr_update_w's and tr_update_b's arguments but −lr,
     * with G in place of the parameters */
    cl_kernel kw = tr->needs_grad ? c->k_gw : c->k_upw, kb = tr->needs_grad ? c->k_gb : c->k_upb;
    const char *nw_name = tr->needs_grad ? "tr_grad_w" : "tr_update_w",
               *nb_name = tr->needs_grad ? "tr_grad_b" : "tr_update_b";
    cl_mem dst = tr->needs_grad ? c->G : c->p;
    size_t nlr = tr->needs_grad ? 0 : 1; /* −lr, the last argument: the updates' only */
    if (c->clblast && !tr->needs_grad) {
        cl_int nw = in * out;
        const size_t sz[] = {sizeof c->p, sizeof w_off, sizeof c->gw, sizeof nw, sizeof neg_lr};
        const void *const va[] = {&c->p, &w_off, &c->gw, &nw, &neg_lr};
        st = own_set_args_at(c->k_axpy, "tr_axpy", 0, 5, sz, va);
        if (st == CP_OK)
            st = enqueue(c, c->k_axpy, "tr_axpy", 1, (size_t)nw, 0);
    } else if (!c->clblast) {
        const size_t sz[] = {sizeof c->dz, sizeof c->acts, sizeof off,   sizeof dst,   sizeof w_off,
                             sizeof in,    sizeof out,     sizeof batch, sizeof neg_lr};
        const void *const va[] = {&c->dz, &c->acts, &off, &dst, &w_off, &in, &out, &batch, &neg_lr};
        st = own_set_args_at(kw, nw_name, 0, 8 + nlr, sz, va);
        if (st == CP_OK)
            st = enqueue(c, kw, nw_name, 2, (size_t)in, (size_t)out);
    }
    if (st == CP_OK && ly->has_bias) {
        const size_t sz[] = {sizeof c->dz, sizeof dst,   sizeof b_off,
                             sizeof out,   sizeof batch, sizeof neg_lr};
        const void *const va[] = {&c->dz, &dst, &b_off, &out, &batch, &neg_lr};
        st = own_set_args_at(kb, nb_name, 0, 5 + nlr, sz, va);
        if (st == CP_OK)
            st = enqueue(c, kb, nb_name, 1, (size_t)out, 0);
    }
    return st;
}

/* Layer l's backward: dz from g, then (l > 0) the next gradient gn, then its update or its
 * gradient in G. */
static int cl_backward_layer(cp_trainer *tr, int l, cl_mem g, cl_mem gn)
{
    struct train_cl *c = tr->c;
    const cp_layer *ly = &tr->m->layers[l];
    cl_int batch = tr->batch;
    if (c->lk) {
        /* tiled: dz is masked as dx and gW load it; gW's epilogue updates or stores G */
        int st = l > 0 ? train_cl_tile_enqueue(c, c->lk[3 * l + 1], "tr_dx_t", c->lrm[3 * l + 1],
                                               (size_t)batch, (size_t)ly->in)
                       : CP_OK;
        if (st == CP_OK)
            st = train_cl_tile_enqueue(c, c->lk[3 * l + 2], "tr_gw_t", c->lrm[3 * l + 2],
                                       (size_t)ly->out, (size_t)ly->in + (ly->has_bias ? 1 : 0));
        return st;
    }
    cl_int in = ly->in, out = ly->out, act = ly->act == CP_ACT_RELU, res = ly->residual;
    cl_int nz = batch * out;
    cl_ulong off = (cl_ulong)l * c->stride, w_off = ly->w_off;
    const size_t dz_sz[] = {sizeof g, sizeof c->z, sizeof off, sizeof c->dz, sizeof nz, sizeof act};
    const void *const dz_va[] = {&g, &c->z, &off, &c->dz, &nz, &act};
    int st = own_set_args_at(c->k_dz, "tr_dz", 0, 6, dz_sz, dz_va);
    if (st == CP_OK)
        st = enqueue(c, c->k_dz, "tr_dz", 1, (size_t)nz, 0);
    if (st != CP_OK)
        return st;
    if (l > 0 && c->clblast) {
        cl_command_queue q = c->q;
        CLBlastStatusCode bs =
            CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo,
                         (size_t)batch, (size_t)in, (size_t)out, 1.0f, c->dz, 0, (size_t)out, c->p,
                         (size_t)w_off, (size_t)in, 0.0f, gn, 0, (size_t)in, &q, NULL);
        if (bs != CLBlastSuccess)
            return cp_err_set(CP_FAIL_RUNTIME, "CLBlastSgemm (dx, layer %d) failed: %s (%d)", l,
                              cp_clblast_status_name(bs), (int)bs);
        if (res) {
            cl_int nx = batch * in;
            const size_t sz[] = {sizeof gn, sizeof g, sizeof nx};
            const void *const va[] = {&gn, &g, &nx};
            if ((st = own_set_args_at(c->k_add, "tr_add", 0, 3, sz, va)) != CP_OK ||
                (st = enqueue(c, c->k_add, "tr_add", 1, (size_t)nx, 0)) != CP_OK)
                return st;
        }
    } else if (l > 0) {
        const size_t sz[] = {sizeof c->dz, sizeof c->p, sizeof w_off, sizeof g,
                             sizeof gn,    sizeof in,   sizeof out,   sizeof res};
        const void *const va[] = {&c->dz, &c->p, &w_off, &g, &gn, &in, &out, &res};
        if ((st = own_set_args_at(c->k_dx, "tr_dx", 0, 8, sz, va)) != CP_OK ||
            (st = enqueue(c, c->k_dx, "tr_dx", 2, (size_t)in, (size_t)batch)) != CP_OK)
            return st;
    }
    /* plain SGD updates W and the bias in place (neither is read again in this step);
     * the other optimizers keep the whole gradient G for their update after the loop */
    if (c->clblast) {
        cl_command_queue q = c->q;
        CLBlastStatusCode bs =
            CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeYes, CLBlastTransposeNo,
                         (size_t)out, (size_t)in, (size_t)batch, 1.0f, c->dz, 0, (size_t)out,
                         c->acts, (size_t)off, (size_t)in, 0.0f, tr->needs_grad ? c->G : c->gw,
                         tr->needs_grad ? (size_t)w_off : 0, (size_t)in, &q, NULL);
        if (bs != CLBlastSuccess)
            return cp_err_set(CP_FAIL_RUNTIME, "CLBlastSgemm (gW, layer %d) failed: %s (%d)", l,
                              cp_clblast_status_name(bs), (int)bs);
    }
    return cl_update_layer(tr, ly, off);
}

/* The fused adam's scalars of the coming step (tr->step + 1), as cl_optim passes them, into
 * c->sc before the backward. */
static int fused_scalars(cp_trainer *tr)
{
    struct train_cl *c = tr->c;
    struct train_scalars s;
    train_scalars_at(&tr->opt, tr->step + 1, &s);
    const float v[TILE_SCALARS] = {s.wd != 0.0 ? 1.0f : 0.0f,
                                   tr->opt.kind == CP_OPTIM_ADAMW ? 1.0f : 0.0f,
                                   (float)s.wd,
                                   (float)s.decay,
                                   (float)s.w1,
                                   (float)s.beta2,
                                   (float)s.c2,
                                   (float)s.bc2_sqrt,
                                   (float)s.eps,
                                   (float)s.nss,
                                   c->plant && tr->step + 1 == TRAIN_PLANT_STEP ? 1.0f : 0.0f};
    cl_int rc = clEnqueueWriteBuffer(c->q, c->sc, CL_TRUE, 0, sizeof v, v, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueWriteBuffer(adam's scalars)");
    return CP_OK;
}

/* The output's gradient and every layer's backward, enqueued. */
static int cl_backward(cp_trainer *tr)
{
    struct train_cl *c = tr->c;
    const cp_model *m = tr->m;
    cl_int n = tr->batch * m->out_width;
    cl_ulong y_off = (cl_ulong)m->n_layers * c->stride;
    float s = 2.0f / (float)n;
    const size_t sz[] = {sizeof c->acts, sizeof y_off, sizeof c->t,
                         sizeof c->g,    sizeof n,     sizeof s};
    const void *const va[] = {&c->acts, &y_off, &c->t, &c->g, &n, &s};
    int st;
    if ((st = own_set_args_at(c->k_outgrad, "tr_outgrad", 0, 6, sz, va)) != CP_OK ||
        (st = enqueue(c, c->k_outgrad, "tr_outgrad", 1, (size_t)n, 0)) != CP_OK)
        return st;
    cl_mem g = c->g, gn = c->gn;
    for (int l = m->n_layers - 1; l >= 0; --l) {
        if ((st = cl_backward_layer(tr, l, g, gn)) != CP_OK)
            return st;
        cl_mem tmp = g;
        g = gn;
        gn = tmp;
    }
    return CP_OK;
}

static int cl_step(cp_trainer *tr, double *loss)
{
    struct train_cl *c = tr->c;
    const cp_model *m = tr->m;
    cl_int n = tr->batch * m->out_width;
    int st;
    if (c->k_rows) {
        /* cpu: the rows' forward and backward, then the weights' gradient and update */
        if ((st = train_cl_cpu_rows(tr, c->p, true)) != CP_OK ||
            (st = train_cl_cpu_grad(tr)) != CP_OK)
            return st;
        ++tr->step;
        if (c->upd == 0 && (st = cl_optim(tr)) != CP_OK)
            return st;
        if ((st = cl_read_output(tr, c->y)) != CP_OK)
            return st;
        *loss = train_loss_f32(c->y, c->t_host, (size_t)n);
        return CP_OK;
    }
    /* the fused adam's scalars, written (blocking) before this step's launches */
    if (c->fused_adam && (st = fused_scalars(tr)) != CP_OK)
        return st;
    if (c->k_step) {
        /* stream: the whole step in one launch, then its output, and the barrier's counters
         * with it */
        if ((st = train_cl_stream_enqueue(tr)) != CP_OK)
            return st;
        ++tr->step;
        if (tr->needs_grad && !c->fused_adam && (st = cl_optim(tr)) != CP_OK)
            return st;
        if ((st = cl_read_output(tr, c->y)) != CP_OK || (st = train_cl_stream_check(c)) != CP_OK)
            return st;
        *loss = train_loss_f32(c->y, c->t_host, (size_t)n);
        return CP_OK;
    }
    if ((st = cl_forward(tr, c->p)) != CP_OK)
        return st;
    /* The output is final after the forward (the backward never writes the last layer's
     * activations): it is read behind the forward without blocking, and its loss taken on the
     * host while the backward and the update run (at d=4096 B=1024 the loss's sum of 4 M terms,
     * in order, takes milliseconds). The step ends when the queue is done. */
    cl_event rd = NULL;
    if ((st = cl_read_output_ev(tr, c->y, &rd)) != CP_OK)
        return st;
    if ((st = cl_backward(tr)) == CP_OK) {
        ++tr->step;
        if (tr->needs_grad && !c->fused_adam)
            st = cl_optim(tr);
    }
    /* waited for on an error too: the read is done before y is touched again (the wait
     * flushes the queue, so the backward is submitted before the host takes the loss) */
    cl_int rc = clWaitForEvents(1, &rd);
    clReleaseEvent(rd);
    if (st != CP_OK)
        return st;
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clWaitForEvents(the output's read)");
    *loss = train_loss_f32(c->y, c->t_host, (size_t)n);
    if ((rc = clFinish(c->q)) != CL_SUCCESS)
        return cp_err_cl(rc, "clFinish(the step)");
    return CP_OK;
}

/* One step, then the weights, the gradient and the optimizer's state written back as
 * cl_create left them (the model's weights, zeros) and the step count 0: every kernel has been
 * launched once (a driver may compile at the first launch) and the training starts afresh. */
static int cl_warm(cp_trainer *tr)
{
    struct train_cl *c = tr->c;
    const cp_model *m = tr->m;
    double loss;
    int st = cl_step(tr, &loss);
    if (st != CP_OK)
        return st;
    size_t bytes = m->n_params * sizeof(float);
    cl_int rc = bytes
                    ? clEnqueueWriteBuffer(c->q, c->p, CL_TRUE, 0, bytes, m->params, 0, NULL, NULL)
                    : CL_SUCCESS;
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueWriteBuffer(weights, after the warm-up step)");
    c->wt_stale = true;
    if (tr->needs_grad && bytes) {
        float *zeros = calloc(m->n_params, sizeof *zeros);
        if (!zeros)
            return cp_err_set(CP_FAIL_RUNTIME, "training: out of memory");
        cl_mem *bufs[] = {&c->G, &c->st[0], &c->st[1]};
        size_t nb = 1 + train_state_count(tr->opt.kind);
        for (size_t k = 0; rc == CL_SUCCESS && k < nb; ++k)
            rc = clEnqueueWriteBuffer(c->q, *bufs[k], CL_TRUE, 0, bytes, zeros, 0, NULL, NULL);
        free(zeros);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clEnqueueWriteBuffer(optimizer state, after the warm-up step)");
    }
    tr->step = 0;
    return CP_OK;
}

/* The weights read into wstage's mapping (train reads every step's weights). */
static int cl_view(cp_trainer *tr, const void **out)
{
    struct train_cl *c = tr->c;
    size_t bytes = (tr->m->n_params ? tr->m->n_params : 1) * sizeof(float);
    int st;
    if (!c->wmap &&
        (st = host_stage(c, bytes, &c->wstage, &c->wmap, "the weights' host copy")) != CP_OK)
        return st;
    cl_int rc = clEnqueueReadBuffer(c->q, c->p, CL_TRUE, 0, tr->m->n_params * sizeof(float),
                                    c->wmap, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(weights)");
    *out = c->wmap;
    return CP_OK;
}

static int cl_state(cp_trainer *tr, size_t k, void *dst)
{
    cl_int rc = clEnqueueReadBuffer(tr->c->q, tr->c->st[k], CL_TRUE, 0,
                                    tr->m->n_params * sizeof(float), dst, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(optimizer state)");
    return CP_OK;
}

static int cl_poke_ulp(cp_trainer *tr, size_t i)
{
    float v;
    cl_int rc =
        clEnqueueReadBuffer(tr->c->q, tr->c->p, CL_TRUE, i * sizeof v, sizeof v, &v, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(test hook)");
    v = nextafterf(v, INFINITY);
    tr->c->wt_stale = true;
    rc = clEnqueueWriteBuffer(tr->c->q, tr->c->p, CL_TRUE, i * sizeof v, sizeof v, &v, 0, NULL,
                              NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueWriteBuffer(test hook)");
    return CP_OK;
}

static int cl_roundtrip(cp_trainer *tr, void *yv, int *ok)
{
    float *y = yv;
    struct train_cl *c = tr->c;
    const cp_model *m = tr->m;
    size_t n = m->n_params, nt = (size_t)tr->batch * (size_t)m->out_width;
    float *w = malloc((n ? n : 1) * sizeof *w);
    float *back = malloc((n ? n : 1) * sizeof *back);
    float *y1 = malloc((nt ? nt : 1) * sizeof *y1);
    cl_mem p2 = NULL;
    int st = CP_OK;
    if (!w || !back || !y1) {
        st = cp_err_set(CP_FAIL_RUNTIME, "round trip: out of memory");
        goto out;
    }
    if ((st = cp_trainer_weights(tr, w)) != CP_OK || (st = cl_forward(tr, c->p)) != CP_OK ||
        (st = cl_read_output(tr, y1)) != CP_OK)
        goto out;
    if ((st = train_cl_buffer(c, n, NULL, &p2, "round-trip weights")) != CP_OK)
        goto out;
    cl_int rc = clEnqueueWriteBuffer(c->q, p2, CL_TRUE, 0, n * sizeof(float), w, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        st = cp_err_cl(rc, "clEnqueueWriteBuffer(round-trip weights)");
        goto out;
    }
    rc = clEnqueueReadBuffer(c->q, p2, CL_TRUE, 0, n * sizeof(float), back, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        st = cp_err_cl(rc, "clEnqueueReadBuffer(round-trip weights)");
        goto out;
    }
    if ((st = cl_forward(tr, p2)) != CP_OK || (st = cl_read_output(tr, y)) != CP_OK)
        goto out;
    *ok = memcmp(w, back, n * sizeof(float)) == 0 && memcmp(y1, y, nt * sizeof(float)) == 0;
out:
    if (p2)
        clReleaseMemObject(p2);
    free(w);
    free(back);
    free(y1);
    return st;
}

static void cl_destroy(cp_trainer *tr)
{
    struct train_cl *c = tr->c;
    if (!c)
        return;
    /* the unmaps done before the buffers go */
    bool unmapped =
        c->wmap && clEnqueueUnmapMemObject(c->q, c->wstage, c->wmap, 0, NULL, NULL) == CL_SUCCESS;
    if (c->y && clEnqueueUnmapMemObject(c->q, c->ystage, c->y, 0, NULL, NULL) == CL_SUCCESS)
        unmapped = true;
    if (unmapped)
        (void)clFinish(c->q);
    cl_mem *ms[] = {&c->p,  &c->acts, &c->z,     &c->t,     &c->g,      &c->gn,    &c->dz,
                    &c->gw, &c->G,    &c->st[0], &c->st[1], &c->wstage, &c->ystage};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; ++i)
        if (*ms[i])
            clReleaseMemObject(*ms[i]);
    cl_kernel ks[] = {c->k_fwd, c->k_outgrad, c->k_dz, c->k_dx, c->k_upw, c->k_upb, c->k_epi,
                      c->k_add, c->k_axpy,    c->k_gw, c->k_gb, c->k_sgd, c->k_mom, c->k_adam};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i)
        if (ks[i])
            clReleaseKernel(ks[i]);
    train_cl_tile_release(c);
    train_cl_cpu_release(c);
    if (c->prog)
        clReleaseProgram(c->prog);
    if (c->q)
        clReleaseCommandQueue(c->q);
    if (c->ctx)
        clReleaseContext(c->ctx);
    free(c->t_host);
    free(c);
    tr->c = NULL;
}

/* The engines: one create each, which names the kernels' variant; cl:own's runs its probes.
 * mode: cl:own's way, TILE_AUTO to read CLPARITY_TRAIN_KERNELS. */
static int cl_create_variant(cp_trainer *tr, const cp_device *dev, const float *x, const float *t,
                             bool clblast, bool relaxed, bool cr, int mode)
{
    tr->c = calloc(1, sizeof *tr->c);
    if (!tr->c)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the trainer");
    tr->c->mode = mode;
    tr->c->clblast = clblast;
    tr->c->relaxed = relaxed;
    tr->c->cr = cr;
    int st = cr ? cr_check_inputs(tr->m, tr->engine) : CP_OK;
    return st == CP_OK ? cl_create(tr, dev, x, t) : st;
}

/* cl:own's way while own_create falls back to the simple kernels: the training probe's own
 * trainer (made through train_ops_cl_own) then runs them too. */
static _Thread_local int own_mode = TILE_AUTO;

/* cl:own: where auto took the cpu kernels and they fail the training probe on this device
 * (Mesa 22.3's llvmpipe), the simple kernels, with their own probe. */
static int own_create(cp_trainer *tr, const cp_device *dev, const float *x, const float *t)
{
    int st = cl_create_variant(tr, dev, x, t, false, false, false, own_mode);
    if (st == CP_OK)
        st = train_cl_probe(tr, dev, &train_ops_cl_own);
    if (st != CP_OK || tr->probe != 0 || !tr->c->auto_cpu)
        return st;
    char why[CP_PROBE_WHY];
    snprintf(why, sizeof why, "%s", tr->probe_why);
    cl_destroy(tr);
    own_mode = TILE_SIMPLE;
    st = cl_create_variant(tr, dev, x, t, false, false, false, TILE_SIMPLE);
    if (st == CP_OK)
        st = train_cl_probe(tr, dev, &train_ops_cl_own);
    own_mode = TILE_AUTO;
    if (st == CP_OK && tr->probe == 1)
        snprintf(tr->probe_why, sizeof tr->probe_why,
                 "the simple kernels: the cpu kernels failed their probe (%.300s)", why);
    return st;
}

static int clblast_create(cp_trainer *tr, const cp_device *dev, const float *x, const float *t)
{
    return cl_create_variant(tr, dev, x, t, true, false, false, TILE_SIMPLE);
}

static int relaxed_create(cp_trainer *tr, const cp_device *dev, const float *x, const float *t)
{
    return cl_create_variant(tr, dev, x, t, false, true, false, TILE_SIMPLE);
}

static int cr_create(cp_trainer *tr, const cp_device *dev, const float *x, const float *t)
{
    int st = cl_create_variant(tr, dev, x, t, false, false, true, TILE_SIMPLE);
    if (st == CP_OK && train_divides(&tr->opt))
        st = train_cl_cr_probe(tr, dev);
    return st;
}

const struct cp_train_ops train_ops_cl_own = {
    .traits = {.twin = CP_TRAIN_BASELINE, .by_default = true},
    .dtype = CP_F32,
    .create = own_create,
    .step = cl_step,
    .view = cl_view,
    .state = cl_state,
    .poke_ulp = cl_poke_ulp,
    .roundtrip = cl_roundtrip,
    .destroy = cl_destroy,
    .warm = cl_warm,
};

const struct cp_train_ops train_ops_cl_clblast = {
    .dtype = CP_F32,
    .create = clblast_create,
    .step = cl_step,
    .view = cl_view,
    .state = cl_state,
    .poke_ulp = cl_poke_ulp,
    .roundtrip = cl_roundtrip,
    .destroy = cl_destroy,
    .warm = cl_warm,
};

const struct cp_train_ops train_ops_cl_relaxed = {
    .traits = {.drifts = true},
    .dtype = CP_F32,
    .create = relaxed_create,
    .step = cl_step,
    .view = cl_view,
    .state = cl_state,
    .poke_ulp = cl_poke_ulp,
    .roundtrip = cl_roundtrip,
    .destroy = cl_destroy,
    .warm = cl_warm,
};

const struct cp_train_ops train_ops_cl_cr = {
    .traits = {.twin = CP_TRAIN_CR_BASE, .cr = true},
    .dtype = CP_F32,
    .create = cr_create,
    .step = cl_step,
    .view = cl_view,
    .state = cl_state,
    .poke_ulp = cl_poke_ulp,
    .roundtrip = cl_roundtrip,
    .destroy = cl_destroy,
    .warm = cl_warm,
};
