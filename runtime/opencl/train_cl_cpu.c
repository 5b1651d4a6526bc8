/* cl:own's training kernels for CPUs on the host side (train.cl built with -DTR_CPU:
 * clkernels/train_cpu.cl, CLPARITY_TRAIN_KERNELS=cpu, auto on CPU devices, issue 35): the
 * layer table, Wᵀ, and the two launches of a step. The step that runs them is train_cl.c's. */
#include "clparity/error.h"
#include "clparity/train.h"

#include "cl-shared-impl.h"
#include "own-impl.h"
#include "train-cl-state-impl.h"
#include "train-impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* train_cpu.cl's TR_DESC: ints per layer in the layer table */
#define CPU_DESC 6
/* train_cpu.cl's TR_VW: floats per vector (AVX-512's 16; two AVX2 registers each) */
#define CPU_VW 16

/* The rows per work-item of the last trainer made outside the training probe. */
static _Thread_local int outer_rb;

/* The rows per work-item (train_cpu.cl's TR_RB): own_cpu_rows of the batch, as the forward's
 * cpu paths; the training probe's own trainer takes its caller's, so that the probe runs the
 * program that will train (its batch, 5 or 17, would take 4). */
static int cpu_rows_per_item(const cp_trainer *tr)
{
    if (train_cl_probing() && outer_rb > 0)
        return outer_rb;
    int rb = own_cpu_rows(tr->batch);
    if (!train_cl_probing())
        outer_rb = rb;
    return rb;
}

void train_cl_cpu_options(cp_trainer *tr, char *buf, size_t len)
{
    tr->c->rb = cpu_rows_per_item(tr);
    /* test hook train-cpu-plant: one ULP up in the first output of each layer's forward and of
     * its weights' gradient */
    snprintf(buf, len, " -DTR_CPU -DTR_VW=%d -DTR_RB=%d%s", CPU_VW, tr->c->rb,
             cp_test_hook("train-cpu-plant") ? " -DTR_CPU_PLANT" : "");
}

void train_cl_cpu_release(struct train_cl *c)
{
    cl_kernel *ks[] = {&c->k_rows, &c->k_grad, &c->k_wt};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i) {
        if (*ks[i])
            clReleaseKernel(*ks[i]);
        *ks[i] = NULL;
    }
    cl_mem *ms[] = {&c->desc, &c->wt};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; ++i) {
        if (*ms[i])
            clReleaseMemObject(*ms[i]);
        *ms[i] = NULL;
    }
}

bool train_cl_cpu_fits(const cp_model *m)
{
    /* the layer table's offsets are ints */
    return m->n_layers > 0 && m->n_params < (size_t)INT_MAX;
}

/* How tr_cpu_grad's epilogue updates (its argument upd): the optimizer's update where the
 * layers' weights and biases are every parameter, else (and under the test hook
 * train-tile-unfused, as for the tiled kernels) the gradient into G for cl_optim. */
static int cpu_update_mode(const cp_trainer *tr)
{
    const cp_model *m = tr->m;
    if (!tr->needs_grad)
        return 1;
    size_t covered = 0;
    for (int l = 0; l < m->n_layers; ++l)
        covered +=
            ((size_t)m->layers[l].in + (m->layers[l].has_bias ? 1 : 0)) * (size_t)m->layers[l].out;
    if (covered != m->n_params || cp_test_hook("train-tile-unfused"))
        return 0;
    switch (tr->opt.kind) {
    case CP_OPTIM_SGD:
        return 2;
    case CP_OPTIM_MOMENTUM:
        return 3;
    case CP_OPTIM_ADAM:
    case CP_OPTIM_ADAMW:
        return 4;
    }
    return 0;
}

/* The kernels, the layer table (tr_cpu_grad's first work-item of each layer: TR_RB weight
 * rows each) and Wᵀ, every argument that does not change set once. */
