/* What the OpenCL engines' kernel paths share below them: the OpenCL calls through the
 * fault-injection hooks, kernel arguments, uploads, the per-layer launch loop and the counters
 * of a device-wide barrier (from engine_cl.c), and the device and model tests that several
 * paths apply (from own_path.c). The paths (own_*.c, cr_cl.c) and engine_cl.c call these;
 * this file calls none of them back. */
#include "cl-shared-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* own_enqueue_layers flushes the queue after every this many layers. */
#define CP_FLUSH_LAYERS 256

/* clCreateBuffer and clEnqueueNDRangeKernel, through which the test hooks fail-alloc:N and
 * fail-enqueue:N make the Nth call fail as a device out of resources would. */
cl_mem own_create_buffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host, cl_int *rc)
{
    if (cp_test_fail("alloc")) {
        *rc = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    return clCreateBuffer(ctx, flags, size, host, rc);
}

cl_int own_enqueue_kernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
                          const size_t *global, const size_t *local, cl_uint n_wait,
                          const cl_event *wait, cl_event *ev)
{
    if (cp_test_fail("enqueue"))
        return CL_OUT_OF_RESOURCES;
    return clEnqueueNDRangeKernel(q, k, dims, offset, global, local, n_wait, wait, ev);
}

int own_upload(struct cl_state *s, cl_mem *buf, const void *data, size_t bytes, const char *what)
{
    cl_int rc;
    *buf = own_create_buffer(s->ctx, CL_MEM_READ_ONLY, bytes ? bytes : 1, NULL, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clCreateBuffer(%s) failed: %s (%d)", what,
                          cp_cl_error_name(rc), rc);
    if (!bytes)
        return CP_OK;
    rc = clEnqueueWriteBuffer(s->q, *buf, CL_TRUE, 0, bytes, data, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueWriteBuffer(%s) failed: %s (%d)", what,
                          cp_cl_error_name(rc), rc);
    return CP_OK;
}

/* The counters of a device-wide barrier (grid_sync.cl: own's stream and cpug, cr's stream, the
 * one-launch training step): 4 ints on ctx. */
int own_ctl_new(cl_context ctx, cl_mem *ctl)
{
    cl_int rc;
    *ctl = own_create_buffer(ctx, CL_MEM_READ_WRITE, 4 * sizeof(cl_int), NULL, &rc);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clCreateBuffer(barrier counters)");
}

/* Zeroes the counters before a launch that uses them: a write from static zeros (which outlive
 * the non-blocking write); Oclgrind's uninitialised-value check does not count a fill. */
int own_ctl_clear(cl_command_queue q, cl_mem ctl)
{
    static const cl_int zeros[4] = {0, 0, 0, 0};
    cl_int rc = clEnqueueWriteBuffer(q, ctl, CL_FALSE, 0, sizeof zeros, zeros, 0, NULL, NULL);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueWriteBuffer(barrier counters)");
}

/* Sets the arguments of one kernel from a list, from index `at` on (a NULL value: local
 * memory of that size); names the kernel and argument on failure. */
int own_set_args_at(cl_kernel k, const char *kname, cl_uint at, size_t n, const size_t *sizes,
                    const void *const *values)
{
    for (size_t i = 0; i < n; ++i) {
        cl_int rc = clSetKernelArg(k, at + (cl_uint)i, sizes[i], values[i]);
        if (rc != CL_SUCCESS)
            return cp_err_set(CP_FAIL_RUNTIME, "clSetKernelArg(%s, %zu) failed: %s (%d)", kname,
                              (size_t)at + i, cp_cl_error_name(rc), rc);
    }
    return CP_OK;
}

int own_set_args(cl_kernel k, const char *kname, size_t n, const size_t *sizes,
                 const void *const *values)
{
    return own_set_args_at(k, kname, 0, n, sizes, values);
}

void own_stored_layer(const cp_engine *e, const struct cl_state *s, int l, struct stored_layer *a)
{
    const cp_layer *L = &e->model->layers[l];
    size_t base = s->chunk_start[s->layer_chunk[l]];
    a->w = s->chunks[s->layer_chunk[l]];
    a->w_off = (cl_ulong)(L->w_off - base);
    a->b_off = (cl_ulong)(L->has_bias ? L->b_off - base : 0);
    a->in = L->in;
    a->out = L->out;
    a->has_bias = L->has_bias;
    a->act = L->act;
    a->residual = L->residual;
}

int own_enqueue_layers(cp_engine *e, struct cl_state *s, int batch, own_layer_fn fn)
{
    const cp_model *m = e->model;
    for (int l = 0; l < m->n_layers; ++l) {
        int st = fn(e, s, l, batch, s->act[l % 2], s->act[(l + 1) % 2]);
        if (st != CP_OK) {
            clFinish(s->q);
            return st;
        }
        /* Hand the queued layers to the device every CP_FLUSH_LAYERS: PoCL 3.1 slows down
         * badly when a deep model (131072 layers in sweep's params grid) piles up unflushed
         * commands, and the device starts working sooner. One synchronisation stays. */
        if ((l + 1) % CP_FLUSH_LAYERS == 0 && l + 1 < m->n_layers) {
            cl_int rc = clFlush(s->q);
            if (rc != CL_SUCCESS) {
                clFinish(s->q);
                return cp_err_cl(rc, "clFlush");
            }
        }
    }
    return CP_OK;
}

