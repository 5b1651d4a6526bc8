/* The OpenCL engines: cl:own (clkernels/block.cl) and cl:clblast (CLBlast SGEMM + our
 * epilogue). Both keep the weights on the device between forwards, enqueue every layer and
 * synchronise once. */
#include "engine-impl.h"
#include "own-impl.h"
#include "program-impl.h"
#include "clparity/tune.h"

#include <clblast_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cl_state {
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_kernel k_linear, k_epilogue;
    cl_mem *chunks;      /* the weights: one buffer when they fit the max allocation */
    bool chunks_written; /* the weights above hold the model (see write_chunks) */
    size_t n_chunks;
    size_t *chunk_start; /* offset of each chunk into the model's params, in floats */
    int *layer_chunk;
    cl_mem act[2], tmp;
    cl_event *events; /* one per layer, for the profiled kernel time */
    bool clblast;
    /* cl:own's faster paths (own_small.cl, own_gemm.cl), all in cl:own's summation order */
    int path;
    cl_program prog_path;
    cl_kernel k_path;
    const char *k_name; /* k_path's kernel, for error messages */
    cl_kernel k_path4;  /* PATH_TILED: cp_gemm_tiled4, for K a multiple of 4 */
    int tile_bk;        /* PATH_TILED: cp_gemm_tiled4's tile depth */
    int tile_db;        /* PATH_TILED: 2 when cp_gemm_tiled4 double-buffers its tiles */
    int tile_xp;        /* PATH_TILED: padding of the x tile's rows (floats) */
    cl_mem wt;          /* PATH_SMALL: every layer's Wt[k][o] and bias, in one buffer */
    cl_mem desc;        /* PATH_SMALL: 5 ints per layer */
    cl_mem *wt_layer;   /* PATH_TILED: each layer's Wt[k][n], PATH_VEC: its panels
                         * Wp[n / nr][k][n % nr]; n padded to ldw[l], then the bias */
    int *ldw;
    size_t small_ls;     /* PATH_SMALL: work-group size */
    int vec_w, vec_rb;   /* PATH_VEC: vector width and rows per register tile */
    int vec_nv;          /* PATH_VEC: vectors along n per work-item (panel width vec_w·vec_nv) */
    int vec_mc;          /* PATH_VEC: rows per work-item (tuned; enqueue_layer may take fewer) */
    unsigned cus;        /* PATH_VEC, PATH_STREAM: the device's compute units; PATH_CPUG: the
                          * groups launched (cpug_shape) */
    int cpu_rb;          /* PATH_CPU, PATH_CPU1: rows per work-item (own_cpu.cl's CP_RB) */
    int reg_rr;          /* PATH_REG: batch rows per work-group */
    int reg_ng;          /* PATH_REG: 1, cp_model_small_reg; else cp_model_small_rot's groups */
    int str_rb;          /* PATH_STREAM: batch rows per tile */
    int str_no;          /* PATH_STREAM: outputs per tile */
    int str_sp;          /* PATH_STREAM: 1 one launch (device-wide barrier), 0 a launch per layer */
    int str_sg;          /* PATH_STREAM, one launch: work-groups per compute unit */
    long long *str_desc; /* PATH_STREAM: the layer table, 5 longs per layer (host copy) */
    cl_mem ctl;          /* PATH_STREAM, one launch: the barrier's counters */
    bool probing;        /* made by cp_cl_create_probing for a probe: no probe of its own */
};

/* cp_cl_create_probing's path for the engine it creates on this thread (-1: none). */
static _Thread_local int forced_path = -1;

/* cl:own's kernels. The naive one (block.cl) is the reference form; the others change only
 * where operands live and which work-item holds which accumulator. */
enum own_path {
    PATH_NAIVE,
    PATH_SMALL,
    PATH_TILED,
    PATH_VEC,
    PATH_PIPE,
    PATH_REG,
    PATH_CPU,
    PATH_CPU1,
    PATH_STREAM,
    PATH_CPUG
};
static const char *const path_names[] = {"naive", "small", "tiled", "vec",    "pipe",
                                         "reg",   "cpu",   "cpu1",  "stream", "cpug"};
#define N_PATHS 10

/* cp_cpu_model (cpu1) and cp_cpu_grid (cpug): the whole model in one launch on a CPU, with
 * the same packed weights and layer table. */
static bool cpu_model_path(int path)
{
    return path == PATH_CPU1 || path == PATH_CPUG;
}

/* The paths that run the whole model in one launch, a work-group per row. */
static bool one_launch(int path)
{
    return path == PATH_SMALL || path == PATH_PIPE || path == PATH_REG;
}

/* Test hook kernel-bit:<path>: that path's kernel flips one bit of one output; kernel-bit:all:
 * every path's. */
static bool planted(const struct cl_state *s)
{
    char hook[32];
    snprintf(hook, sizeof hook, "kernel-bit:%s", path_names[s->path]);
    return cp_test_hook(hook) || cp_test_hook("kernel-bit:all");
}

/* own_cpu.cl's kernels, whose planted bit is CP_TEST_FLIP. */
static bool cpu_path(int path)
{
    return path == PATH_CPU || cpu_model_path(path);
}

enum cl_variant { CL_OWN, CL_CLBLAST, CL_RELAXED };

/* clCreateBuffer and clEnqueueNDRangeKernel, through which the test hooks fail-alloc:N and
 * fail-enqueue:N make the Nth call fail as a device out of resources would. */
static cl_mem create_buffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host, cl_int *rc)
{
    if (cp_test_fail("alloc")) {
        *rc = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    return clCreateBuffer(ctx, flags, size, host, rc);
}

static cl_int enqueue_kernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
                             const size_t *global, const size_t *local, cl_uint n_wait,
                             const cl_event *wait, cl_event *ev)
{
    if (cp_test_fail("enqueue"))
        return CL_OUT_OF_RESOURCES;
    return clEnqueueNDRangeKernel(q, k, dims, offset, global, local, n_wait, wait, ev);
}

/* cl_forward flushes the queue after every this many layers. */
#define CP_FLUSH_LAYERS 256

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
    if (s->wt)
        clReleaseMemObject(s->wt);
    if (s->desc)
        clReleaseMemObject(s->desc);
    if (s->ctl)
        clReleaseMemObject(s->ctl);
    free(s->str_desc);
    for (int l = 0; s->wt_layer && l < e->model->n_layers; ++l)
        if (s->wt_layer[l])
            clReleaseMemObject(s->wt_layer[l]);
    free(s->wt_layer);
    free(s->ldw);
    if (s->k_path)
        clReleaseKernel(s->k_path);
    if (s->k_path4)
        clReleaseKernel(s->k_path4);
    if (s->prog_path)
        clReleaseProgram(s->prog_path);
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

static int dev_info(cl_device_id d, cl_device_info what, size_t size, void *out, const char *name)
{
    cl_int rc = clGetDeviceInfo(d, what, size, out, NULL);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, name);
}

static size_t round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

static size_t stream_layer_size(const cp_layer *L)
{
    return (size_t)L->out * round_up((size_t)L->in, 4) + (L->has_bias ? (size_t)L->out : 0);
}

/* Floats of the stream path's buffer: every layer on a float4 boundary. */
static size_t stream_total(const cp_model *m)
{
    size_t total = 0;
    for (int l = 0; l < m->n_layers; ++l)
        total = round_up(total, 4) + stream_layer_size(&m->layers[l]);
    return total;
}

/* The stream path's tile and chunk where the tune leaves them to the width (0), as measured on
 * the H100 (2026-11-25, docs/PERFORMANCE.md: tools/gpu/variants.sh): chunks of 8192 floats
 * (32 KiB) streamed best; 16 outputs per tile at d <= 512 (few, large tiles: the chain is
 * short and fewer groups meet at each barrier), else 8 while that leaves at most two tiles per
 * compute unit, else 16. rb: the batch rounded up to a power of 2 (at most 16), while the
 * owners of the tile's outputs fit the work-group of 256. */
static void stream_shape(const cp_model *m, int batch, unsigned cus, int *no, int *kc, int *rb)
{
    if (*no == 0)
        *no = m->max_width <= 512 || (size_t)m->max_width / 8 > 2 * (size_t)cus ? 16 : 8;
    if (*kc == 0)
        *kc = 8192 / *no < 32 ? 32 : 8192 / *no > 1024 ? 1024 : 8192 / *no;
    *rb = 1;
    while (*rb < batch && 2 * *rb * *no <= 256 && *rb < 16)
        *rb *= 2;
}

static bool uniform_model(const cp_model *m, int *flags);
static bool cpu_uniform(const cp_model *m);

static int cpu_choose_path(const cp_engine *e, const cp_device *dev);
static int cpu_setup_options(const cp_engine *e, struct cl_state *s, const cp_own_tune *tune,
                             unsigned cus, char *opts, size_t len);
