/* Engines: one interface for every way of running the model (DESIGN.md, Engines). */
#ifndef CLPARITY_ENGINE_H
#define CLPARITY_ENGINE_H

#include "clparity/export.h"
#include "clparity/cache.h"
#include "clparity/device.h"
#include "clparity/model.h"
#include "clparity/npy.h"

CP_API_BEGIN

typedef struct cp_engine cp_engine; /* opaque */
struct cp_train_ops;                /* opaque: runtime/train/train-impl.h */

/* What an engine holds for a model and a batch (cp_engine_footprint). Its footprint function
 * (cp_engine_info.footprint) is handed the default, the weights once in the engine's dtype and
 * two activation buffers, and changes what its engine holds beyond that. */
typedef struct cp_footprint {
    unsigned long long weights; /* bytes: the weights and what it keeps per layer or output */
    unsigned long long buffers; /* activation buffers of batch x the widest layer, in its dtype */
    unsigned long long staging; /* host bytes held during the upload only (OpenCL engines) */
} cp_footprint;

/* What compare needs an engine for besides its own result. */
enum cp_engine_role {
    CP_ROLE_NONE,
    CP_ROLE_BASELINE,  /* the bits every float32 result is compared with (host:exact) */
    CP_ROLE_CR_ANSWER, /* the correctly rounded answer that --expect cr judges by (host:cr) */
};

/* An engine's registry entry: its traits are data here, never a comparison of its name. */
typedef struct cp_engine_info {
    const char *name;      /* "cl:own" */
    enum cp_dev_kind kind; /* the devices it applies to */
    enum cp_dtype dtype;   /* of its outputs */
    const char *summary;   /* one line for --help */
    bool by_name;          /* runs only where --engines names it, never by default (none now) */
    /* Each output's exact sum rounded once (cl:cr, host:cr): the results --expect cr judges. */
    bool correctly_rounded;
    /* The engine whose bits it must give on every conforming device ("host:exact" for cl:own,
     * "host:cr" for cl:cr); NULL where none is promised (cl:relaxed's kernel-path probe checks
     * a bound instead). */
    const char *twin;
    enum cp_engine_role role;
    bool in_sweep; /* sweep runs it where --engines is not given (cl:own, cl:cr, host:openblas) */
    /* Changes *f (the default, above) to what the engine holds; NULL: the default. */
    void (*footprint)(const cp_model *m, int batch, cp_footprint *f);
    const struct cp_engine_ops *ops;  /* how it runs: private to the library */
    const struct cp_train_ops *train; /* its training (clparity/train.h); NULL: not trainable */
} cp_engine_info;

/* Seconds; a negative kernel_s means "not available" (the library hides its events). */
typedef struct cp_timing {
    double wall_s;   /* first enqueue to clFinish (host engines: the compute alone) */
    double kernel_s; /* sum of the profiled kernel durations */
    double h2d_s;    /* writing the input */
    double d2h_s;    /* reading the output */
} cp_timing;

size_t cp_engine_count(void);
const cp_engine_info *cp_engine_at(size_t i);
const cp_engine_info *cp_engine_find(const char *name);

/* Bytes the engine holds on the device (or on the host, for host engines) for this model and
 * batch, and the largest single allocation. Used for the up-front memory checks. */
void cp_engine_footprint(const cp_engine_info *info, const cp_model *m, int batch,
                         unsigned long long *total, unsigned long long *largest);

/* Host memory the engine needs besides the model's float weights (which every engine reads
 * from the host copy) while it is created and run: a host engine's footprint; for an OpenCL
 * engine on a CPU device (PoCL, Oclgrind), whose buffers live in host memory, the device
 * footprint, plus cl:own's staging copy of the transposed weights during the upload. */
unsigned long long cp_engine_host_footprint(const cp_engine_info *info, const cp_device *dev,
                                            const cp_model *m, int batch);

/* Checks the footprint against the device's global memory and max allocation, and each
 * layer against the max allocation. CP_FAIL_USAGE with a message naming both sizes. */
int cp_engine_check_memory(const cp_engine_info *info, const cp_device *dev, const cp_model *m,
                           int batch);

/* Builds programs and uploads the weights. max_batch bounds later forwards. */
int cp_engine_create(const cp_engine_info *info, const cp_device *dev, const cp_model *m,
                     int max_batch, cp_engine **out);

/* The setup of cl:own, cl:relaxed and cl:cr (kernel builds and probes) in a child process, so
 * that a crash inside the OpenCL implementation costs a kernel path, not the process
 * (runtime/engine/isolate-impl.h). cp_isolate_enable turns it on for this process: exe is clparity
 * itself ("/proc/self/exe"), which cp_isolate_child_main serves as its hidden subcommand
 * "__setup" (argv[0] "__setup"; returns the exit status). Off by default: a program that links
 * the library is not clparity. */
void cp_isolate_enable(const char *exe);
/* fn (NULL: none) is called where cp_isolate_enable is on and an engine's setup on dev must
 * build or probe, because the program cache lacks some of it (a first run, a new driver or
 * new kernels): before the builds start, on the thread that creates the engine. The library
 * prints nothing itself; clparity says once why the first run is slow (tools/main.c). */
typedef void (*cp_isolate_notice_fn)(const cp_device *dev, const char *engine, void *ctx);
void cp_isolate_set_notice(cp_isolate_notice_fn fn, void *ctx);
int cp_isolate_child_main(int argc, char **argv);

/* y = model(x) for batch rows; y holds batch × out_width elements of the engine's dtype. */
int cp_engine_forward(cp_engine *e, const float *x, int batch, void *y, cp_timing *t);

