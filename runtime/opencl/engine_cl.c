/* The OpenCL engines: cl:own, cl:clblast (CLBlast SGEMV at B = 1, SGEMM beyond, + our
 * epilogue), cl:relaxed (cl:own's kernel paths built with fast math, a * b + c for fma) and
 * cl:cr (correctly rounded layers: cr_cl.c and clkernels/cr.cl). All
 * keep the weights on the device between forwards, enqueue every layer and synchronise once. What
 * they share lives here: the context, the weights as stored, the activations, the forward's
 * frame and the round trip. Every kernel path is a cl_path_ops row (cl-shared-impl.h), which
 * this file calls only through s->ops: cl:own's and cl:relaxed's (own_small.c, own_gemm.c and
 * own_cpu.c, chosen in own_path.c) and cl:cr's variants (cr_cl_run.c, chosen in cr_cl.c). */
#include "cl-shared-impl.h"
#include "train-impl.h"
#include "isolate-impl.h"
#include "program-impl.h"

#include <clblast_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum cl_variant { CL_OWN, CL_CLBLAST, CL_RELAXED, CL_CR };

static void cl_destroy(cp_engine *e)
{
    struct cl_state *s = e->state;
    /* Release in reverse order of creation; a NULL member was never made. */
    if (s->q)
        clFinish(s->q);
    if (s->events) {
        for (size_t i = 0; i < s->n_events; ++i)
            if (s->events[i])
                clReleaseEvent(s->events[i]);
        free(s->events);
    }
    if (s->ops && s->ops->release)
        s->ops->release(s);
    /* Test hook "skip-release": one buffer is left unreleased, to show that the check below
     * catches it. */
    for (int i = cp_test_hook("skip-release") ? 1 : 0; i < 2; ++i)
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
    if (s->ctl)
        clReleaseMemObject(s->ctl);
    for (int l = 0; s->wt_layer && l < e->model->n_layers; ++l)
        if (s->wt_layer[l])
            clReleaseMemObject(s->wt_layer[l]);
    free(s->wt_layer);
    free(s->ldw);
    if (s->k_linear)
        clReleaseKernel(s->k_linear);
    if (s->k_epilogue)
        clReleaseKernel(s->k_epilogue);
    if (s->prog)
        clReleaseProgram(s->prog);
    if (s->clblast) {
        /* CLBlast caches its programs per context, each holding a reference to ours: the
         * context (and the device memory behind it) is freed only when they go. */
        CLBlastStatusCode cs = CLBlastClearCache();
        if (cs != CLBlastSuccess)
            fprintf(stderr, "clparity: warning: CLBlastClearCache failed: %s (%d)\n",
                    cp_clblast_status_name(cs), (int)cs);
    }
    if (s->q)
        clReleaseCommandQueue(s->q);
    if (s->ctx) {
        /* Under a test hook (a planted fault), check that every object made in this context
         * was released: the objects hold references to it, so ours must be the last. A driver
         * may drop its own references to finished commands a moment after clFinish (PoCL's
         * worker threads do), so a count above 1 is read again for up to a second. */
        cl_uint refs = 1;
        for (int tries = 0; cp_test_hook_active() && tries < 100; ++tries) {
            cl_int rc =
                clGetContextInfo(s->ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL);
            if (rc != CL_SUCCESS) {
                fprintf(stderr, "clparity: test hook: clGetContextInfo failed: %s (%d)\n",
                        cp_cl_error_name(rc), rc);
                break;
            }
            if (refs == 1)
                break;
            nanosleep(&(struct timespec){0, 10000000}, NULL);
        }
        if (refs != 1)
            fprintf(stderr,
                    "clparity: test hook: %s: %u references to the OpenCL context remain before "
                    "its release: an object was not released\n",
                    e->info->name, refs);
        clReleaseContext(s->ctx);
    }
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

/* Writes the weights as stored into their chunk buffers (once). */
static int write_chunks(cp_engine *e, struct cl_state *s)
{
    if (s->chunks_written)
        return CP_OK;
    for (size_t c = 0; c < s->n_chunks; ++c) {
        size_t n = chunk_end(e, s, c) - s->chunk_start[c];
        if (n == 0)
            continue;
        cl_int rc = clEnqueueWriteBuffer(s->q, s->chunks[c], CL_TRUE, 0, n * sizeof(float),
                                         e->model->params + s->chunk_start[c], 0, NULL, NULL);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clEnqueueWriteBuffer(weights)");
    }
    s->chunks_written = true;
    return CP_OK;
}

static int cl_create_common(cp_engine *e, const cp_device *dev, enum cl_variant variant)
{
    const cp_model *m = e->model;
    cp_cl_probe_engines(&cp_engine_cl_own, &cp_engine_cl_relaxed, &cp_engine_cl_cr);
    struct cl_state *s = calloc(1, sizeof *s);
    if (!s)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
    e->state = s;
    s->clblast = variant == CL_CLBLAST;
    s->relaxed = variant == CL_RELAXED;
    int forced_path = cp_cl_forced_path(); /* a probe's engine (own_probe.c) */
    s->probing = forced_path >= 0;
    s->ops = own_paths[PATH_NAIVE]; /* until a path's setup chooses (cl:clblast keeps it) */
    cl_int rc;
    int st = cp_cl_open(dev, CL_QUEUE_PROFILING_ENABLE, &s->ctx, &s->q);
    if (st != CP_OK)
        return st;

    snprintf(e->build_options, sizeof e->build_options, "-cl-std=CL1.2");
    double t0 = cp_now();
    if (variant == CL_CR)
        st = cr_cl_setup(e, s, dev); /* cr.cl; the weights as stored, as the naive path's */
    else if (variant != CL_CLBLAST)
        st = own_path_setup(e, s, dev, forced_path);
    if (st != CP_OK)
        return st;
    /* block.cl serves the naive path (of cl:own and cl:relaxed) and CLBlast's epilogue; the
     * other paths are one program each, so a build (and a cache entry) per engine. */
    if (!s->ops->file) {
        if (variant == CL_OWN && own_planted(s))
            snprintf(e->build_options, sizeof e->build_options, "-cl-std=CL1.2 -DCP_PLANT_BIT");
        else if (variant == CL_RELAXED)
            /* test hook relaxed-wrong: one output off by up to half its value, probe included */
            snprintf(e->build_options, sizeof e->build_options, "-cl-std=CL1.2 %s%s",
                     OWN_RELAXED_OPTIONS,
                     cp_test_hook("relaxed-wrong") ? " -DCP_PLANT_BIT " OWN_RELAXED_PLANT_MASK
                                                   : "");
        e->build_cache.path = variant == CL_CLBLAST ? "clblast" : own_paths[PATH_NAIVE]->name;
        st = cp_program_build_ex(s->ctx, dev->device_id, "block.cl", e->build_options, &s->prog,
                                 &e->build_cache);
        if (st != CP_OK)
            return st;
        s->k_linear = clCreateKernel(s->prog, "cp_linear", &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateKernel(cp_linear)");
        s->k_epilogue = clCreateKernel(s->prog, "cp_epilogue", &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateKernel(cp_epilogue)");
    }
    e->build_s = cp_now() - t0 - e->paths.probe_s;
    if (cp_isolate_setup_only())
        return CP_OK; /* a setup child: the builds and probes were all it was for */

    st = plan_chunks(e, s, dev->max_alloc);
    if (st != CP_OK)
        return st;
    t0 = cp_now();
    for (size_t c = 0; c < s->n_chunks; ++c) {
        size_t n = chunk_end(e, s, c) - s->chunk_start[c];
        s->chunks[c] =
            own_create_buffer(s->ctx, CL_MEM_READ_ONLY, (n ? n : 1) * sizeof(float), NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(weights)");
    }
    /* The weights as stored: read by the naive and tiled kernels and by CLBlast; for the
     * others only by the round trip (compare), which writes them first. */
    const struct cl_path_ops *ops = s->ops;
    if (ops->reads_chunks) {
        st = write_chunks(e, s);
        if (st != CP_OK)
            return st;
    }
    if (ops->upload) {
        st = ops->upload(e, s);
        if (st != CP_OK)
            return st;
    }
    e->upload_s = cp_now() - t0;

    size_t act = (size_t)e->max_batch * (size_t)m->max_width * sizeof(float);
    for (int i = 0; i < 2; ++i) {
        s->act[i] = own_create_buffer(s->ctx, CL_MEM_READ_WRITE, act, NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(activations)");
    }
    if (s->clblast) {
        /* zeros: CLBlastSgemv reads its output (times beta = 0) before it writes it; the
         * epilogue leaves zeros behind it (block.cl) */
        s->tmp = own_create_buffer(s->ctx, CL_MEM_READ_WRITE, act, NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(gemm output)");
        float *zeros = calloc(act / sizeof(float), sizeof(float));
        if (!zeros)
            return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
        rc = clEnqueueWriteBuffer(s->q, s->tmp, CL_TRUE, 0, act, zeros, 0, NULL, NULL);
        free(zeros);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clEnqueueWriteBuffer(gemm output)");
    }
    s->n_events = (size_t)m->n_layers * (ops->events_per_layer ? ops->events_per_layer : 1);
    s->events = calloc(s->n_events, sizeof *s->events);
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

static int cl_cr_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)m;
    (void)max_batch;
    return cl_create_common(e, dev, CL_CR);
}

static int cl_clblast_create(cp_engine *e, const cp_device *dev, const cp_model *m, int max_batch)
{
    (void)m;
    (void)max_batch;
    return cl_create_common(e, dev, CL_CLBLAST);
}

/* One layer of cl:clblast: CLBlast's product into tmp, then our epilogue (bias, ReLU, residual)
 * from tmp into the output. At batch 1 the product is CLBlastSgemv (y = W·x, W row-major
 * [out][in] as stored), as host:openblas calls cblas_sgemv there: a matrix-vector product,
 * where SGEMM would pad a 1-row matrix to its tiles; beyond, CLBlastSgemm (x·Wᵀ). */
static int clblast_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in, cl_mem outb)
{
    const cp_layer *L = &e->model->layers[l];
    struct stored_layer a;
    own_stored_layer(e, s, l, &a);
    size_t global[2] = {(size_t)L->out, (size_t)batch};
    cl_int rc;
    int st;
    cl_command_queue q = s->q;
    bool gemv = batch == 1;
    CLBlastStatusCode bs =
        gemv ? CLBlastSgemv(CLBlastLayoutRowMajor, CLBlastTransposeNo, (size_t)L->out,
                            (size_t)L->in, 1.0f, a.w, (size_t)a.w_off, (size_t)L->in, in, 0, 1,
                            0.0f, s->tmp, 0, 1, &q, NULL)
             : CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes,
                            (size_t)batch, (size_t)L->out, (size_t)L->in, 1.0f, in, 0,
                            (size_t)L->in, a.w, (size_t)a.w_off, (size_t)L->in, 0.0f, s->tmp, 0,
                            (size_t)L->out, &q, NULL);
    if (bs != CLBlastSuccess)
        return cp_err_set(CP_FAIL_RUNTIME, "%s failed: %s (%d) at layer %d (%d x %d x %d)",
                          gemv ? "CLBlastSgemv" : "CLBlastSgemm", cp_clblast_status_name(bs),
                          (int)bs, l, batch, L->out, L->in);
    const size_t sizes[] = {sizeof s->tmp, sizeof in,        sizeof outb,       sizeof a.w,
                            sizeof a.in,   sizeof a.out,     sizeof a.has_bias, sizeof a.b_off,
                            sizeof a.act,  sizeof a.residual};
    const void *const vals[] = {&s->tmp, &in,         &outb,    &a.w,   &a.in,
                                &a.out,  &a.has_bias, &a.b_off, &a.act, &a.residual};
    st = own_set_args(s->k_epilogue, "cp_epilogue", 10, sizes, vals);
    if (st != CP_OK)
        return st;
    rc = own_enqueue_kernel(s->q, s->k_epilogue, 2, NULL, global, NULL, 0, NULL, NULL);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_epilogue)");
}

static int cl_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t)
{
    struct cl_state *s = e->state;
    const cp_model *m = e->model;
    for (size_t i = 0; i < s->n_events; ++i)
        if (s->events[i]) {
            clReleaseEvent(s->events[i]);
            s->events[i] = NULL;
        }
    double t0 = cp_now();
    cl_int rc =
        clEnqueueWriteBuffer(s->q, s->act[0], CL_TRUE, 0,
                             (size_t)batch * (size_t)m->in_width * sizeof(float), x, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueWriteBuffer(input)");
    double t1 = cp_now();
    cl_mem result = s->act[m->n_layers % 2];
    const struct cl_path_ops *ops = s->ops;
    if (s->clblast)
        snprintf(e->routine, sizeof e->routine, "%s + cp_epilogue",
                 batch == 1 ? "CLBlastSgemv" : "CLBlastSgemm");
    else if (!ops->sets_routine) /* cl:cr's is set by its setup */
        snprintf(e->routine, sizeof e->routine, "path %s%s", ops->name,
                 s->relaxed ? " (relaxed)" : "");
    int st = ops->enqueue_model
                 ? ops->enqueue_model(e, s, batch, &result)
                 : own_enqueue_layers(e, s, batch, s->clblast ? clblast_layer : ops->enqueue_layer);
    if (st != CP_OK)
        return st;
    rc = clFinish(s->q);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clFinish");
    double t2 = cp_now();
    rc =
        clEnqueueReadBuffer(s->q, result, CL_TRUE, 0,
                            (size_t)batch * (size_t)m->out_width * sizeof(float), y, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(output)");
    if (ops->after_read) {
        st = ops->after_read(e, s);
        if (st != CP_OK)
            return st;
    }
    t->h2d_s = t1 - t0;
    t->wall_s = t2 - t1;
    t->d2h_s = cp_now() - t2;
    if (s->clblast)
        return CP_OK; /* CLBlast hides its kernels' events: kernel time stays n/a */
    double ksum = 0.0;
    for (size_t i = 0; i < s->n_events; ++i) {
        if (!s->events[i])
            continue; /* the one-launch path has one event, cl:cr's gemv one a layer */
        cl_ulong a, b;
        rc = clGetEventProfilingInfo(s->events[i], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
        if (rc == CL_SUCCESS)
            rc =
                clGetEventProfilingInfo(s->events[i], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
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
    float *host = NULL;
    cl_mem copy = NULL;
    *ok = 1;
    int st = write_chunks(e, s);
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
        copy = own_create_buffer(s->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
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

const struct cp_engine_ops cp_engine_ops_cl_own = {.isolated = true,
                                                   .create = cl_own_create,
                                                   .forward = cl_forward,
                                                   .destroy = cl_destroy,
                                                   .roundtrip = cl_roundtrip,
                                                   .tunables = own_tunables};
const struct cp_engine_ops cp_engine_ops_cl_clblast = {.create = cl_clblast_create,
                                                       .forward = cl_forward,
                                                       .destroy = cl_destroy,
                                                       .roundtrip = cl_roundtrip};
const struct cp_engine_ops cp_engine_ops_cl_relaxed = {.isolated = true,
                                                       .create = cl_relaxed_create,
                                                       .forward = cl_forward,
                                                       .destroy = cl_destroy,
                                                       .roundtrip = cl_roundtrip};
const struct cp_engine_ops cp_engine_ops_cl_cr = {.isolated = true,
                                                  .create = cl_cr_create,
                                                  .forward = cl_forward,
                                                  .destroy = cl_destroy,
                                                  .roundtrip = cl_roundtrip,
                                                  .tunables = cr_tunables};

/* The OpenCL engines' registry entries (listed by registry.c), beside their ops: each one's
 * traits as data, its training (train_cl.c) and what it holds (its footprint). */

/* The footprints (cp_engine_footprint): f holds the default when they are called, the weights
 * once in the engine's dtype and two activation buffers. */

/* cl:own and cl:relaxed (its kernels) keep the weights as uploaded (for the round-trip checks)
 * and a copy in their kernels' layout (transposed or blocked); their one-launch path transposes
 * every layer into one host buffer before the upload. */
static void footprint_own(const cp_model *m, int batch, cp_footprint *f)
{
    (void)batch;
    f->weights *= 2;
    f->staging += (unsigned long long)m->n_params * 4ULL;
}

static void footprint_clblast(const cp_model *m, int batch, cp_footprint *f)
{
    (void)m;
    (void)batch;
    f->buffers = 3;
}

/* cl:cr: the weights as stored, each output's weight norm and each row's sum of squares (its
 * split-k partial sums, CLPARITY_CR_TUNE=path=splitk, are checked when it is created). */
static void footprint_cl_cr(const cp_model *m, int batch, cp_footprint *f)
{
    f->weights += (unsigned long long)m->max_width * (unsigned long long)m->n_layers * 8ULL +
                  (unsigned long long)batch * 8ULL;
}

const cp_engine_info cp_engine_cl_own = {
    .name = "cl:own",
    .kind = CP_DEV_OPENCL,
    .dtype = CP_F32,
    .summary = "our .cl kernels: k ascending, explicit fma, FP_CONTRACT OFF (bitwise twin of "
               "host:exact)",
    .twin = "host:exact",
    .in_sweep = true,
    .footprint = footprint_own,
    .ops = &cp_engine_ops_cl_own,
    .train = &train_ops_cl_own,
};

const cp_engine_info cp_engine_cl_clblast = {
    .name = "cl:clblast",
    .kind = CP_DEV_OPENCL,
    .dtype = CP_F32,
    .summary = "CLBlast SGEMV at batch 1, SGEMM beyond, + our ReLU/residual epilogue kernel",
    .footprint = footprint_clblast,
    .ops = &cp_engine_ops_cl_clblast,
    .train = &train_ops_cl_clblast,
};

const cp_engine_info cp_engine_cl_relaxed = {
    .name = "cl:relaxed",
    .kind = CP_DEV_OPENCL,
    .dtype = CP_F32,
    .summary = "cl:own's kernel paths with a * b + c for fma, -cl-fast-relaxed-math "
               "-cl-mad-enable: what exactness costs",
    .footprint = footprint_own,
    .ops = &cp_engine_ops_cl_relaxed,
    .train = &train_ops_cl_relaxed,
};

const cp_engine_info cp_engine_cl_cr = {
    .name = "cl:cr",
    .kind = CP_DEV_OPENCL,
    .dtype = CP_F32,
    .summary = "correctly rounded on the OpenCL device: host:cr's bits, any split",
    .correctly_rounded = true,
    .twin = "host:cr",
    .in_sweep = true, /* issue 34: sweep shows its curve beside cl:own's */
    .footprint = footprint_cl_cr,
    .ops = &cp_engine_ops_cl_cr,
    .train = &train_ops_cl_cr,
};
