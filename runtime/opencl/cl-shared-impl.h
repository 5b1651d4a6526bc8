/* Private: the OpenCL engines' state (made by engine_cl.c) and their kernel paths, one struct
 * cl_path_ops per path, with the calls they share (cl_shared.c, below engine_cl.c and the paths):
 * cl:own's and cl:relaxed's (own_small.c, own_gemm.c, own_cpu.c), listed in own_paths[] and chosen
 * by the rule table of own_path.c, and cl:cr's (cr_cl.c, which picks its kernel variant itself). A
 * new kernel is one entry there; a new vendor or size rule one row of own_rules[]. engine_cl.c
 * knows a path only through its ops (s->ops). */
#ifndef CLPARITY_CL_SHARED_IMPL_H
#define CLPARITY_CL_SHARED_IMPL_H

#include "engine-impl.h"
#include "own-impl.h"
#include "tune-impl.h"

#include <stdbool.h>
#include <stddef.h>

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
    cl_event *events; /* one per launch (n_events: a layer's launches), for the kernel time */
    size_t n_events;
    bool clblast;
    cl_mem *wt_layer; /* each layer's Wt[k][n] (tiled), or its panels Wp[n / nr][k][n % nr] (vec,
                       * cl:cr's cpu); n padded to ldw[l], then the bias (own_setup_per_layer) */
    int *ldw;
    cl_mem ctl;   /* a device-wide barrier's counters (own_ctl_new: own's stream and cpug, cr's
                   * stream) */
    bool probing; /* made by cp_cl_create_probing for a probe: no probe of its own */
    bool relaxed; /* cl:relaxed: cl:own's path built with OWN_RELAXED_OPTIONS */
    const struct cl_path_ops *ops; /* the path that runs (the naive one's for cl:clblast) */
    void *priv; /* the path's own state, behind its ops (cl:own's struct own_state, cl:cr's struct
                 * cr_cl); its release frees it */
};

/* cl:own's and cl:relaxed's path state (s->priv, made by own_path_setup, freed by own_release):
 * the faster paths (own_small.cl, own_gemm.cl, own_cpu.cl), all in cl:own's summation order. */
struct own_state {
    int path;
    cl_program prog_path;
    cl_kernel k_path;
    const char *k_name;  /* k_path's kernel, for error messages */
    cl_kernel k_path4;   /* PATH_TILED: cp_gemm_tiled4, for K a multiple of 4 */
    int tile_bk;         /* PATH_TILED: cp_gemm_tiled4's tile depth */
    int tile_db;         /* PATH_TILED: 2 when cp_gemm_tiled4 double-buffers its tiles */
    int tile_xp;         /* PATH_TILED: padding of the x tile's rows (floats) */
    cl_mem wt;           /* PATH_SMALL: every layer's Wt[k][o] and bias, in one buffer */
    cl_mem desc;         /* PATH_SMALL: 5 ints per layer */
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
};

static inline struct own_state *own_st(const struct cl_state *s)
{
    return s->priv;
}

/* The release of every cl:own path (cl_shared.c): own_state's buffers, kernels and program. */
void own_release(struct cl_state *s);

/* cl:own's kernels. The naive one (block.cl) is the reference form; the others change only
 * where operands live and which work-item holds which accumulator. The index is the path's
 * id in the probe's cache key: new paths go at the end. */
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
    PATH_CPUG,
    N_PATHS
};

/* cl:relaxed's build options, added to its path's (the kernels then use a contracted a * b + c for
 * fma), and those of its test hook relaxed-wrong, added with the path's plant define: one output
 * off by up to half its value. */
#define OWN_RELAXED_OPTIONS "-DCP_RELAXED -cl-fast-relaxed-math -cl-mad-enable"
#define OWN_RELAXED_PLANT_MASK "-DCP_PLANT_MASK=0x400000u"

/* What the device offers a path's setup. */
struct own_limits {
    size_t max_wg;      /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    cl_ulong local_mem; /* CL_DEVICE_LOCAL_MEM_SIZE */
};

typedef int (*own_layer_fn)(cp_engine *e, struct cl_state *s, int l, int batch, cl_mem in,
                            cl_mem out);

