/* The OpenCL engines: cl:own (clkernels/block.cl) and cl:clblast (CLBlast SGEMM + our
 * epilogue). Both keep the weights on the device between forwards, enqueue every layer and
 * synchronise once. */
#include "engine-impl.h"
#include "program-impl.h"

#include <clblast_c.h>
#include <stdlib.h>
#include <string.h>

struct cl_state {
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_kernel k_linear, k_epilogue;
    cl_mem *chunks; /* the weights: one buffer when they fit the max allocation */
    size_t n_chunks;
    size_t *chunk_start; /* offset of each chunk into the model's params, in floats */
    int *layer_chunk;
    cl_mem act[2], tmp;
    cl_event *events; /* one per layer, for the profiled kernel time */
    bool clblast;
};

enum cl_variant { CL_OWN, CL_CLBLAST, CL_RELAXED };

static void cl_destroy(cp_engine *e)
{
    struct cl_state *s = e->state;
    /* Release in reverse order of creation; a NULL member was never made. */
    if (s->q)
        clFinish(s->q);
    if (s->events) {
        for (int l = 0; l < e->model->n_layers; ++l)
            if (s->events[l])
                clReleaseEvent(s->events[l]);
        free(s->events);
    }
    for (int i = 0; i < 2; ++i)
        if (s->act[i])
            clReleaseMemObject(s->act[i]);
    if (s->tmp)
        clReleaseMemObject(s->tmp);
    for (size_t c = 0; c < s->n_chunks; ++c)
        if (s->chunks[c])
            clReleaseMemObject(s->chunks[c]);
    free(s->chunks);
    free(s->chunk_start);
    free(s->layer_chunk);
    if (s->k_linear)
        clReleaseKernel(s->k_linear);
    if (s->k_epilogue)
        clReleaseKernel(s->k_epilogue);
    if (s->prog)
        clReleaseProgram(s->prog);
    if (s->q)
        clReleaseCommandQueue(s->q);
    if (s->ctx)
        clReleaseContext(s->ctx);
    free(s);
    e->state = NULL;
}

static size_t layer_end(const cp_layer *L)
{
    size_t end = L->w_off + (size_t)L->in * (size_t)L->out;
    if (L->has_bias && L->b_off + (size_t)L->out > end)
        end = L->b_off + (size_t)L->out;
    return end;
}

static size_t layer_begin(const cp_layer *L)
{
    return L->has_bias && L->b_off < L->w_off ? L->b_off : L->w_off;
}

/* Groups consecutive layers into buffers no larger than max_alloc (DESIGN.md, Memory). */
static int plan_chunks(cp_engine *e, struct cl_state *s, cl_ulong max_alloc)
{
    const cp_model *m = e->model;
    size_t n = (size_t)m->n_layers;
    s->layer_chunk = calloc(n, sizeof *s->layer_chunk);
    s->chunk_start = calloc(n + 1, sizeof *s->chunk_start);
    s->chunks = calloc(n + 1, sizeof *s->chunks);
    if (!s->layer_chunk || !s->chunk_start || !s->chunks)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
    size_t limit = (size_t)(max_alloc / sizeof(float));
    size_t c = 0, start = layer_begin(&m->layers[0]);
    s->chunk_start[0] = start;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        if (layer_end(L) - layer_begin(L) > limit)
            return cp_err_set(CP_FAIL_USAGE,
                              "%s: layer %d needs %zu bytes > CL_DEVICE_MAX_MEM_ALLOC_SIZE %llu",
                              e->info->name, l, (layer_end(L) - layer_begin(L)) * sizeof(float),
                              (unsigned long long)max_alloc);
        if (layer_end(L) - start > limit || layer_begin(L) < start) {
            c++;
            start = layer_begin(L);
            s->chunk_start[c] = start;
        }
        s->layer_chunk[l] = (int)c;
    }
    s->n_chunks = c + 1;
    return CP_OK;
}