int train_cl_cpu_setup(cp_trainer *tr)
{
    struct train_cl *c = tr->c;
    const cp_model *m = tr->m;
    size_t L = (size_t)m->n_layers;
    if (!train_cl_cpu_fits(m))
        return cp_err_set(CP_FAIL_USAGE,
                          "CLPARITY_TRAIN_KERNELS=cpu: the model has %zu layers and %zu "
                          "parameters (1 or more, and fewer than 2^31)",
                          L, m->n_params);
    static const char *const names[] = {"tr_cpu_rows", "tr_cpu_grad", "tr_cpu_transpose"};
    cl_kernel *ks[] = {&c->k_rows, &c->k_grad, &c->k_wt};
    cl_int rc;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i) {
        *ks[i] = clCreateKernel(c->prog, names[i], &rc);
        if (rc != CL_SUCCESS)
            return cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(%s) failed: %s (%d)", names[i],
                              cp_cl_error_name(rc), rc);
    }
    int *desc = malloc(L * CPU_DESC * sizeof *desc);
    if (!desc)
        return cp_err_set(CP_FAIL_RUNTIME, "cl:own training: out of memory");
    int rb = c->rb, items = 0;
    for (size_t l = 0; l < L; ++l) {
        const cp_layer *ly = &m->layers[l];
        int *d = desc + CPU_DESC * l;
        d[0] = ly->in;
        d[1] = ly->out;
        d[2] = (ly->has_bias ? 1 : 0) | (ly->act == CP_ACT_RELU ? 2 : 0) | (ly->residual ? 4 : 0);
        d[3] = (int)ly->w_off;
        d[4] = (int)ly->b_off;
        d[5] = items;
        items += (ly->out + rb - 1) / rb;
    }
    c->grad_items = (size_t)items;
    /* the table is ints: written as the bytes of L·CPU_DESC ints into a float buffer's room */
    int st = train_cl_buffer(c, L * CPU_DESC, desc, &c->desc, "layer table");
    free(desc);
    if (st == CP_OK)
        st = train_cl_buffer(c, m->n_params, NULL, &c->wt, "transposed weights");
    if (st != CP_OK)
        return st;
    c->upd = cpu_update_mode(tr);
    c->wt_stale = true;
    cl_int n_layers = m->n_layers, batch = tr->batch, ld = m->max_width, upd = c->upd;
    cl_ulong stride = c->stride;
    cl_mem ms = c->st[0] ? c->st[0] : c->p, vs = c->st[1] ? c->st[1] : c->p;
    cl_mem dst = c->upd == 0 ? c->G : c->p;
    /* tr_cpu_rows: all but p (argument 4, per forward), s and backward (12, 13: per launch) */
    const size_t rsz[] = {sizeof c->acts, sizeof c->z,   sizeof c->g,    sizeof c->gn,
                          sizeof c->p,    sizeof c->wt,  sizeof c->desc, sizeof n_layers,
                          sizeof batch,   sizeof stride, sizeof ld,      sizeof c->t};
    const void *const rva[] = {&c->acts, &c->z,     &c->g,  &c->gn,  &c->p, &c->wt,
                               &c->desc, &n_layers, &batch, &stride, &ld,   &c->t};
    /* tr_cpu_grad: all but its scalars (11, per step) */
    const size_t gsz[] = {sizeof c->acts, sizeof c->z,   sizeof dst,     sizeof c->wt,
                          sizeof ms,      sizeof vs,     sizeof c->desc, sizeof n_layers,
                          sizeof batch,   sizeof stride, sizeof upd};
    const void *const gva[] = {&c->acts, &c->z,     &dst,   &c->wt,  &ms, &vs,
                               &c->desc, &n_layers, &batch, &stride, &upd};
    const size_t tsz[] = {sizeof c->wt, sizeof c->desc};
    const void *const tva[] = {&c->wt, &c->desc};
    if ((st = own_set_args_at(c->k_rows, "tr_cpu_rows", 0, 12, rsz, rva)) != CP_OK ||
        (st = own_set_args_at(c->k_grad, "tr_cpu_grad", 0, 11, gsz, gva)) != CP_OK)
        return st;
    return own_set_args_at(c->k_wt, "tr_cpu_transpose", 1, 2, tsz, tva);
}