static int cpu_enqueue_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in,
                             cl_mem outb);
static int cpu_enqueue_model(cp_engine *e, struct cl_state *s, int batch, cl_mem *result);

/* A CPU device that runs kernels natively (PoCL): not a simulator, which reports every type. */
static bool cpu_device(const cp_device *dev)
{
    return (dev->type & CL_DEVICE_TYPE_CPU) && !dev->simulator;
}

/* Build options for grid_sync.cl's bounded waits (the stream and cpug kernels). On a CPU
 * (PoCL) the groups are the runtime's threads: a group that joined is always scheduled again,
 * but late where the cores are shared, and 2^26 polls (tens of milliseconds there) were given
 * up under ctest -j2 on 2 cores. There the bound is 2^34 polls, tens of seconds; GPUs and the
 * simulator keep grid_sync.cl's 2^26. */
static const char *spin_bound_options(const cp_device *dev)
{
    return cpu_device(dev) ? " -DCP_SPIN_T=long -DCP_SPIN=(1L<<34)" : "";
}

/* Which kernel cl:own uses: CLPARITY_OWN_KERNEL when set (tests and tuning), else on GPUs one
 * launch for the whole model where the layers are narrow and the batch is small, else a tiled
 * GEMM per layer; on CPUs the vectorised GEMM per layer. */
static bool cp_cpu_one_buffer(const cp_engine *e, const cp_device *dev);

/* Whether path p can run the engine's model on this device: CP_OK, or CP_FAIL_USAGE naming
 * what does not fit. */
static int path_fits(const cp_engine *e, const cp_device *dev, size_t max_wg, int p)
{
    const cp_model *m = e->model;
    /* the one-launch paths hold every layer in one buffer (padded to float4s), with int offsets
     * in their layer table; reg computes a uniform model's offsets in size_t instead */
    int uflags;
    bool fits =
        (size_t)m->max_width <= max_wg && m->max_width <= 1024 &&
        ((cl_ulong)m->n_params + 4 * (cl_ulong)m->n_layers) * sizeof(float) <= dev->max_alloc;
    bool small_ok = fits && m->n_params < (size_t)1 << 30;
    bool reg_ok = fits && (m->n_params < (size_t)1 << 30 || uniform_model(m, &uflags));
    bool stream_ok = (cl_ulong)stream_total(m) * sizeof(float) <= dev->max_alloc;
    if (one_launch(p) && !(p == PATH_REG ? reg_ok : small_ok))
        return cp_err_set(CP_FAIL_USAGE,
                          "CLPARITY_OWN_KERNEL=%s: a layer of width %d does not fit one "
                          "work-group of this device (%zu)",
                          path_names[p], m->max_width, max_wg);
    if ((p == PATH_TILED || p == PATH_STREAM) && max_wg < 256)
        return cp_err_set(CP_FAIL_USAGE, "CLPARITY_OWN_KERNEL=%s needs work-groups of 256",
                          path_names[p]);
    if (p == PATH_STREAM && !stream_ok)
        return cp_err_set(CP_FAIL_USAGE,
                          "CLPARITY_OWN_KERNEL=stream: the model (%zu floats with padding) does "
                          "not fit one buffer of this device",
                          stream_total(m));
    if (cpu_model_path(p) && !cp_cpu_one_buffer(e, dev))
        return cp_err_set(CP_FAIL_USAGE,
                          "CLPARITY_OWN_KERNEL=%s: the packed model does not fit one buffer of "
                          "this device with int offsets",
                          path_names[p]);
    return CP_OK;
}

/* Which kernel cl:own uses: CLPARITY_OWN_KERNEL when set (tests and tuning), else on GPUs one
 * launch for the whole model where the layers are narrow and the batch is small, else a tiled
 * GEMM per layer; on CPUs the vectorised GEMM per layer. The probe (select_probed) may then
 * take another. */
static int choose_path(cp_engine *e, const cp_device *dev, size_t max_wg, bool use_env, int *path)
{
    const cp_model *m = e->model;
    int uflags;
    bool fits =
        (size_t)m->max_width <= max_wg && m->max_width <= 1024 &&
        ((cl_ulong)m->n_params + 4 * (cl_ulong)m->n_layers) * sizeof(float) <= dev->max_alloc;
    bool reg_ok = fits && (m->n_params < (size_t)1 << 30 || uniform_model(m, &uflags));
    bool stream_ok = (cl_ulong)stream_total(m) * sizeof(float) <= dev->max_alloc;
    if (forced_path >= 0) {
        *path = forced_path;
        return path_fits(e, dev, max_wg, forced_path);
    }
    const char *force = use_env ? getenv("CLPARITY_OWN_KERNEL") : NULL;
    if (force && force[0]) {
        for (int p = 0; p < N_PATHS; ++p)
            if (strcmp(force, path_names[p]) == 0) {
                *path = p;
                return path_fits(e, dev, max_wg, p);
            }
        return cp_err_set(CP_FAIL_USAGE,
                          "CLPARITY_OWN_KERNEL: '%s' is not one of naive, small, pipe, reg, "
                          "stream, tiled, vec, cpu, cpu1, cpug",
                          force);
    }
    bool cpu = cpu_device(dev);
    /* Measured 2026-11-23 (docs/PERFORMANCE.md): on PoCL the vectorised GEMM beats the
     * one-launch kernel at every width and batch tried (5x at d=128 L=128 B=1 on 2 cores),
     * since one work-group per row leaves the other cores idle. On the H100 (2026-11-25,
     * tools/gpu/variants.sh): the one-launch reg kernel wins at d <= 128 at every batch of the
     * sweeps (several rows per work-group: d=128 L=128 B=2048 0.45 ms against the tiled GEMM's
     * 3.06), and stream from d = 256 at B = 1 (d=256 L=4096 12.7 against reg's 15.6 ms, L=128
     * the same 0.46) and at d > 256 up to B = 64 (d=512 L=128 B=1 0.43 ms against reg's 5.3
     * and tiled's 7.8; d=1024 L=16 B=64 0.33 against tiled's 1.91). reg keeps d = 256 at
     * B > 16 (not measured against stream). */
    int w = m->max_width, b = e->max_batch;
    bool reg_first = w <= 128 || (w <= 256 && b > 16);
    bool stream_wins = b <= 64 && w > 128;
    bool reg_wins = w <= 256 || (w <= 512 && b <= 64); /* where stream does not fit */
    if (reg_ok && reg_first && !cpu)
        *path = PATH_REG;
    else if (stream_ok && stream_wins && max_wg >= 256 && !cpu)
        *path = PATH_STREAM;
    else if (stream_ok && b <= 64 && max_wg >= 256 && !cpu && !reg_ok)
        *path = PATH_STREAM;
    else if (reg_ok && reg_wins && !cpu)
        *path = PATH_REG;
    else if (!cpu)
        *path = max_wg >= 256 ? PATH_TILED : PATH_NAIVE;
    else
        *path = cpu_choose_path(e, dev);
    return CP_OK;
}

/* Wt[k][o] = W[o][k] for one layer, n padded to ldw with zeros, then the bias. */
static void transpose_layer(const cp_model *m, int l, int ldw, float *dst)
{
    const cp_layer *L = &m->layers[l];
    const float *w = m->params + L->w_off;
    for (int k = 0; k < L->in; ++k)
        for (int o = 0; o < ldw; ++o)
            dst[(size_t)k * (size_t)ldw + (size_t)o] =
                o < L->out ? w[(size_t)o * (size_t)L->in + (size_t)k] : 0.0f;
    if (L->has_bias)
        memcpy(dst + (size_t)L->in * (size_t)ldw, m->params + L->b_off,
               (size_t)L->out * sizeof(float));
}

static size_t layer_t_size(const cp_layer *L, int ldw)
{
    return (size_t)L->in * (size_t)ldw + (L->has_bias ? (size_t)L->out : 0);
}