static size_t chunk_end(const cp_engine *e, const struct cl_state *s, size_t c)
{
    size_t end = s->chunk_start[c];
    for (int l = 0; l < e->model->n_layers; ++l)
        if (s->layer_chunk[l] == (int)c && layer_end(&e->model->layers[l]) > end)
            end = layer_end(&e->model->layers[l]);
    return end;
}

static int cl_create_common(cp_engine *e, const cp_device *dev, enum cl_variant variant)
{
    const cp_model *m = e->model;
    struct cl_state *s = calloc(1, sizeof *s);
    if (!s)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
    e->state = s;
    s->clblast = variant == CL_CLBLAST;
    cl_int rc;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform_id,
                                     0};
    s->ctx = clCreateContext(props, 1, &dev->device_id, NULL, NULL, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clCreateContext");
    s->q = clCreateCommandQueue(s->ctx, dev->device_id, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clCreateCommandQueue");

    snprintf(e->build_options, sizeof e->build_options, "%s",
             variant == CL_RELAXED
                 ? "-cl-std=CL1.2 -DCP_RELAXED -cl-fast-relaxed-math -cl-mad-enable"
                 : "-cl-std=CL1.2");
    double t0 = cp_now();
    int st = cp_program_build(s->ctx, dev->device_id, "block.cl", e->build_options, &s->prog);
    if (st != CP_OK)
        return st;
    s->k_linear = clCreateKernel(s->prog, "cp_linear", &rc);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clCreateKernel(cp_linear)");
    s->k_epilogue = clCreateKernel(s->prog, "cp_epilogue", &rc);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clCreateKernel(cp_epilogue)");
    e->build_s = cp_now() - t0;

    st = plan_chunks(e, s, dev->max_alloc);
    if (st != CP_OK)
        return st;
    t0 = cp_now();
    for (size_t c = 0; c < s->n_chunks; ++c) {
        size_t n = chunk_end(e, s, c) - s->chunk_start[c];
        s->chunks[c] =
            clCreateBuffer(s->ctx, CL_MEM_READ_ONLY, (n ? n : 1) * sizeof(float), NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(weights)");
        if (n == 0)
            continue;
        rc = clEnqueueWriteBuffer(s->q, s->chunks[c], CL_TRUE, 0, n * sizeof(float),
                                  m->params + s->chunk_start[c], 0, NULL, NULL);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clEnqueueWriteBuffer(weights)");
    }
    e->upload_s = cp_now() - t0;

    size_t act = (size_t)e->max_batch * (size_t)m->max_width * sizeof(float);
    for (int i = 0; i < 2; ++i) {
        s->act[i] = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE, act, NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(activations)");
    }
    if (s->clblast) {
        s->tmp = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE, act, NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(gemm output)");
    }
    s->events = calloc((size_t)m->n_layers, sizeof *s->events);
    if (!s->events)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
    return CP_OK;
}

static int cl_own_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)m;
    (void)max_batch;
    return cl_create_common(e, dev, CL_OWN);
}

static int cl_relaxed_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)m;
    (void)max_batch;
    return cl_create_common(e, dev, CL_RELAXED);
}

static int cl_clblast_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)m;
    (void)max_batch;
    return cl_create_common(e, dev, CL_CLBLAST);
}

/* Sets the arguments of one kernel from a list; names the kernel and argument on failure. */
static int set_args(cl_kernel k, const char *kname, size_t n, const size_t *sizes,
                    const void *const *values)
{
    for (size_t i = 0; i < n; ++i) {
        cl_int rc = clSetKernelArg(k, (cl_uint)i, sizes[i], values[i]);
        if (rc != CL_SUCCESS)
            return cp_err_set(CP_FAIL_RUNTIME, "clSetKernelArg(%s, %zu) failed: %s (%d)", kname, i,
                              cp_cl_error_name(rc), rc);
    }
    return CP_OK;
}