/* Seconds spent building programs and uploading weights in cp_engine_create. */
double cp_engine_build_seconds(const cp_engine *e);
double cp_engine_upload_seconds(const cp_engine *e);
/* The OpenCL build options ("" for host engines). */
const char *cp_engine_build_options(const cp_engine *e);
/* What the program cache did in cp_engine_create: CP_CACHE_NONE for engines that build no
 * OpenCL program (host), else off, miss or hit. cl:clblast counts our epilogue program only:
 * CLBlast compiles its own kernels at the first SGEMM and keeps no disk cache. */
enum cp_cache_state cp_engine_build_cache(const cp_engine *e);
bool cp_engine_cache_hit(const cp_engine *e);
/* "" or what was unusual about the cache: a bad entry replaced, a binary the driver refused,
 * an entry not stored (an unwritable folder) and why. */
const char *cp_engine_build_cache_note(const cp_engine *e);

/* cl:own's kernel path on its device, and the paths its probe rejected there (docs/ENGINES.md):
 * before cl:own takes a path on a device for the first time, the path runs a small probe model
 * and must give host:exact's bits; a path that does not is not used, and the next that does
 * is. */
#define CP_PATH_NAME 16
#define CP_PROBE_WHY 384
#define CP_PATHS_MAX 12
typedef struct cp_path_report {
    char used[CP_PATH_NAME]; /* the kernel path that ran; "" for engines without paths */
    int exact;               /* 1: it passed the probe; 0: no path passed, so the result is not
                              * promised to be host:exact's; -1: not probed (other engines) */
    bool probe_off;          /* CLPARITY_OWN_PROBE=off: the path was taken unchecked */
    double probe_s;          /* seconds spent probing (not in the build time) */
    bool in_child;           /* built and probed in a setup child (isolate): its probes' time
                              * is in the build time, and probe_s is this process's only */
    int n_rejected;
    struct {
        char path[CP_PATH_NAME];
        char why[CP_PROBE_WHY];
    } rejected[CP_PATHS_MAX];
} cp_path_report;
const cp_path_report *cp_engine_paths(const cp_engine *e);

/* The library routine or kernel that the engine runs (the last cp_engine_forward's where it
 * depends on the batch), for the report: "path reg"
 * (cl:own), "path reg (relaxed)" (cl:relaxed), "CLBlastSgemv" or "CLBlastSgemm" (cl:clblast,
 * by batch), "cblas_sgemv" or "cblas_sgemm" (host:openblas, by batch), "C fmaf chains (avx512)"
 * (host:exact, with its level), "C double loops" (host:f64), "f64 sums + exact fallback (avx2)"
 * or "exact accumulator (scalar)" (host:cr), "cr.cl gemv: float64 certified + exact fallback"
 * or "cr.cl gemv: exact integer accumulator (no cl_khr_fp64)" (cl:cr, with its kernel
 * variant); "" where not known yet. */
#define CP_ROUTINE_LEN 80
const char *cp_engine_routine(const cp_engine *e);

/* cl:own's kernel paths, by index (naive, small, tiled, ...). */
size_t cp_own_path_count(void);
const char *cp_own_path_name(size_t i);

/* The probe's verdict for cl:own's path i on an OpenCL device, for the reference model's class
 * (square layers, ReLU and residual, no bias, 128 wide at most, batch 16 at most). With run
 * false only a verdict kept in this process or the program cache is read; with run true the
 * path is probed where none is kept. *verdict: 1 passed, 0 rejected, -1 not probed yet, -2 does
 * not apply to this device; why says more. CP_FAIL_USAGE for a host device or i out of range. */
int cp_own_probe_path(const cp_device *dev, size_t i, bool run, int *verdict, char *why,
                      size_t len);

/* The weights' round trip: written to the engine's memory, read back, mapped, and copied
 * buffer to buffer, each compared bit for bit with the model. *ok is 1 (all equal), 0 (a
 * difference) or -1 (not applicable: the engine reads the model's weights in place). */
int cp_engine_roundtrip(cp_engine *e, int *ok);

/* The library threads an engine's forward uses (host:openblas: OpenBLAS's, for the
 * thread-invariance check): sets n where n > 0 and returns the count before; -1 for an engine
 * without a thread setting. */
int cp_engine_threads(cp_engine *e, int n);

/* What `clparity devices` says of the host engines' setup (hostblas/exact.c). */
typedef struct cp_host_about {
    /* The most threads host:openblas and host:exact share a layer over: CLPARITY_HOST_THREADS,
     * else the cores (at most 16); 0 when CLPARITY_HOST_THREADS is not 1 to 16. */
    int pool_threads;
    /* Whether that pool pins its threads (CLPARITY_HOST_PIN): 1, 0, or -1 when
     * CLPARITY_HOST_PIN is not 0 or 1. */
    int pool_pin;
    /* host:exact's instruction-set level (CLPARITY_HOST_ISA): "avx512" (AVX-512 F), "avx2" (AVX2 +
     * FMA) or "baseline"; the one CLPARITY_HOST_ISA names (isa_forced), else the widest this CPU
     * has. NULL where CLPARITY_HOST_ISA is not a level this CPU has, isa_error saying why. */
    const char *isa;
    bool isa_forced;
    char isa_levels[64]; /* the levels this CPU has, widest first: "avx2, baseline" */
    char isa_error[256];
} cp_host_about;

/* Fills *a from the engine that keeps the host's setup (host:exact, through the engine
 * interface); CP_FAIL_USAGE if no engine does. */
int cp_host_about_get(cp_host_about *a);

/* Whether a device's FP config and profile let cl:own promise exact results: it needs
 * denormals (CL_FP_DENORM) and the FULL profile. */
bool cp_device_exact_capable(const cp_device *d);

void cp_engine_destroy(cp_engine *e);

CP_API_END

#endif