static int upload(struct cl_state *s, cl_mem *buf, const void *data, size_t bytes, const char *what)
{
    cl_int rc;
    *buf = create_buffer(s->ctx, CL_MEM_READ_ONLY, bytes ? bytes : 1, NULL, &rc);
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

/* Wb[k/4][o][k%4] = W[o][k] for one layer (cp_model_small_reg), k padded to a multiple of 4
 * with zeros, then the bias. */
static void block_layer(const cp_model *m, int l, float *dst)
{
    const cp_layer *L = &m->layers[l];
    const float *w = m->params + L->w_off;
    for (int o = 0; o < L->out; ++o)
        for (int k = 0; k < L->in; ++k)
            dst[((size_t)(k / 4) * (size_t)L->out + (size_t)o) * 4 + (size_t)(k % 4)] =
                w[(size_t)o * (size_t)L->in + (size_t)k];
    if (L->has_bias)
        memcpy(dst + round_up((size_t)L->in, 4) * (size_t)L->out, m->params + L->b_off,
               (size_t)L->out * sizeof(float));
}

static size_t layer_b_size(const cp_layer *L)
{
    return round_up((size_t)L->in, 4) * (size_t)L->out + (L->has_bias ? (size_t)L->out : 0);
}

static int layer_flags(const cp_layer *L)
{
    return (L->has_bias ? 1 : 0) | (L->act == CP_ACT_RELU ? 2 : 0) | (L->residual ? 4 : 0);
}

static void pack_layer(const cp_model *m, int l, int ldw, int nr, float *dst);

/* A layer's row length in setup_small's buffer: out, or out padded to panels of nr (nr > 0). */
static int small_ldw(const cp_layer *L, int nr)
{
    return nr ? (int)round_up((size_t)L->out, (size_t)nr) : L->out;
}

/* The one-launch paths: one buffer with every layer, transposed (Wt[k][o]), blocked for
 * cp_model_small_reg, or packed in panels of nr outputs (nr > 0, cp_cpu_model), each layer on
 * a float4 boundary, and the layer table. */
static int setup_small(cp_engine *e, struct cl_state *s, bool blocked, int nr)
{
    const cp_model *m = e->model;
    size_t total = 0;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        total =
            round_up(total, 4) + (blocked ? layer_b_size(L) : layer_t_size(L, small_ldw(L, nr)));
    }
    float *wt = calloc(total ? total : 1, sizeof *wt); /* zero padding between layers */
    int *desc = malloc((size_t)m->n_layers * 5 * sizeof *desc);
    int st = CP_OK;
    if (!wt || !desc) {
        st = cp_err_set(CP_FAIL_RUNTIME, "cl:own: out of memory for the transposed weights");
        goto out;
    }
    size_t off = 0;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        off = round_up(off, 4); /* every layer on a float4 boundary, for CP_V4 and reg */
        size_t k_rows = blocked ? round_up((size_t)L->in, 4) : (size_t)L->in;
        if (blocked)
            block_layer(m, l, wt + off);
        else if (nr)
            pack_layer(m, l, small_ldw(L, nr), nr, wt + off);
        else
            transpose_layer(m, l, L->out, wt + off);
        desc[5 * l] = L->in;
        desc[5 * l + 1] = L->out;
        desc[5 * l + 2] = layer_flags(L);
        /* past INT_MAX only a uniform model takes this path, and its kernel does not read the
         * table's offsets (reg: -DCP_UD) */
        size_t b_at = off + k_rows * (size_t)(blocked ? L->out : small_ldw(L, nr));
        desc[5 * l + 3] = off <= INT32_MAX ? (int)off : -1;
        desc[5 * l + 4] = b_at <= INT32_MAX ? (int)b_at : -1;
        off += blocked ? layer_b_size(L) : layer_t_size(L, small_ldw(L, nr));
    }
    st = upload(s, &s->wt, wt, total * sizeof *wt, "transposed weights");
    if (st == CP_OK)
        st = upload(s, &s->desc, desc, (size_t)m->n_layers * 5 * sizeof *desc, "layer table");
out:
    free(wt);
    free(desc);
    return st;
}

/* Wp[n / nr][k][n % nr] = W[n][k] for one layer (cp_gemm_vec's panels), n padded to ldw (a
 * multiple of nr) with zeros, then the bias. */
static void pack_layer(const cp_model *m, int l, int ldw, int nr, float *dst)
{
    const cp_layer *L = &m->layers[l];
    const float *w = m->params + L->w_off;
    for (int o = 0; o < ldw; ++o) {
        float *panel = dst + (size_t)(o / nr) * (size_t)L->in * (size_t)nr + (size_t)(o % nr);
        for (int k = 0; k < L->in; ++k)
            panel[(size_t)k * (size_t)nr] =
                o < L->out ? w[(size_t)o * (size_t)L->in + (size_t)k] : 0.0f;
    }
    if (L->has_bias)
        memcpy(dst + (size_t)L->in * (size_t)ldw, m->params + L->b_off,
               (size_t)L->out * sizeof(float));
}

/* PATH_VEC and PATH_TILED: one buffer per layer, n padded to a multiple of pad: packed in
 * panels of pad columns (PATH_VEC, pad = vec_w·vec_nv), or transposed (PATH_TILED, pad 4 for
 * cp_gemm_tiled4's float4 rows). */
static int setup_transposed(cp_engine *e, struct cl_state *s, int pad)
{
    const cp_model *m = e->model;
    s->wt_layer = calloc((size_t)m->n_layers, sizeof *s->wt_layer);
    s->ldw = calloc((size_t)m->n_layers, sizeof *s->ldw);
    if (!s->wt_layer || !s->ldw)
        return cp_err_set(CP_FAIL_RUNTIME, "cl:own: out of memory");
    int st = CP_OK;
    for (int l = 0; l < m->n_layers && st == CP_OK; ++l) {
        const cp_layer *L = &m->layers[l];
        s->ldw[l] = (int)round_up((size_t)L->out, (size_t)pad);
        size_t n = layer_t_size(L, s->ldw[l]);
        float *wt = malloc((n ? n : 1) * sizeof *wt);
        if (!wt)
            return cp_err_set(CP_FAIL_RUNTIME, "cl:own: out of memory for layer %d", l);
        if (s->path == PATH_VEC || s->path == PATH_CPU)
            pack_layer(m, l, s->ldw[l], pad, wt);
        else
            transpose_layer(m, l, s->ldw[l], wt);
        st = upload(s, &s->wt_layer[l], wt, n * sizeof *wt, "transposed layer");
        free(wt);
    }
    return st;
}

/* The counters of the stream kernel's device-wide barrier. */
static int create_ctl(struct cl_state *s)
{
    cl_int rc;
    s->ctl = create_buffer(s->ctx, CL_MEM_READ_WRITE, 4 * sizeof(cl_int), NULL, &rc);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clCreateBuffer(barrier counters)");
}

/* Zeroes the counters before a launch that uses them: a write from static zeros (which outlive
 * the non-blocking write); Oclgrind's uninitialised-value check does not count a fill. */
static int clear_ctl(struct cl_state *s)
{
    static const cl_int zeros[4] = {0, 0, 0, 0};
    cl_int rc = clEnqueueWriteBuffer(s->q, s->ctl, CL_FALSE, 0, sizeof zeros, zeros, 0, NULL, NULL);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueWriteBuffer(barrier counters)");
}

/* The stream path (own_stream.cl): every layer's W[o][k] as stored, rows padded to a multiple
 * of 4 with zeros, the bias after them, each layer on a float4 boundary; the layer table (5
 * longs per layer: in, out, flags, offsets of W and bias), and for the one-launch form the
 * barrier's counters. */
static int setup_stream(cp_engine *e, struct cl_state *s)
{
    const cp_model *m = e->model;
    size_t total = stream_total(m);
    float *w = calloc(total ? total : 1, sizeof *w);
    s->str_desc = malloc((size_t)m->n_layers * 5 * sizeof *s->str_desc);
    int st = CP_OK;
    if (!w || !s->str_desc) {
        st = cp_err_set(CP_FAIL_RUNTIME, "cl:own: out of memory for the stream layout");
        goto out;
    }
    size_t off = 0;
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        size_t ldk = round_up((size_t)L->in, 4);
        off = round_up(off, 4);
        for (int o = 0; o < L->out; ++o)
            memcpy(w + off + (size_t)o * ldk, m->params + L->w_off + (size_t)o * (size_t)L->in,
                   (size_t)L->in * sizeof(float));
        if (L->has_bias)
            memcpy(w + off + (size_t)L->out * ldk, m->params + L->b_off,
                   (size_t)L->out * sizeof(float));
        long long *d = s->str_desc + 5 * (size_t)l;
        d[0] = L->in;
        d[1] = L->out;
        d[2] = layer_flags(L);
        d[3] = (long long)off;
        d[4] = (long long)(off + (size_t)L->out * ldk);
        off += stream_layer_size(L);
    }
    st = upload(s, &s->wt, w, total * sizeof *w, "stream weights");
    if (st == CP_OK)
        st = upload(s, &s->desc, s->str_desc, (size_t)m->n_layers * 5 * sizeof *s->str_desc,
                    "layer table");
    if (st == CP_OK && s->str_sp)
        st = create_ctl(s);
out:
    free(w);
    return st;
}

/* Whether every layer is d x d with the same flags (the reference model): cp_model_small_reg
 * then takes the layer table as constants, and computes the offsets in size_t. */
static bool uniform_model(const cp_model *m, int *flags)
{
    if (m->n_layers < 1)
        return false;
    const cp_layer *L0 = &m->layers[0];
    *flags = layer_flags(L0);
    for (int l = 0; l < m->n_layers; ++l) {
        const cp_layer *L = &m->layers[l];
        if (L->in != L0->in || L->out != L0->in || layer_flags(L) != *flags)
            return false;
    }
    return true;
}