static int enqueue_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem outb)
{
    const cp_layer *L = &e->model->layers[l];
    cl_mem w = s->chunks[s->layer_chunk[l]];
    size_t base = s->chunk_start[s->layer_chunk[l]];
    cl_ulong w_off = (cl_ulong)(L->w_off - base);
    cl_ulong b_off = (cl_ulong)(L->has_bias ? L->b_off - base : 0);
    cl_int in_w = L->in, out_w = L->out, has_bias = L->has_bias, act = L->act,
           residual = L->residual;
    size_t global[2] = {(size_t)L->out, (size_t)batch};
    cl_int rc;
    int st;
    if (!s->clblast) {
        const size_t sizes[] = {sizeof in,   sizeof outb,    sizeof w,        sizeof w_off,
                                sizeof in_w, sizeof out_w,   sizeof has_bias, sizeof b_off,
                                sizeof act,  sizeof residual};
        const void *const vals[] = {&in,    &outb,     &w,     &w_off, &in_w,
                                    &out_w, &has_bias, &b_off, &act,   &residual};
        st = set_args(s->k_linear, "cp_linear", 10, sizes, vals);
        if (st != CP_OK)
            return st;
        rc = clEnqueueNDRangeKernel(s->q, s->k_linear, 2, NULL, global, NULL, 0, NULL,
                                    &s->events[l]);
        return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_linear)");
    }
    cl_command_queue q = s->q;
    CLBlastStatusCode bs =
        CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes, (size_t)batch,
                     (size_t)L->out, (size_t)L->in, 1.0f, in, 0, (size_t)L->in, w, (size_t)w_off,
                     (size_t)L->in, 0.0f, s->tmp, 0, (size_t)L->out, &q, NULL);
    if (bs != CLBlastSuccess)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "CLBlastSgemm failed: %s (%d) at layer %d (%d x %d x %d)",
                          cp_clblast_status_name(bs), (int)bs, l, batch, L->out, L->in);
    const size_t sizes[] = {sizeof s->tmp, sizeof in,      sizeof outb,     sizeof w,
                            sizeof in_w,   sizeof out_w,   sizeof has_bias, sizeof b_off,
                            sizeof act,    sizeof residual};
    const void *const vals[] = {&s->tmp, &in,       &outb,  &w,   &in_w,
                                &out_w,  &has_bias, &b_off, &act, &residual};
    st = set_args(s->k_epilogue, "cp_epilogue", 10, sizes, vals);
    if (st != CP_OK)
        return st;
    rc = clEnqueueNDRangeKernel(s->q, s->k_epilogue, 2, NULL, global, NULL, 0, NULL, NULL);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_epilogue)");
}