/* One kernel path of an OpenCL engine (cl:own, cl:relaxed, cl:cr). Optional operations are NULL. */
struct cl_path_ops {
    const char *name; /* CLPARITY_OWN_KERNEL's word, the report's path, the test hook's */
    const char *file; /* its kernel source (clkernels/); NULL: block.cl, built by engine_cl.c */
    /* Whether the path can run e's model on dev; where not, writes why (the whole message). */
    bool (*fits)(const cp_engine *e, const cp_device *dev, size_t max_wg, char *why, size_t len);
    /* Sets s's shape from the tune and the device, writes the build options and sets
     * s->k_name. NULL: the naive path (block.cl, no tune). */
    int (*options)(const cp_engine *e, struct cl_state *s, const cp_device *dev,
                   const struct own_limits *lim, const cp_own_tune *tune, char *opts, size_t len);
    const char *kernel2;    /* a second kernel of the program (k_path4), or NULL */
    const char *plant;      /* the define of test hook kernel-bit:<name> */
    bool plant_after_probe; /* test hook kernel-bit plants it too, after the probe */
    bool reads_chunks;      /* its kernel reads the weights as stored (s->chunks) */
    /* Uploads the path's own layout of the weights. */
    int (*upload)(cp_engine *e, struct cl_state *s);
    /* The whole forward's launches (result: the buffer that holds the output); NULL: a launch
     * of enqueue_layer per layer. */
    int (*enqueue_model)(cp_engine *e, struct cl_state *s, int batch, cl_mem *result);
    own_layer_fn enqueue_layer;
    /* After the output is read: the check of a device-wide barrier's counters. */
    int (*after_read)(cp_engine *e, struct cl_state *s);
    const char *kernel; /* its main kernel, where fixed (cl:cr's; cl:own's options set k_name) */
    /* The most loop iterations one work-item runs in a launch for a layer of `in` inputs, with
     * the path's state priv (a bound; the loop check of llvmpipe devices compares it with their
     * budget). NULL: not bounded (cl:own's, whose loop rule is own_probe.c's). */
    long (*loop_need)(const void *priv, long in);
    const cp_tunable *tune; /* its tune parameters' candidates (`clparity tune`), or NULL */
    /* Frees what the path made beyond the state's shared members (s->priv), from cl_destroy. */
    void (*release)(struct cl_state *s);
    size_t events_per_layer; /* the kernel events a layer records (0: 1) */
    bool sets_routine;       /* its setup writes e->routine (else "path <name>") */
};

/* Every path, indexed by enum own_path, and any a test build adds after them
 * (own_path_table.c); own_n_paths of them, at most OWN_PATHS_MAX. */
#define OWN_PATHS_MAX 16
extern const struct cl_path_ops *const own_paths[];
extern const size_t own_n_paths;

extern const struct cl_path_ops own_path_naive, own_path_tiled, own_path_vec; /* own_gemm.c */
extern const struct cl_path_ops own_path_small, own_path_pipe, own_path_reg,
    own_path_stream;                                                        /* own_small.c */
extern const struct cl_path_ops own_path_cpu, own_path_cpu1, own_path_cpug; /* own_cpu.c */

/* own_path.c: the path for e on dev (CLPARITY_OWN_KERNEL, the rule table, then the probe)
 * and its program; for cl:relaxed (s->relaxed) the same choice, checked by the relaxed probe,
 * and the program built with OWN_RELAXED_OPTIONS. */
int own_path_setup(cp_engine *e, struct cl_state *s, const cp_device *dev, int forced);

/* One rule type and one matcher for every OpenCL engine's default choice of path (cl:own's
 * own_rules[], cl:cr's cr_rules[]): the first rule of the device's kind whose limits hold and,
 * where a fits function is given, whose path fits gives the path. A limit of 0 is no limit. */
enum cl_rule_kind {
    CL_RULE_ANY,  /* every device */
    CL_RULE_CPU,  /* a CPU that runs kernels natively (own_cpu_device: PoCL) */
    CL_RULE_OTHER /* GPUs, accelerators and simulators (Oclgrind reports every type) */
};

/* What a rule is matched against: a description of the device, the model and the batch. */
struct cl_rule_input {
    bool cpu;        /* the device is of kind CL_RULE_CPU */
    unsigned cus;    /* its compute units */
    int width;       /* the model's widest layer */
    int batch;       /* the engine's largest batch */
    int blocks;      /* the batch's row blocks (own_cpu_rows rows each) */
    bool f64;        /* cl:cr's double sums run */
    bool one_buffer; /* the weights fit one buffer */
};