/* The counters as read back after the launch: a wait given up inside the kernel (ctl[3]), or no
 * group that joined, leaves the work unfinished: an error that says what to set instead, no
 * result. */
int own_ctl_verdict(const cl_int ctl[4], const char *what, size_t groups, const char *instead)
{
    if (ctl[3] || ctl[1] < 1)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "%s: a device-wide barrier wait was given up (%d of %zu work-groups "
                          "joined); set %s",
                          what, (int)ctl[1], groups, instead);
    return CP_OK;
}

/* After the output is read: the counters read back and judged (own_ctl_verdict). */
int own_check_ctl(struct cl_state *s, const char *what, size_t groups, const char *instead)
{
    cl_int ctl[4];
    cl_int rc = clEnqueueReadBuffer(s->q, s->ctl, CL_TRUE, 0, sizeof ctl, ctl, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(barrier counters)");
    return own_ctl_verdict(ctl, what, groups, instead);
}

/* Build options for grid_sync.cl's bounded waits (the stream and cpug kernels). On a CPU
 * (PoCL) the groups are the runtime's threads: a group that joined is always scheduled again,
 * but late where the cores are shared, and 2^26 polls (tens of milliseconds there) were given
 * up under ctest -j2 on 2 cores. There the bound is 2^34 polls, tens of seconds; GPUs and the
 * simulator keep grid_sync.cl's 2^26. */
const char *own_spin_bound_options(const cp_device *dev)
{
    return own_cpu_device(dev) ? " -DCP_SPIN_T=long -DCP_SPIN=(1L<<34)" : "";
}

bool own_uniform_model(const cp_model *m, int *flags)
{
    if (m->n_layers < 1)
        return false;
    const cp_layer *L0 = &m->layers[0];
    *flags = own_layer_flags(L0);
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        if (L->in != L0->in || L->out != L0->in || own_layer_flags(L) != *flags)
            return false;
    }
    return true;
}

int own_device_info(cl_device_id d, cl_device_info what, size_t size, void *out, const char *name)
{
    cl_int rc = clGetDeviceInfo(d, what, size, out, NULL);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, name);
}

static bool rule_kind_is(enum cl_rule_kind kind, bool cpu)
{
    return kind == CL_RULE_ANY || (kind == CL_RULE_CPU) == cpu;
}

int cl_rule_first(const struct cl_rule *rules, size_t n, const struct cl_rule_input *in,
                  cl_rule_fits_fn fits, const void *ctx)
{
    for (size_t i = 0; i < n; ++i) {
        const struct cl_rule *r = &rules[i];
        if (!rule_kind_is(r->kind, in->cpu) || (r->w_over && in->width <= r->w_over) ||
            (r->w_max && in->width > r->w_max) || (r->b_over && in->batch <= r->b_over) ||
            (r->b_max && in->batch > r->b_max) || in->cus < r->min_cus ||
            (r->blocks_per_cu && in->blocks > r->blocks_per_cu * (int)in->cus) ||
            (r->needs_f64 && !in->f64) || (r->no_f64 && in->f64) ||
            (r->one_buffer && !in->one_buffer))
            continue;
        bool unless = false;
        for (int p = 0; fits && p < 32 && !unless; ++p)
            unless = (r->unless & (1u << p)) && fits(p, ctx);
        if (unless || (fits && !fits(r->path, ctx)))
            continue;
        return r->path;
    }
    return -1;
}

size_t cl_fallback_after(const struct cl_fallback *lists, size_t n_lists, bool cpu, int after,
                         int *out)
{
    size_t n = 0;
    for (size_t i = 0; i < n_lists; ++i) {
        if (!rule_kind_is(lists[i].kind, cpu))
            continue;
        size_t from = 0;
        for (size_t j = 0; j < lists[i].n; ++j)
            if (lists[i].order[j] == after)
                from = j + 1;
        for (size_t j = from; j < lists[i].n && n < OWN_PATHS_MAX; ++j)
            out[n++] = lists[i].order[j];
    }
    return n;
}

void own_release(struct cl_state *s)
{
    struct own_state *o = s->priv;
    if (!o)
        return; /* cl:clblast, or a setup that failed before its state */
    if (o->wt)
        clReleaseMemObject(o->wt);
    if (o->desc)
        clReleaseMemObject(o->desc);
    free(o->str_desc);
    if (o->k_path)
        clReleaseKernel(o->k_path);
    if (o->k_path4)
        clReleaseKernel(o->k_path4);
    if (o->prog_path)
        clReleaseProgram(o->prog_path);
    free(o);
    s->priv = NULL;
}