static int cl_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    struct cl_state *s = e->state;
    const cp_model *m = e->model;
    for (int l = 0; l < m->n_layers; ++l)
        if (s->events[l]) {
            clReleaseEvent(s->events[l]);
            s->events[l] = NULL;
        }
    double t0 = cp_now();
    cl_int rc =
        clEnqueueWriteBuffer(s->q, s->act[0], CL_TRUE, 0,
                             (size_t)batch * (size_t)m->in_width * sizeof(float), x, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueWriteBuffer(input)");
    double t1 = cp_now();
    for (int l = 0; l < m->n_layers; ++l) {
        int st = enqueue_layer(e, s, l, batch, s->act[l % 2], s->act[(l + 1) % 2]);
        if (st != CP_OK) {
            clFinish(s->q);
            return st;
        }
    }
    rc = clFinish(s->q);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clFinish");
    double t2 = cp_now();
    rc =
        clEnqueueReadBuffer(s->q, s->act[m->n_layers % 2], CL_TRUE, 0,
                            (size_t)batch * (size_t)m->out_width * sizeof(float), y, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(output)");
    t->h2d_s = t1 - t0;
    t->wall_s = t2 - t1;
    t->d2h_s = cp_now() - t2;
    if (s->clblast)
        return CP_OK; /* CLBlast hides its kernels' events: kernel time stays n/a */
    double ksum = 0.0;
    for (int l = 0; l < m->n_layers; ++l) {
        cl_ulong a, b;
        rc = clGetEventProfilingInfo(s->events[l], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
        if (rc == CL_SUCCESS)
            rc =
                clGetEventProfilingInfo(s->events[l], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clGetEventProfilingInfo");
        ksum += 1e-9 * (double)(b - a);
    }
    t->kernel_s = ksum;
    return CP_OK;
}

static void compare_chunk(const cp_engine *e, const struct cl_state *s, size_t c, const float *got,
                          int *ok)
{
    size_t n = chunk_end(e, s, c) - s->chunk_start[c];
    if (memcmp(got, e->model->params + s->chunk_start[c], n * sizeof(float)) != 0)
        *ok = 0;
}

/* Each weight buffer read back, mapped, and copied to a fresh buffer and read from there. */
static int cl_roundtrip(cp_engine *e, int *ok)
{
    struct cl_state *s = e->state;
    int st = CP_OK;
    float *host = NULL;
    cl_mem copy = NULL;
    *ok = 1;
    for (size_t c = 0; c < s->n_chunks && st == CP_OK; ++c) {
        size_t n = chunk_end(e, s, c) - s->chunk_start[c], bytes = n * sizeof(float);
        if (n == 0)
            continue;
        cl_int rc;
        host = malloc(bytes);
        if (!host)
            return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory for the round trip",
                              e->info->name);
        rc = clEnqueueReadBuffer(s->q, s->chunks[c], CL_TRUE, 0, bytes, host, 0, NULL, NULL);
        if (rc != CL_SUCCESS) {
            st = cp_err_cl(rc, "clEnqueueReadBuffer(weights)");
            goto out;
        }
        compare_chunk(e, s, c, host, ok);
        void *map = clEnqueueMapBuffer(s->q, s->chunks[c], CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL,
                                       NULL, &rc);
        if (rc != CL_SUCCESS) {
            st = cp_err_cl(rc, "clEnqueueMapBuffer(weights)");
            goto out;
        }
        compare_chunk(e, s, c, map, ok);
        rc = clEnqueueUnmapMemObject(s->q, s->chunks[c], map, 0, NULL, NULL);
        if (rc != CL_SUCCESS) {
            st = cp_err_cl(rc, "clEnqueueUnmapMemObject(weights)");
            goto out;
        }
        copy = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
        if (rc != CL_SUCCESS) {
            st = cp_err_cl(rc, "clCreateBuffer(round-trip copy)");
            goto out;
        }
        rc = clEnqueueCopyBuffer(s->q, s->chunks[c], copy, 0, 0, bytes, 0, NULL, NULL);
        if (rc != CL_SUCCESS) {
            st = cp_err_cl(rc, "clEnqueueCopyBuffer(weights)");
            goto out;
        }
        if (cp_test_hook("corrupt-roundtrip")) { /* one flipped bit in the copy */
            float bad = e->model->params[s->chunk_start[c]];
            unsigned char *p = (unsigned char *)&bad;
            p[0] ^= 1;
            rc = clEnqueueWriteBuffer(s->q, copy, CL_TRUE, 0, sizeof bad, &bad, 0, NULL, NULL);
            if (rc != CL_SUCCESS) {
                st = cp_err_cl(rc, "clEnqueueWriteBuffer(test hook)");
                goto out;
            }
        }
        rc = clEnqueueReadBuffer(s->q, copy, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
        if (rc != CL_SUCCESS) {
            st = cp_err_cl(rc, "clEnqueueReadBuffer(round-trip copy)");
            goto out;
        }
        compare_chunk(e, s, c, host, ok);
        clReleaseMemObject(copy);
        copy = NULL;
        free(host);
        host = NULL;
    }
out:
    if (copy)
        clReleaseMemObject(copy);
    free(host);
    return st;
}

const struct cp_engine_ops cp_engine_ops_cl_own = {cl_own_create, cl_forward, cl_destroy,
                                                   cl_roundtrip};
const struct cp_engine_ops cp_engine_ops_cl_clblast = {cl_clblast_create, cl_forward, cl_destroy,
                                                       cl_roundtrip};
const struct cp_engine_ops cp_engine_ops_cl_relaxed = {cl_relaxed_create, cl_forward, cl_destroy,
                                                       cl_roundtrip};