struct cl_rule {
    enum cl_rule_kind kind;
    int w_over, w_max; /* width in (w_over, w_max] */
    int b_over, b_max; /* batch in (b_over, b_max] */
    unsigned min_cus;  /* at least this many compute units */
    int blocks_per_cu; /* at most this many row blocks per compute unit */
    bool needs_f64;    /* only where the double sums run */
    bool no_f64;       /* only where they do not */
    bool one_buffer;   /* only where the weights fit one buffer */
    unsigned unless;   /* a mask of paths (1 << path): only where none of them fits */
    int path;          /* an index into the engine's table of paths */
};

/* Whether path (an index into the engine's table) fits; ctx is the caller's. */
typedef bool (*cl_rule_fits_fn)(int path, const void *ctx);

/* The first of the n rules that holds for in (fits NULL: every path fits), its path; -1 where
 * none does. */
int cl_rule_first(const struct cl_rule *rules, size_t n, const struct cl_rule_input *in,
                  cl_rule_fits_fn fits, const void *ctx);

/* An ordered list of fallbacks for one kind of device. */
struct cl_fallback {
    enum cl_rule_kind kind;
    int order[OWN_PATHS_MAX];
    size_t n;
};

/* The paths after `after` in the list of the device's kind (cpu), all of them where `after` is
 * not in it; written to out (at most OWN_PATHS_MAX), the count returned. */
size_t cl_fallback_after(const struct cl_fallback *lists, size_t n_lists, bool cpu, int after,
                         int *out);

/* The rule table as a pure function of the device description, e's model and largest batch
 * and the device's work-group limit: the first rule of own_rules[] that holds (its path), or -1
 * where none does. */
int own_rule_path(const cp_engine *e, const cp_device *dev, size_t max_wg);
/* The order in which the probe tries the paths: first (the first choice), dflt (the rule
 * table's, where first was forced) and the fallbacks of dev's kind after dflt. Returns how many
 * were written to order. */
int own_probe_order(const cp_device *dev, int first, int dflt, int order[OWN_PATHS_MAX + 2]);

/* cl:own's rules of the default choice and fallbacks (own_path_table.c). */
extern const struct cl_rule own_rules[];
extern const size_t own_n_rules;
extern const struct cl_fallback own_fallbacks[];
extern const size_t own_n_fallbacks;

/* Test hook kernel-bit:<path> (or :all) names s's path. */
bool own_planted(const struct cl_state *s);

/* The probe's class of e's model. */
struct cp_probe_class own_probe_class(const cp_engine *e);

/* cl_shared.c: OpenCL calls through the fault-injection hooks, and shared helpers. */
/* clGetDeviceInfo of one value, the call named on failure. */
int own_device_info(cl_device_id d, cl_device_info what, size_t size, void *out, const char *name);
cl_mem own_create_buffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host, cl_int *rc);
cl_int own_enqueue_kernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
                          const size_t *global, const size_t *local, cl_uint n_wait,
                          const cl_event *wait, cl_event *ev);
int own_upload(struct cl_state *s, cl_mem *buf, const void *data, size_t bytes, const char *what);
int own_set_args(cl_kernel k, const char *kname, size_t n, const size_t *sizes,
                 const void *const *values);
/* The same from argument `at` on (a NULL value: local memory of that size). */
int own_set_args_at(cl_kernel k, const char *kname, cl_uint at, size_t n, const size_t *sizes,
                    const void *const *values);
/* A launch of fn per layer, flushed every CP_FLUSH_LAYERS. */
int own_enqueue_layers(cp_engine *e, struct cl_state *s, int batch, own_layer_fn fn);

/* cl:cr (cr_cl.c), whose kernels read the weights as stored (s->chunks). cr_cl_setup chooses
 * the kernel variant, builds its program (before the weights are uploaded) and sets s->ops to
 * the variant's row of cr_cl.c's paths, whose upload makes the variant's own buffers (after),
 * whose launches record two events per layer, and whose release frees s->priv. */
#define CR_CL_EVENTS_PER_LAYER 2
int cr_cl_setup(cp_engine *e, struct cl_state *s, const cp_device *dev);
/* cl:cr's rule table as a pure function: the default variant for in (never -1: its last rule
 * holds everywhere), and a variant's name (NULL past the last). */