/* Where the first choice fails its probe, the next path after it in its device's list that
 * fits and passes is taken: on CPUs from the one-launch kernels to the per-layer GEMMs, elsewhere
 * from the one-launch kernels to the tiled GEMM; the naive kernel (block.cl, the reference form)
 * last. */
static const int cpu_fallback[] = {PATH_CPUG, PATH_CPU1, PATH_CPU, PATH_VEC, PATH_NAIVE};
static const int gpu_fallback[] = {PATH_REG, PATH_STREAM, PATH_TILED, PATH_NAIVE};

/* Probes *path (cp_own_probe) and, where it fails, the fallbacks in turn; takes the first that
 * passes and records in e->paths which were rejected and why. Where none passes, the first
 * choice stays and the result is marked not exact (e->paths.exact = 0). */
static int select_probed(cp_engine *e, const cp_device *dev, size_t max_wg, int *path)
{
    double t0 = cp_now();
    /* where the first choice was forced (CLPARITY_OWN_KERNEL), the device's own choice comes
     * next */
    int dflt;
    int st = choose_path(e, dev, max_wg, false, &dflt);
    if (st != CP_OK)
        return st;
    cp_path_report *r = &e->paths;
    const cp_model *m = e->model;
    int flags;
    struct cp_probe_class cls = {m->max_width > 128, e->max_batch > 16, cpu_uniform(m),
                                 uniform_model(m, &flags) ? flags : -1};
    bool cpu = cpu_device(dev);
    const int *fb = cpu ? cpu_fallback : gpu_fallback;
    size_t n_fb = cpu ? sizeof cpu_fallback / sizeof *fb : sizeof gpu_fallback / sizeof *fb;
    /* the first choice, the device's own choice, then the paths after that in the list (all of
     * them where it is not in the list) */
    int order[N_PATHS + 2], n = 0;
    order[n++] = *path;
    if (dflt != *path)
        order[n++] = dflt;
    size_t from = 0;
    for (size_t i = 0; i < n_fb; ++i)
        if (fb[i] == dflt)
            from = i + 1;
    for (size_t i = from; i < n_fb; ++i)
        if (fb[i] != *path)
            order[n++] = fb[i];
    /* A device that stops a work-item's loops early (Mesa llvmpipe) keeps only the naive
     * kernel, whose work-item loops over one layer's inputs: the others loop over whole rows,
     * panels or layers in one work-item, past any such budget at some size that a small probe
     * does not reach. */
    long ran;
    st = cp_own_loop_check(dev, &ran);
    if (st != CP_OK)
        return st;
    int max_in = 0;
    for (int l = 0; l < m->n_layers; ++l)
        max_in = m->layers[l].in > max_in ? m->layers[l].in : max_in;
    r->exact = 0;
    r->n_rejected = 0;
    for (int i = 0; i < n; ++i) {
        int p = order[i];
        if (i > 0 && path_fits(e, dev, max_wg, p) != CP_OK)
            continue; /* the first choice fits: choose_path checked it */
        enum cp_probe_verdict v = CP_PROBE_FAIL;
        char why[CP_PROBE_WHY];
        if (ran < CP_LOOP_CHECK_N && (p != PATH_NAIVE || max_in >= ran))
            snprintf(why, sizeof why,
                     "the device stops a work-item's loops after %ld iterations in all (as Mesa "
                     "llvmpipe does; tests/vendor/loop_limit.cl): %s",
                     ran,
                     p == PATH_NAIVE ? "a layer has that many inputs"
                                     : "only naive stays under that at every size");
        else
            st = cp_own_probe(dev, p, path_names[p], cls, &v, why, sizeof why);
        if (st != CP_OK)
            return st;
        if (v == CP_PROBE_PASS) {
            *path = p;
            r->exact = 1;
            break;
        }
        if (v == CP_PROBE_FAIL && r->n_rejected < CP_PATHS_MAX) {
            snprintf(r->rejected[r->n_rejected].path, CP_PATH_NAME, "%s", path_names[p]);
            snprintf(r->rejected[r->n_rejected].why, CP_PROBE_WHY, "%s", why);
            ++r->n_rejected;
        }
    }
    if (!r->exact)
        *path = order[0];
    snprintf(r->used, sizeof r->used, "%s", path_names[*path]);
    r->probe_s = cp_now() - t0;
    return CP_OK;
}