static int cpu_enqueue(struct train_cl *c, cl_kernel k, const char *name, cl_uint dims,
                       const size_t *gws)
{
    const size_t one[2] = {1, 1}; /* work-groups of one: PoCL runs each on a core as a unit */
    cl_int rc = own_enqueue_kernel(c->q, k, dims, NULL, gws, one, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueNDRangeKernel(%s) failed: %s (%d)", name,
                          cp_cl_error_name(rc), rc);
    return CP_OK;
}

/* Wᵀ from p where it is not p's (c->wt_stale, or another buffer), then tr_cpu_rows. A forward
 * from another buffer leaves wt stale for the next step's. */
int train_cl_cpu_rows(cp_trainer *tr, cl_mem p, bool backward)
{
    struct train_cl *c = tr->c;
    const cp_model *m = tr->m;
    int st = CP_OK;
    if (c->wt_stale || p != c->p) {
        size_t gws[2] = {(size_t)m->max_width, (size_t)m->n_layers};
        st = own_set_args_at(c->k_wt, "tr_cpu_transpose", 0, 1, (const size_t[]){sizeof p},
                             (const void *const[]){&p});
        if (st == CP_OK)
            st = cpu_enqueue(c, c->k_wt, "tr_cpu_transpose", 2, gws);
        if (st != CP_OK)
            return st;
        c->wt_stale = p != c->p;
    }
    cl_int n = tr->batch * m->out_width, bw = backward;
    float s = 2.0f / (float)n; /* tr_outgrad's scale, as train_cl.c's cl_step */
    const size_t sz[] = {sizeof s, sizeof bw};
    const void *const va[] = {&s, &bw};
    st = own_set_args_at(c->k_rows, "tr_cpu_rows", 4, 1, (const size_t[]){sizeof p},
                         (const void *const[]){&p});
    if (st == CP_OK)
        st = own_set_args_at(c->k_rows, "tr_cpu_rows", 12, 2, sz, va);
    size_t rb = (size_t)c->rb;
    size_t gws = ((size_t)tr->batch + rb - 1) / rb;
    return st == CP_OK ? cpu_enqueue(c, c->k_rows, "tr_cpu_rows", 1, &gws) : st;
}

/* tr_cpu_grad with the scalars of the step to come (tr->step + 1), as cl_optim passes them;
 * plain SGD's −lr as cl_update_layer's. */
int train_cl_cpu_grad(cp_trainer *tr)
{
    struct train_cl *c = tr->c;
    struct train_scalars s;
    train_scalars_at(&tr->opt, tr->step + 1, &s);
    cl_float16 sc;
    memset(&sc, 0, sizeof sc);
    sc.s[0] = tr->needs_grad ? (float)s.neg_lr : -tr->lr;
    sc.s[1] = (float)s.wd;
    sc.s[2] = s.wd != 0.0 ? 1.0f : 0.0f;
    sc.s[3] = tr->opt.kind == CP_OPTIM_ADAMW ? 1.0f : 0.0f;
    sc.s[4] = (float)s.decay;
    sc.s[5] = (float)s.w1;
    sc.s[6] = (float)s.beta2;
    sc.s[7] = (float)s.c2;
    sc.s[8] = (float)s.bc2_sqrt;
    sc.s[9] = (float)s.eps;
    sc.s[10] = (float)s.nss;
    sc.s[11] = c->plant && tr->step + 1 == TRAIN_PLANT_STEP ? 1.0f : 0.0f;
    sc.s[12] = (float)s.mom;
    sc.s[13] = s.first ? 1.0f : 0.0f;
    sc.s[14] = tr->opt.nesterov ? 1.0f : 0.0f;
    int st = own_set_args_at(c->k_grad, "tr_cpu_grad", 11, 1, (const size_t[]){sizeof sc},
                             (const void *const[]){&sc});
    if (st != CP_OK)
        return st;
    /* the update is Wᵀ's too, but for upd 0: cl_optim then updates p alone */
    c->wt_stale = c->wt_stale || c->upd == 0;
    return cpu_enqueue(c, c->k_grad, "tr_cpu_grad", 1, &c->grad_items);
}