int cr_rule_variant(const struct cl_rule_input *in);
const char *cr_variant_name(int v);
/* Whether dev has cl_khr_fp64 (cl:cr's double sums, and its trainer's). */
int cr_cl_device_f64(const cp_device *dev, bool *f64);
/* CLPARITY_CR_TUNE's settings over those in *t (*set: whether it is set), or the usage error
 * that names it: cl:cr's forward and its trainer read it through this. */
struct cr_tune;
int cr_tune_env(struct cr_tune *t, bool *set);

/* Layer l's kernel arguments with the weights as stored (in their chunk): for the naive
 * kernel, and for CLBlast's SGEMM and its epilogue. */
struct stored_layer {
    cl_mem w;
    cl_ulong w_off, b_off; /* into w, in floats */
    cl_int in, out, has_bias, act, residual;
};
void own_stored_layer(const cp_engine *e, const struct cl_state *s, int l, struct stored_layer *a);
/* The counters of a device-wide barrier (grid_sync.cl): made, zeroed before a launch, and
 * judged after one (as read back: own_ctl_verdict; read then judged: own_check_ctl), with the
 * groups launched and instead: what to set for work that needs no such barrier. */
int own_ctl_new(cl_context ctx, cl_mem *ctl);
int own_ctl_clear(cl_command_queue q, cl_mem ctl);
int own_ctl_verdict(const cl_int ctl[4], const char *what, size_t groups, const char *instead);
int own_check_ctl(struct cl_state *s, const char *what, size_t groups, const char *instead);

/* Layouts shared by the families. */
static inline size_t own_round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

static inline int own_layer_flags(const cp_layer *L)
{
    return (L->has_bias ? 1 : 0) | (L->act == CP_ACT_RELU ? 2 : 0) | (L->residual ? 4 : 0);
}

/* A CPU device that runs kernels natively (PoCL): not a simulator, which reports every type. */
static inline bool own_cpu_device(const cp_device *dev)
{
    return (dev->type & CL_DEVICE_TYPE_CPU) && !dev->simulator;
}

/* Whether every layer is d x d with the same flags (the reference model): cp_model_small_reg
 * then takes the layer table as constants, and computes the offsets in size_t. */
bool own_uniform_model(const cp_model *m, int *flags);
/* Whether every layer is max_width wide in and out (own_cpu.c). */
bool own_cpu_uniform(const cp_model *m);
/* After a whole-model launch whose rows are max_width apart in *result (cl:own's and cl:cr's
 * cpu1): where the last layer is narrower, its rows packed into act[0] (read by layer 0 only),
 * and *result set to act[0]. kname names the kernel in an error. */
int own_cpu_pack_output(const cp_model *m, struct cl_state *s, int batch, cl_mem *result,
                        const char *kname);
/* own_cpu.cl's rows per work-item for a batch (own_cpu.c). */
int own_cpu_rows(int batch);
/* Build options for grid_sync.cl's bounded waits (the stream and cpug kernels). */
const char *own_spin_bound_options(const cp_device *dev);
/* Wt[k][o] = W[o][k] for one layer, n padded to ldw with zeros, then the bias. */
void own_transpose_layer(const cp_model *m, int l, int ldw, float *dst);
size_t own_layer_t_size(const cp_layer *L, int ldw);
/* Wp[n / nr][k][n % nr] = W[n][k] for one layer, n padded to ldw, then the bias. */
void own_pack_layer(const cp_model *m, int l, int ldw, int nr, float *dst);
/* One buffer with every layer (own_small.c): transposed, blocked for cp_model_small_reg, or
 * packed in panels of nr (nr > 0), and the layer table. */
int own_setup_small(cp_engine *e, struct cl_state *s, bool blocked, int nr);
/* One buffer per layer, n padded to pad: packed in panels of pad (packed) or transposed
 * (own_gemm.c). */
int own_setup_per_layer(cp_engine *e, struct cl_state *s, int pad, bool packed);

/* The tunable paths of cl:own and of cl:cr (cl_tunables.c): their ops' tunables. */
size_t own_tunables(const cp_device *dev, const cp_tunable **out, size_t max);
size_t cr_tunables(const cp_device *dev, const cp_tunable **out, size_t max);

#endif