static int setup_own_path(cp_engine *e, struct cl_state *s, const cp_device *dev)
{
    const cp_model *m = e->model;
    size_t max_wg;
    cl_ulong local_mem;
    cl_uint pref_vec;
    int st = dev_info(dev->device_id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg,
                      "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
    if (st == CP_OK)
        st = dev_info(dev->device_id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem,
                      "clGetDeviceInfo(CL_DEVICE_LOCAL_MEM_SIZE)");
    if (st == CP_OK)
        st = dev_info(dev->device_id, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof pref_vec,
                      &pref_vec, "clGetDeviceInfo(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT)");
    if (st == CP_OK)
        st = choose_path(e, dev, max_wg, true, &s->path);
    if (st == CP_OK && !s->probing)
        st = select_probed(e, dev, max_wg, &s->path);
    else if (st == CP_OK)
        snprintf(e->paths.used, sizeof e->paths.used, "%s", path_names[s->path]);
    if (st != CP_OK || s->path == PATH_NAIVE)
        return st;
    cp_own_tune tuned;
    enum cp_tune_source tsrc;
    st = cp_tune_get(dev, pref_vec, &tuned, &tsrc);
    if (st != CP_OK)
        return st;
    const cp_own_tune *tune = &tuned;

    char opts[320];
    const char *file = "own_gemm.cl", *kname = NULL;
    if (s->path == PATH_REG) {
        size_t w = (size_t)m->max_width;
        s->small_ls = round_up(w, 32) <= max_wg ? round_up(w, 32) : w;
        /* Rows per work-group: up to the tuned number, while every compute unit keeps a
         * work-group and the 2 x rr rows of activations fit the local memory. */
        size_t row_bytes = 2 * round_up(w, 4) * sizeof(float);
        s->reg_rr = 1;
        while (2 * s->reg_rr <= tune->reg_rr &&
               (size_t)e->max_batch / (size_t)(2 * s->reg_rr) >= dev->compute_units &&
               (cl_ulong)(2 * s->reg_rr) * row_bytes <= (local_mem < 49152 ? local_mem : 49152))
            s->reg_rr *= 2;
        /* Where a whole row of every layer fits a work-item's registers (128 floats), rg groups
         * of work-items take the layers in turn (cp_model_small_rot), up to B = 256. Measured
         * on the H100 (2026-11-25, tools/gpu/variants.sh round 5, rg=1 / 2 / 3 ms): d=128
         * L=3840 B=1 6.44 / 2.19 / 2.14, L=128 B=1 0.155 / 0.097 / 0.162, B=64 0.157 / 0.100
         * / 0.098, B=256 0.186 / 0.174 / 0.175, but B=2048 0.446 / 0.536 / 0.499. */
        s->reg_ng = w <= 128 && e->max_batch <= 256 && s->small_ls * (size_t)tune->reg_rg <= max_wg
                        ? tune->reg_rg
                        : 1;
        /* rot's chain runs over the whole row: its "chunk" is the padded width */
        int rc = s->reg_ng > 1 ? (int)round_up(w, 4) : tune->reg_rc;
        int n = snprintf(opts, sizeof opts,
                         "-cl-std=CL1.2 -DCP_NO_TILES -DCP_LS=%zu -DCP_MAXW=%zu -DCP_RC=%d "
                         "-DCP_RD=%d -DCP_RR=%d",
                         s->small_ls, w, rc, tune->reg_rd, s->reg_rr);
        if (s->reg_ng > 1)
            n += snprintf(opts + n, sizeof opts - (size_t)n, " -DCP_NG=%d", s->reg_ng);
        int flags;
        if (uniform_model(m, &flags))
            snprintf(opts + n, sizeof opts - (size_t)n, " -DCP_UD=%d -DCP_UFLAGS=%d -DCP_US=%zu",
                     m->layers[0].in, flags, round_up(layer_b_size(&m->layers[0]), 4));
        file = "own_small.cl";
        kname = s->reg_ng > 1 ? "cp_model_small_rot" : "cp_model_small_reg";
    } else if (s->path == PATH_STREAM) {
        /* Tiles of no outputs × rb rows (rb: the batch rounded up to a power of 2, while the
         * owners fit the work-group); the chunk shrinks until both tiles fit local memory. */
        int no = tune->str_no, kc = tune->str_kc, rb = 1;
        stream_shape(m, e->max_batch, dev->compute_units, &no, &kc, &rb);
        s->str_sg = tune->str_sg ? tune->str_sg
                    : (size_t)(m->max_width + no - 1) / (size_t)no *
                                (size_t)((e->max_batch + rb - 1) / rb) >
                            dev->compute_units
                        ? 2
                        : 1;
        while ((cl_ulong)(no + rb) * (cl_ulong)(kc + 4) * sizeof(float) + 64 > local_mem && kc > 32)
            kc /= 2;
        s->str_no = no;
        s->str_rb = rb;
        s->str_sp = tune->str_sp;
        s->cus = dev->compute_units;
        snprintf(opts, sizeof opts,
                 "-cl-std=CL1.2 -DCP_LS=256 -DCP_NO=%d -DCP_RB=%d -DCP_KC=%d%s%s", no, rb, kc,
                 s->str_sp ? " -DCP_PERSIST" : "", s->str_sp ? spin_bound_options(dev) : "");
        file = "own_stream.cl";
        kname = "cp_stream";
    } else if (s->path == PATH_SMALL || s->path == PATH_PIPE) {
        size_t w = (size_t)m->max_width;
        /* The pipelined kernel gets more work-items than outputs: they share the loads of
         * the weight tiles, and more of them keep more loads in flight. */
        s->small_ls = s->path == PATH_SMALL ? round_up(w, 8) : (max_wg < 1024 ? max_wg : 1024);
        if (s->small_ls > max_wg || s->small_ls < w)
            s->small_ls = round_up(w, 8) <= max_wg ? round_up(w, 8) : w;
        size_t budget = (local_mem < 49152 ? (size_t)local_mem : 49152) / sizeof(float);
        size_t kt = budget > 2 * w + 64 ? (budget - 2 * w - 64) / w : 1;
        if (kt > 256)
            kt = 256;
        if (kt > 4)
            kt &= ~(size_t)3;
        bool v4 = w % 4 == 0; /* every width a multiple of 4: float4 weight tiles */
        for (int l = 0; l < m->n_layers; ++l)
            v4 = v4 && m->layers[l].out % 4 == 0;
        snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DCP_LS=%zu -DCP_MAXW=%zu -DCP_KT=%zu%s",
                 s->small_ls, w, kt, v4 && s->path == PATH_PIPE ? " -DCP_V4" : "");
        file = "own_small.cl";
        kname = s->path == PATH_SMALL ? "cp_model_small" : "cp_model_small_pipe";
    } else if (s->path == PATH_TILED) {
        /* The two tiles, (bk rows of 128 + xp floats for x, of 128 for W) times db, must fit
         * the local memory: give up double buffering, then the padding, then depth. */
        s->tile_bk = tune->tiled_bk;
        s->tile_xp = tune->tiled_xp;
        s->tile_db = tune->tiled_db ? 2 : 1;
        while ((cl_ulong)(s->tile_bk * s->tile_db) * (256 + (cl_ulong)s->tile_xp) * sizeof(float) >
                   local_mem &&
               (s->tile_db > 1 || s->tile_xp > 0 || s->tile_bk > 16)) {
            if (s->tile_db > 1)
                s->tile_db = 1;
            else if (s->tile_xp > 0)
                s->tile_xp = 0;
            else
                s->tile_bk = 16;
        }
        snprintf(opts, sizeof opts,
                 "-cl-std=CL1.2 -DCP_BM=128 -DCP_BN=128 -DCP_BK=16 "
                 "-DCP_TM=8 -DCP_TN=8 -DCP_BK4=%d -DCP_DB=%d -DCP_XL=%d -DCP_XP=%d -DCP_PF=%d",
                 s->tile_bk, s->tile_db == 2, tune->tiled_xl, s->tile_xp, tune->tiled_pf);
        kname = "cp_gemm_tiled";
    } else if (s->path == PATH_CPU || cpu_model_path(s->path)) {
        st = cpu_setup_options(e, s, tune, dev->compute_units, opts, sizeof opts);
        if (st != CP_OK)
            return st;
        if (s->path == PATH_CPUG) { /* a group per compute unit: PoCL runs one per core */
            snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " -DCP_GRID%s",
                     spin_bound_options(dev));
        }
        file = "own_cpu.cl";
        kname = s->path == PATH_CPU    ? "cp_cpu_layer"
                : s->path == PATH_CPU1 ? "cp_cpu_model"
                                       : "cp_cpu_grid";
    } else {
        s->vec_w = tune->vec_w;
        s->vec_rb = tune->vec_rb;
        s->vec_nv = tune->vec_nv;
        s->vec_mc = tune->vec_mc;
        s->cus = dev->compute_units;
        snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DCP_VW=%d -DCP_RB=%d -DCP_NV=%d", s->vec_w,
                 s->vec_rb, s->vec_nv);
        kname = "cp_gemm_vec";
    }
    /* Test hooks: kernel-bit:<path> plants one flipped bit of one output in that path's
     * kernel, the probe's build included (the probe must reject it); kernel-bit does so in the
     * reg and stream kernels after the probe (the comparison must see it). */
    if (planted(s) || (!s->probing && cp_test_hook("kernel-bit") &&
                       (s->path == PATH_REG || s->path == PATH_STREAM)))
        snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " %s",
                 cpu_path(s->path) ? "-DCP_TEST_FLIP" : "-DCP_PLANT_BIT");
    st = cp_program_build_ex(s->ctx, dev->device_id, file, opts, &s->prog_path, &e->build_cache);
    if (st != CP_OK)
        return st;
    cl_int rc;
    s->k_path = clCreateKernel(s->prog_path, kname, &rc);
    s->k_name = kname;
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(%s) failed: %s (%d)", kname,
                          cp_cl_error_name(rc), rc);
    if (s->path == PATH_TILED) {
        s->k_path4 = clCreateKernel(s->prog_path, "cp_gemm_tiled4", &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateKernel(cp_gemm_tiled4)");
    }
    static const char *const tune_src[] = {"default", "tuned", "CLPARITY_OWN_TUNE"};
    snprintf(e->build_options, sizeof e->build_options, "%s [%s, %s: %s]", "-cl-std=CL1.2",
             path_names[s->path], tune_src[tsrc], opts);
    return CP_OK;
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

/* cl:relaxed runs the naive kernel with fast math: its probe holds it to a bound instead of
 * bits (cp_relaxed_probe). Passed: paths.exact stays -1 (never promised); failed: 0, with the
 * reason, and no other path to take. */
static int relaxed_probed(cp_engine *e, const cp_device *dev)
{
    const cp_model *m = e->model;
    int flags;
    struct cp_probe_class cls = {m->max_width > 128, e->max_batch > 16, cpu_uniform(m),
                                 uniform_model(m, &flags) ? flags : -1};
    cp_path_report *r = &e->paths;
    double t0 = cp_now();
    enum cp_probe_verdict v;
    char why[CP_PROBE_WHY];
    int st = cp_relaxed_probe(dev, cls, &v, why, sizeof why);
    if (st != CP_OK)
        return st;
    snprintf(r->used, sizeof r->used, "%s", path_names[PATH_NAIVE]);
    if (v == CP_PROBE_FAIL) {
        r->exact = 0;
        r->n_rejected = 1;
        snprintf(r->rejected[0].path, CP_PATH_NAME, "%s", path_names[PATH_NAIVE]);
        snprintf(r->rejected[0].why, CP_PROBE_WHY, "%s", why);
    }
    r->probe_s = cp_now() - t0;
    return CP_OK;
}

static int cl_create_common(cp_engine *e, const cp_device *dev, enum cl_variant variant)
{
    const cp_model *m = e->model;
    struct cl_state *s = calloc(1, sizeof *s);
    if (!s)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", e->info->name);
    e->state = s;
    s->clblast = variant == CL_CLBLAST;
    s->probing = forced_path >= 0;
    cl_int rc;
    int st = cp_cl_open(dev, CL_QUEUE_PROFILING_ENABLE, &s->ctx, &s->q);
    if (st != CP_OK)
        return st;

    snprintf(e->build_options, sizeof e->build_options, "%s",
             variant == CL_RELAXED
                 ? "-cl-std=CL1.2 -DCP_RELAXED -cl-fast-relaxed-math -cl-mad-enable"
                 : "-cl-std=CL1.2");
    double t0 = cp_now();
    if (variant == CL_OWN) {
        st = setup_own_path(e, s, dev);
        if (st != CP_OK)
            return st;
    }
    if (variant == CL_RELAXED && !s->probing) {
        st = relaxed_probed(e, dev);
        if (st != CP_OK)
            return st;
    }
    /* block.cl serves the naive path, cl:relaxed and CLBlast's epilogue; cl:own's other
     * paths are one program each, so a build (and a cache entry) per engine. */
    if (s->path == PATH_NAIVE) {
        if (variant == CL_OWN) {
            snprintf(e->build_options, sizeof e->build_options, "-cl-std=CL1.2%s",
                     planted(s) ? " -DCP_PLANT_BIT" : "");
        } else if (variant == CL_RELAXED && cp_test_hook("relaxed-wrong")) {
            /* test hook relaxed-wrong: one output off by half its value, probe included */
            snprintf(e->build_options + strlen(e->build_options),
                     sizeof e->build_options - strlen(e->build_options),
                     " -DCP_PLANT_BIT -DCP_PLANT_MASK=0x400000u");
        }
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

    st = plan_chunks(e, s, dev->max_alloc);
    if (st != CP_OK)
        return st;
    t0 = cp_now();
    for (size_t c = 0; c < s->n_chunks; ++c) {
        size_t n = chunk_end(e, s, c) - s->chunk_start[c];
        s->chunks[c] =
            create_buffer(s->ctx, CL_MEM_READ_ONLY, (n ? n : 1) * sizeof(float), NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(weights)");
    }
    /* The weights as stored: read by the naive and tiled kernels and by CLBlast; for the
     * others only by the round trip (compare), which writes them first. */
    if (!one_launch(s->path) && s->path != PATH_VEC && s->path != PATH_CPU &&
        !cpu_model_path(s->path) && s->path != PATH_STREAM) {
        st = write_chunks(e, s);
        if (st != CP_OK)
            return st;
    }
    if (one_launch(s->path))
        st = setup_small(e, s, s->path == PATH_REG, 0);
    else if (s->path == PATH_STREAM)
        st = setup_stream(e, s);
    else if (s->path == PATH_VEC || s->path == PATH_CPU)
        st = setup_transposed(e, s, s->vec_w * s->vec_nv);
    else if (cpu_model_path(s->path)) {
        st = setup_small(e, s, false, s->vec_w * s->vec_nv);
        if (st == CP_OK && s->path == PATH_CPUG)
            st = create_ctl(s);
    } else if (s->path == PATH_TILED)
        st = setup_transposed(e, s, 4);
    if (st != CP_OK)
        return st;
    e->upload_s = cp_now() - t0;

    size_t act = (size_t)e->max_batch * (size_t)m->max_width * sizeof(float);
    for (int i = 0; i < 2; ++i) {
        s->act[i] = create_buffer(s->ctx, CL_MEM_READ_WRITE, act, NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(activations)");
    }
    if (s->clblast) {
        s->tmp = create_buffer(s->ctx, CL_MEM_READ_WRITE, act, NULL, &rc);
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

size_t cp_own_path_count(void)
{
    return N_PATHS;
}

const char *cp_own_path_name(size_t i)
{
    return i < N_PATHS ? path_names[i] : NULL;
}

int cp_own_probe_path(const cp_device *dev, size_t i, bool run, int *verdict, char *why, size_t len)
{
    if (dev->kind != CP_DEV_OPENCL || i >= N_PATHS)
        return cp_err_set(CP_FAIL_USAGE, "cl:own's paths are probed on OpenCL devices only");
    /* the reference model's class: 128 wide at most, batch 16 at most, square, ReLU and
     * residual (flags 6) */
    struct cp_probe_class cls = {false, false, true, 6};
    enum cp_probe_verdict v;
    int st = CP_OK;
    if (!cp_own_probe_kept(dev, (int)i, path_names[i], cls, &v, why, len)) {
        if (!run) {
            *verdict = -1;
            snprintf(why, len, "not probed yet");
            return CP_OK;
        }
        st = cp_own_probe(dev, (int)i, path_names[i], cls, &v, why, len);
    }
    if (st == CP_OK)
        *verdict = v == CP_PROBE_PASS ? 1 : v == CP_PROBE_FAIL ? 0 : -2;
    return st;
}

int cp_cl_create_probing(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                         int path, cp_engine **out)
{
    forced_path = path;
    int st = cp_engine_create(cp_engine_find(engine), dev, m, batch, out);
    forced_path = -1;
    return st;
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

/* The stream kernel over layers [l0, l1): a work-group per tile of layer l0 (a launch per
 * layer), or, with str_sp, every layer in one launch of str_sg work-groups per compute unit
 * that meet at a device-wide barrier (its counters zeroed first). */
static int enqueue_stream(struct cl_state *s, int l0, int l1, int batch)
{
    cl_mem ctl = s->ctl;
    cl_int a = l0, b = l1, nb = batch, max_tiles = 0;
    for (int l = l0; l < l1; ++l) {
        const long long *d = s->str_desc + 5 * (size_t)l;
        long long t = (d[1] + s->str_no - 1) / s->str_no * ((batch + s->str_rb - 1) / s->str_rb);
        if (t > max_tiles)
            max_tiles = t > INT32_MAX ? INT32_MAX : (cl_int)t;
    }
    const size_t sizes[] = {sizeof s->act[0], sizeof s->act[1], sizeof s->wt,
                            sizeof s->desc,   sizeof ctl,       sizeof a,
                            sizeof b,         sizeof nb,        sizeof max_tiles};
    const void *const vals[] = {&s->act[0], &s->act[1], &s->wt, &s->desc,  &ctl,
                                &a,         &b,         &nb,    &max_tiles};
    int st = set_args(s->k_path, "cp_stream", 9, sizes, vals);
    if (st != CP_OK)
        return st;
    size_t groups;
    cl_int rc;
    if (s->str_sp) {
        st = clear_ctl(s);
        if (st != CP_OK)
            return st;
        groups = (size_t)s->cus * (size_t)s->str_sg;
    } else {
        groups = (size_t)max_tiles;
    }
    size_t local = 256, global = 256 * groups;
    rc = enqueue_kernel(s->q, s->k_path, 1, NULL, &global, &local, 0, NULL, &s->events[l0]);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_stream)");
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
    cl_int flags = layer_flags(L);
    cl_int m_rows = batch;
    if (s->path == PATH_STREAM)
        return enqueue_stream(s, l, l + 1, batch);
    if (s->path == PATH_CPU)
        return cpu_enqueue_layer(e, s, l, batch, in, outb);
    if (s->path == PATH_TILED) {
        cl_kernel k = s->k_path;
        if (L->in % 4 == 0) {
            /* cp_gemm_tiled4 reads the layer's transposed weights, the bias after them. */
            k = s->k_path4;
            cl_mem wt = s->wt_layer[l];
            cl_int ldw = s->ldw[l];
            cl_ulong bt_off = (cl_ulong)L->in * (cl_ulong)ldw;
            const size_t sizes[] = {sizeof in,    sizeof outb,   sizeof wt,
                                    sizeof ldw,   sizeof bt_off, sizeof m_rows,
                                    sizeof out_w, sizeof in_w,   sizeof flags};
            const void *const vals[] = {&in,     &outb,  &wt,   &ldw,  &bt_off,
                                        &m_rows, &out_w, &in_w, &flags};
            st = set_args(k, "cp_gemm_tiled4", 9, sizes, vals);
        } else {
            const size_t sizes[] = {sizeof in,    sizeof outb,  sizeof w,
                                    sizeof w_off, sizeof b_off, sizeof m_rows,
                                    sizeof out_w, sizeof in_w,  sizeof flags};
            const void *const vals[] = {&in,     &outb,  &w,    &w_off, &b_off,
                                        &m_rows, &out_w, &in_w, &flags};
            st = set_args(k, "cp_gemm_tiled", 9, sizes, vals);
        }
        if (st != CP_OK)
            return st;
        /* The two local tiles: tile_bk rows of 128 floats (x's padded by tile_xp; twice,
         * double-buffered), or 16 rows of 132 (padded) in the scalar kernel. */
        size_t rows = (size_t)(s->tile_bk * s->tile_db);
        size_t tiles[2] = {rows * (128 + (size_t)s->tile_xp) * sizeof(float),
                           rows * 128 * sizeof(float)};
        if (L->in % 4 != 0)
            tiles[0] = tiles[1] = 16 * 132 * sizeof(float);
        for (cl_uint a = 9; a < 11; ++a) {
            rc = clSetKernelArg(k, a, tiles[a - 9], NULL);
            if (rc != CL_SUCCESS)
                return cp_err_cl(rc, "clSetKernelArg(cp_gemm_tiled, local tile)");
        }
        size_t local[2] = {16, 16};
        size_t grid[2] = {round_up((size_t)L->out, 128) / 8, round_up((size_t)batch, 128) / 8};
        rc = enqueue_kernel(s->q, k, 2, NULL, grid, local, 0, NULL, &s->events[l]);
        return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_gemm_tiled)");
    }
    if (s->path == PATH_VEC) {
        cl_mem wt = s->wt_layer[l];
        cl_ulong wt_off = 0, bt_off = (cl_ulong)L->in * (cl_ulong)s->ldw[l];
        cl_int ldw = s->ldw[l];
        /* Rows per work-item: the tuned number (a multiple of the register tile), no more than
         * the batch needs, and fewer where that leaves under 4 work-items per compute unit. */
        size_t panels = (size_t)ldw / (size_t)(s->vec_w * s->vec_nv), rb = (size_t)s->vec_rb;
        size_t mc = round_up((size_t)s->vec_mc, rb);
        if (mc > round_up((size_t)batch, rb))
            mc = round_up((size_t)batch, rb);
        while (mc > rb && panels * (((size_t)batch + mc - 1) / mc) < 4 * (size_t)s->cus)
            mc = round_up(mc / 2, rb);
        cl_int mc_i = (cl_int)mc;
        const size_t sizes[] = {sizeof in,     sizeof outb, sizeof wt,     sizeof wt,
                                sizeof wt_off, sizeof ldw,  sizeof bt_off, sizeof m_rows,
                                sizeof out_w,  sizeof in_w, sizeof flags,  sizeof mc_i};
        /* The bias sits after the packed weights in the same buffer: p is that buffer. */
        const void *const vals[] = {&in,     &outb,   &wt,    &wt,   &wt_off, &ldw,
                                    &bt_off, &m_rows, &out_w, &in_w, &flags,  &mc_i};
        st = set_args(s->k_path, "cp_gemm_vec", 12, sizes, vals);
        if (st != CP_OK)
            return st;
        /* Work-groups of one work-item: as many groups as work-items for the cores to share
         * (PoCL's own choice could make fewer groups than cores). */
        size_t grid[2] = {panels, ((size_t)batch + mc - 1) / mc}, one[2] = {1, 1};
        rc = enqueue_kernel(s->q, s->k_path, 2, NULL, grid, one, 0, NULL, &s->events[l]);
        return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_gemm_vec)");
    }
    if (!s->clblast) {
        const size_t sizes[] = {sizeof in,   sizeof outb,    sizeof w,        sizeof w_off,
                                sizeof in_w, sizeof out_w,   sizeof has_bias, sizeof b_off,
                                sizeof act,  sizeof residual};
        const void *const vals[] = {&in,    &outb,     &w,     &w_off, &in_w,
                                    &out_w, &has_bias, &b_off, &act,   &residual};
        st = set_args(s->k_linear, "cp_linear", 10, sizes, vals);
        if (st != CP_OK)
            return st;
        rc = enqueue_kernel(s->q, s->k_linear, 2, NULL, global, NULL, 0, NULL, &s->events[l]);
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
    rc = enqueue_kernel(s->q, s->k_epilogue, 2, NULL, global, NULL, 0, NULL, NULL);
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
    cl_mem result = s->act[m->n_layers % 2];
    bool persistent = s->path == PATH_STREAM && s->str_sp;
    if (persistent) {
        int st = enqueue_stream(s, 0, m->n_layers, batch);
        if (st != CP_OK) {
            clFinish(s->q);
            return st;
        }
    }
    if (one_launch(s->path)) {
        /* The whole model in one launch, a work-group per row (reg: per reg_rr rows). */
        cl_int n_layers = m->n_layers, in0 = m->in_width, out_last = m->out_width, nb = batch;
        const size_t sizes[] = {sizeof s->act[0], sizeof s->act[1], sizeof s->wt,    sizeof s->desc,
                                sizeof n_layers,  sizeof in0,       sizeof out_last, sizeof nb};
        const void *const vals[] = {&s->act[0], &s->act[1], &s->wt,    &s->desc,
                                    &n_layers,  &in0,       &out_last, &nb};
        int st = set_args(s->k_path, path_names[s->path], s->path == PATH_REG ? 8 : 7, sizes, vals);
        if (st != CP_OK)
            return st;
        size_t groups = s->path == PATH_REG
                            ? ((size_t)batch + (size_t)s->reg_rr - 1) / (size_t)s->reg_rr
                            : (size_t)batch;
        size_t local = s->small_ls * (s->path == PATH_REG ? (size_t)s->reg_ng : 1);
        size_t global = local * groups;
        rc = enqueue_kernel(s->q, s->k_path, 1, NULL, &global, &local, 0, NULL, &s->events[0]);
        if (rc != CL_SUCCESS)
            return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueNDRangeKernel(%s) failed: %s (%d)",
                              s->k_name, cp_cl_error_name(rc), rc);
        result = s->act[1];
    }
    if (cpu_model_path(s->path)) {
        int st = cpu_enqueue_model(e, s, batch, &result);
        if (st != CP_OK)
            return st;
    }
    for (int l = 0;
         l < m->n_layers && !one_launch(s->path) && !cpu_model_path(s->path) && !persistent; ++l) {
        int st = enqueue_layer(e, s, l, batch, s->act[l % 2], s->act[(l + 1) % 2]);
        if (st != CP_OK) {
            clFinish(s->q);
            return st;
        }
        /* Hand the queued layers to the device every CP_FLUSH_LAYERS: PoCL 3.1 slows down
         * badly when a deep model (131072 layers in sweep's params grid) piles up unflushed
         * commands, and the device starts working sooner. One synchronisation stays. */
        if ((l + 1) % CP_FLUSH_LAYERS == 0 && l + 1 < m->n_layers) {
            rc = clFlush(s->q);
            if (rc != CL_SUCCESS) {
                clFinish(s->q);
                return cp_err_cl(rc, "clFlush");
            }
        }
    }
    rc = clFinish(s->q);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clFinish");
    double t2 = cp_now();
    rc =
        clEnqueueReadBuffer(s->q, result, CL_TRUE, 0,
                            (size_t)batch * (size_t)m->out_width * sizeof(float), y, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer(output)");
    if (persistent || s->path == PATH_CPUG) {
        /* A wait given up inside the kernel (ctl[3]) leaves layers unfinished: no result. */
        cl_int ctl[4];
        rc = clEnqueueReadBuffer(s->q, s->ctl, CL_TRUE, 0, sizeof ctl, ctl, 0, NULL, NULL);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clEnqueueReadBuffer(barrier counters)");
        bool grid = s->path == PATH_CPUG;
        if (ctl[3] || ctl[1] < 1)
            return cp_err_set(CP_FAIL_RUNTIME,
                              "cl:own %s: a device-wide barrier wait was given up (%d of %zu "
                              "work-groups joined); set %s for a launch per layer",
                              path_names[s->path], ctl[1],
                              (size_t)s->cus * (size_t)(grid ? 1 : s->str_sg),
                              grid ? "CLPARITY_OWN_KERNEL=cpu" : "CLPARITY_OWN_TUNE=sp=0");
    }
    t->h2d_s = t1 - t0;
    t->wall_s = t2 - t1;
    t->d2h_s = cp_now() - t2;
    if (s->clblast)
        return CP_OK; /* CLBlast hides its kernels' events: kernel time stays n/a */
    double ksum = 0.0;
    for (int l = 0; l < m->n_layers; ++l) {
        if (!s->events[l])
            continue; /* the one-launch path has one event */
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
        copy = create_buffer(s->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
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

/* ---- cl:own's CPU paths (own_cpu.cl) -------------------------------------------------
 * For small batches on PoCL: cp_cpu_layer, a matrix-vector kernel per layer whose lanes are
 * adjacent outputs (cp_gemm_vec's register tile of 8 rows wastes 7 of them at B = 1), and
 * cp_cpu_model, the whole model in one launch, a work-item per row block, for narrow models
 * where PoCL's cost per launch (about 10 us on 2 cores) outweighs a layer's work. */

/* Batches up to this take cp_cpu_layer where cp_cpu_model does not apply; cp_gemm_vec's row
 * tiles beyond (2 cores, d=128 L=128 B=16: 1.0 ms for cp_gemm_vec, 1.2 for either). */
#define CPU_MAX_BATCH 16
/* Widths up to this may run the whole model in one launch (cp_cpu_model). Measured on 2 cores
 * (PoCL 3.1, L=16..128, B=1): d=128 0.30 ms against 0.91 (cp_cpu_layer) and 1.56
 * (cp_gemm_vec); d=256 0.35 against 0.36; d=512 0.62 against 0.63; d=1024 1.14 against 0.70. */
#define CPU_ONE_LAUNCH_MAX_WIDTH 512

static int cpu_rows(int batch)
{
    return batch >= 4 ? 4 : batch >= 2 ? 2 : 1;
}

/* cp_cpu_grid (one launch, every core on each layer) for small batches on devices of
 * CPU_GRID_MIN_CUS compute units or more. Measured on 16 cores (PoCL 5, 2026-11-25, ms, cpug
 * against the best of the others): d=128 L=128 B=1 0.39 / 0.62 (cpu1); d=256 0.81 / 2.36; d=512
 * 1.66 / 8.63 (cpu); d=1024 19.0 / 34.9 (vec); d=2048 L=32 6.6 / 12.6; d=128 B=4 0.49 / 1.09;
 * B=16 0.75 / 0.77; d=1024 L=16 B=4 1.72 / 1.92. On 2 cores it loses to cpu1 (d=128 L=128 B=1
 * 0.26 against 0.11 ms: one core already takes the memory bandwidth there); 3 to 15 cores are
 * not measured. */
#define CPU_GRID_MIN_CUS 4

/* cp_cpu_grid on devices of many compute units where cp_cpu_model can run the model (its
 * layer table's int offsets, one buffer); else cp_cpu_model where the model is narrow and its
 * row blocks are few enough for each core to stream the weights once or twice per forward;
 * else cp_cpu_layer for small batches. */
static bool cp_cpu_one_buffer(const cp_engine *e, const cp_device *dev)
{
    const cp_model *m = e->model;
    double packed = 0.0; /* cp_cpu_model's layer table holds int offsets */
    for (int l = 0; l < m->n_layers; ++l)
        packed += (double)round_up((size_t)m->layers[l].out, 64) * (m->layers[l].in + 1);
    return packed < 2147483647.0 && packed * sizeof(float) <= (double)dev->max_alloc;
}

static int cpu_choose_path(const cp_engine *e, const cp_device *dev)
{
    const cp_model *m = e->model;
    int blocks = (e->max_batch + cpu_rows(e->max_batch) - 1) / cpu_rows(e->max_batch);
    bool one_buffer = cp_cpu_one_buffer(e, dev);
    if (one_buffer && dev->compute_units >= CPU_GRID_MIN_CUS && e->max_batch <= CPU_MAX_BATCH)
        return PATH_CPUG;
    if (m->max_width <= CPU_ONE_LAUNCH_MAX_WIDTH && blocks <= 2 * (int)dev->compute_units &&
        one_buffer)
        return PATH_CPU1;
    return e->max_batch <= CPU_MAX_BATCH ? PATH_CPU : PATH_VEC;
}

/* cp_cpu_grid's shape: its units are panels of vec_w·nv outputs × row blocks, shared by the
 * joined groups layer by layer. The widest layer should give every compute unit gu units
 * (tune gu): 4 vectors per work-item where it then has enough panels, else 2, else 1 (fewer
 * fma chains in flight, more cores on the layer); and no more groups than that layer's units,
 * since an idle group still pays every barrier. tests/check_built.py (cpug_nv) applies the same
 * rule to the device's width and compute units for the exact/cpug16_* tests: change both. */
static void cpug_shape(const cp_engine *e, struct cl_state *s, unsigned cus, int gu)
{
    size_t blocks = ((size_t)e->max_batch + (size_t)s->cpu_rb - 1) / (size_t)s->cpu_rb, units = 0;
    for (int nv = 4; nv >= 1; nv /= 2) {
        size_t nr = (size_t)s->vec_w * (size_t)nv;
        s->vec_nv = nv;
        units = ((size_t)e->model->max_width + nr - 1) / nr * blocks;
        if (units >= (size_t)gu * cus)
            break;
    }
    s->cus = units < cus ? (unsigned)units : cus;
}

/* Vectors of the device's preferred width (tune->vec_w), 4 of them per work-item (four fma
 * chains in flight at B = 1; cpug: see cpug_shape), 2 rows per work-item from B = 2 on, 4 from
 * B = 4. */
static int cpu_setup_options(const cp_engine *e, struct cl_state *s, const cp_own_tune *tune,
                             unsigned cus, char *opts, size_t len)
{
    s->vec_w = tune->vec_w;
    s->vec_nv = 4;
    s->cpu_rb = cpu_rows(e->max_batch);
    if (s->path == PATH_CPUG)
        cpug_shape(e, s, cus, tune->cpu_gu);
    snprintf(opts, len, "-cl-std=CL1.2 -DCP_VW=%d -DCP_NV=%d -DCP_RB=%d%s", s->vec_w, s->vec_nv,
             s->cpu_rb, !s->probing && cp_test_hook("corrupt-cpu-kernel") ? " -DCP_TEST_FLIP" : "");
    return CP_OK;
}

/* One layer of cp_cpu_layer: a work-item per panel × cpu_rb rows, work-groups of one. */
static int cpu_enqueue_layer(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in,
                             cl_mem outb)
{
    const cp_layer *L = &e->model->layers[l];
    cl_mem wt = s->wt_layer[l];
    cl_ulong b_off = (cl_ulong)L->in * (cl_ulong)s->ldw[l];
    cl_int m_rows = batch, n = L->out, k = L->in, flags = layer_flags(L);
    const size_t sizes[] = {sizeof in,     sizeof outb, sizeof wt, sizeof b_off,
                            sizeof m_rows, sizeof n,    sizeof k,  sizeof flags};
    const void *const vals[] = {&in, &outb, &wt, &b_off, &m_rows, &n, &k, &flags};
    int st = set_args(s->k_path, "cp_cpu_layer", 8, sizes, vals);
    if (st != CP_OK)
        return st;
    size_t grid[2] = {(size_t)s->ldw[l] / (size_t)(s->vec_w * s->vec_nv),
                      ((size_t)batch + (size_t)s->cpu_rb - 1) / (size_t)s->cpu_rb},
           one[2] = {1, 1};
    cl_int rc = enqueue_kernel(s->q, s->k_path, 2, NULL, grid, one, 0, NULL, &s->events[l]);
    return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clEnqueueNDRangeKernel(cp_cpu_layer)");
}

/* Whether every layer is max_width wide in and out: cp_cpu_model then ping-pongs between the
 * two activation buffers with packed rows. */
static bool cpu_uniform(const cp_model *m)
{
    for (int l = 0; l < m->n_layers; ++l)
        if (m->layers[l].in != m->max_width || m->layers[l].out != m->max_width)
            return false;
    return true;
}

/* The whole model in one launch of cp_cpu_model. A model of mixed widths keeps its rows
 * max_width apart in act[1] and tmp (see the kernel) and packs the output into act[0]
 * afterwards; a uniform one ping-pongs between act[0] and act[1]. */
static int cpu_enqueue_model(cp_engine *e, struct cl_state *s, int batch, cl_mem *result)
{
    const cp_model *m = e->model;
    bool uniform = cpu_uniform(m);
    cl_int rc;
    if (!uniform && !s->tmp) {
        size_t bytes = (size_t)e->max_batch * (size_t)m->max_width * sizeof(float);
        s->tmp = create_buffer(s->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer(cp_cpu_model's activations)");
    }
    cl_mem a = s->act[1], b = uniform ? s->act[0] : s->tmp;
    cl_int n_layers = m->n_layers, m_rows = batch, ldx = m->in_width, ld = m->max_width;
    const size_t sizes[] = {sizeof s->act[0], sizeof a,        sizeof b,      sizeof s->wt,
                            sizeof s->desc,   sizeof n_layers, sizeof m_rows, sizeof ldx,
                            sizeof ld,        sizeof s->ctl};
    const void *const vals[] = {&s->act[0], &a,      &b,   &s->wt, &s->desc,
                                &n_layers,  &m_rows, &ldx, &ld,    &s->ctl};
    bool grid = s->path == PATH_CPUG;
    int st = set_args(s->k_path, s->k_name, grid ? 10 : 9, sizes, vals);
    if (st == CP_OK && grid)
        st = clear_ctl(s);
    if (st != CP_OK)
        return st;
    /* cpu1: a work-item per row block; cpug: a work-group of one per compute unit */
    size_t global = grid ? s->cus : ((size_t)batch + (size_t)s->cpu_rb - 1) / (size_t)s->cpu_rb;
    size_t one = 1;
    rc = enqueue_kernel(s->q, s->k_path, 1, NULL, &global, &one, 0, NULL, &s->events[0]);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clEnqueueNDRangeKernel(%s) failed: %s (%d)", s->k_name,
                          cp_cl_error_name(rc), rc);
    *result = n_layers % 2 ? a : b;
    if (m->out_width == m->max_width)
        return CP_OK;
    /* rows max_width apart -> packed rows of out_width, into act[0] (read by layer 0 only) */
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {(size_t)m->out_width * sizeof(float), (size_t)batch, 1};
    rc = clEnqueueCopyBufferRect(s->q, *result, s->act[0], origin, origin, region,
                                 (size_t)m->max_width * sizeof(float), 0,
                                 (size_t)m->out_width * sizeof(float), 0, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueCopyBufferRect(cp_cpu_model's output)");
    *result = s->act[0];
    return CP_OK;
}

const struct cp_engine_ops cp_engine_ops_cl_own = {cl_own_create, cl_forward, cl_destroy,
                                                   cl_roundtrip};
const struct cp_engine_ops cp_engine_ops_cl_clblast = {cl_clblast_create, cl_forward, cl_destroy,
                                                       cl_roundtrip};
const struct cp_engine_ops cp_engine_ops_cl_relaxed = {cl_relaxed_create, cl_forward, cl_destroy,
                                                       cl_roundtrip};
