/* clparity ulp (clparity/ulp.h): each OpenCL device's sqrt, /, native_ and half_ variants and
 * train's float way against the host's correctly rounded results, over a fixed seeded sample:
 * special values first (every one, or every pair for division), then inputs drawn from the
 * portable generator in eight families that aim at the hard cases. */
#include "clparity/ulp.h"

#include "engine-impl.h"
#include "program-impl.h"
#include "train-impl.h"
#include "ulp-impl.h"

#include "clparity/gen.h"
#include "clparity/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The programs a session builds: ulp.cl as it comes and with correctly rounded / and sqrt, and
 * train.cl with train's float way. */
enum ulp_prog { PROG_DEFAULT, PROG_CR, PROG_TRAIN, PROG_COUNT };

#define DOMAIN_ALL "every float (pairs for divide): zeros, subnormals, infinities, NaN"
#define DOMAIN_HALF                                                                                \
    "normal inputs with a normal result (no zeros, subnormals, infinities or NaN; sqrt: x > 0): "  \
    "the half_ functions promise 8192 ULP there and may flush subnormals"

static const struct ulp_case_def {
    cp_ulp_case pub;
    enum ulp_prog prog;
    int op; /* ulp.cl's ulp_eval op, or train.cl's tr_divsqrt op (1 divides, 0 sqrt) */
    enum ulp_ref ref;
    bool half;
} cases[] = {
    {{"sqrt", "default", DOMAIN_ALL, false}, PROG_DEFAULT, 0, ULP_REF_SQRT, false},
    {{"sqrt", "correctly-rounded", DOMAIN_ALL, true}, PROG_CR, 0, ULP_REF_SQRT, false},
    {{"divide", "default", DOMAIN_ALL, false}, PROG_DEFAULT, 1, ULP_REF_DIV, false},
    {{"divide", "correctly-rounded", DOMAIN_ALL, true}, PROG_CR, 1, ULP_REF_DIV, false},
    {{"native_sqrt", "default", DOMAIN_ALL, false}, PROG_DEFAULT, 2, ULP_REF_SQRT, false},
    {{"native_divide", "default", DOMAIN_ALL, false}, PROG_DEFAULT, 3, ULP_REF_DIV, false},
    {{"native_recip", "default", DOMAIN_ALL, false}, PROG_DEFAULT, 4, ULP_REF_RECIP, false},
    {{"half_sqrt", "default", DOMAIN_HALF, false}, PROG_DEFAULT, 5, ULP_REF_SQRT, true},
    {{"half_divide", "default", DOMAIN_HALF, false}, PROG_DEFAULT, 6, ULP_REF_DIV, true},
    {{"half_recip", "default", DOMAIN_HALF, false}, PROG_DEFAULT, 7, ULP_REF_RECIP, true},
    {{"train_sqrt", "fma-correction", DOMAIN_ALL, true}, PROG_TRAIN, 0, ULP_REF_SQRT, false},
    {{"train_divide", "fma-correction", DOMAIN_ALL, true}, PROG_TRAIN, 1, ULP_REF_DIV, false},
};
#define N_CASES (sizeof cases / sizeof *cases)

size_t cp_ulp_case_count(void)
{
    return N_CASES;
}

const cp_ulp_case *cp_ulp_case_at(size_t i)
{
    return i < N_CASES ? &cases[i].pub : NULL;
}

const char *cp_ulp_build_options(const char *build)
{
    if (strcmp(build, "correctly-rounded") == 0)
        return "-cl-fp32-correctly-rounded-divide-sqrt";
    if (strcmp(build, "fma-correction") == 0)
        return "train.cl -DTR_DIVSQRT_FLOAT (clkernels/divsqrt.cl)";
    return "";
}

/* ---- the sample ---------------------------------------------------------------------------- */

static float f_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static uint32_t b_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static double pow2(int e) /* 2^e for e in [-1022, 1023], by its bits */
{
    uint64_t b = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* Positive special values, by their bits: zero, subnormals (the least, the greatest, 2^-127),
 * FLT_MIN and its neighbours, 2^-125, powers of two and their neighbours from 2^-64 to 2^127,
 * small integers and halves, FLT_MAX and its neighbour, infinity, a quiet and a signalling
 * NaN. Each comes with both signs. */
static const uint32_t specials[] = {
    0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x000000ff, 0x00012345, 0x00400000, 0x007ffffe,
    0x007fffff, 0x00800000, 0x00800001, 0x00ffffff, 0x01000000, 0x1f800000, 0x3e800000, 0x3effffff,
    0x3f000000, 0x3f000001, 0x3f7fffff, 0x3f800000, 0x3f800001, 0x3fbfffff, 0x3fc00000, 0x3fc00001,
    0x3fffffff, 0x40000000, 0x40000001, 0x40400000, 0x40600000, 0x40800000, 0x41200000, 0x42c80000,
    0x4b000000, 0x4b800000, 0x4f000000, 0x5f000000, 0x5f7fffff, 0x5f800000, 0x7e800000, 0x7f000000,
    0x7f7ffffe, 0x7f7fffff, 0x7f800000, 0x7fc00000, 0x7fa00000,
};
#define N_SPECIAL (2 * (sizeof specials / sizeof *specials))

static float special(size_t i)
{
    return f_of(specials[i / 2] | (i % 2 ? 0x80000000u : 0u));
}

/* The random words of input i: counters i·8 + k of the generator. */
struct draw {
    uint64_t seed, tensor, base;
    unsigned k;
};

static uint64_t next(struct draw *d)
{
    return cp_gen_bits(d->seed, d->tensor, d->base + d->k++);
}

static uint32_t sign_of(uint64_t u)
{
    return (uint32_t)(u >> 63) << 31;
}

/* A float with its exponent field uniform in [lo, hi] (0: subnormal or zero), random mantissa
 * and sign. */
static float field(uint64_t u, unsigned lo, unsigned hi)
{
    uint32_t e = lo + (uint32_t)((u >> 24) % (hi - lo + 1));
    return f_of(sign_of(u) | e << 23 | (uint32_t)(u & 0x7fffff));
}

static float positive(float f)
{
    return fabsf(f);
}

/* An odd 25-bit significand in [2^24, 2^25): a midpoint between two floats of [1, 2) once
 * scaled by 2^-24. */
static double mid25(uint64_t u)
{
    return (double)((UINT64_C(1) << 24) | (u & 0xffffff) | 1);
}

/* A power of two (of any exponent, subnormal ones too) or one of its two neighbours. */
static float pow2ish(uint64_t u)
{
    uint32_t e = (uint32_t)((u >> 8) % 255), s = sign_of(u);
    if (e == 0)
        return f_of(s | 1u << (u % 23));
    static const uint32_t mant[] = {0, 1, 0x7fffff};
    return f_of(s | e << 23 | mant[(u >> 40) % 3]);
}

/* bits moved by −64..+64, kept finite. */
static float nudge(float f, uint64_t u)
{
    int64_t b = (int64_t)(b_of(f) & 0x7fffffffu) + (int64_t)(u % 129) - 64;
    if (b < 0)
        b = 0;
    if (b > 0x7f7fffff)
        b = 0x7f7fffff;
    return f_of((b_of(f) & 0x80000000u) | (uint32_t)b);
}

static void sample_sqrt(struct draw *d, uint64_t u, float *x)
{
    uint64_t v = next(d);
    switch (u % 8) {
    case 0: /* any bits */
        *x = f_of((uint32_t)v);
        break;
    case 1: /* any exponent */
        *x = field(v, 0, 254);
        break;
    case 2: { /* sqrt(x) near a midpoint: M² (exact in double) times an even power of two */
        double m = mid25(v);
        int k = (int)((v >> 32) % 138) - 74;
        *x = (float)(m * m * pow2(2 * k - 48));
        break;
    }
    case 3: /* subnormal */
        *x = positive(field(v, 0, 0));
        break;
    case 4: /* about FLT_MIN */
        *x = positive(field(v, 0, 2));
        break;
    case 5: /* about FLT_MAX */
        *x = positive(field(v, 250, 254));
        break;
    case 6:
        if (v >> 63) { /* an exact square: s² with s of 12 bits, times an even power of two */
            double r = (double)((v & 0xfff) | 0x800);
            int k = (int)((v >> 32) % 138) - 80;
            *x = (float)(r * r * pow2(2 * k));
        } else {
            *x = positive(pow2ish(v));
        }
        break;
    default: { /* about 1, 2 and 4 */
        static const float base[] = {1.0f, 2.0f, 4.0f};
        *x = nudge(base[(v >> 40) % 3], v);
        break;
    }
    }
}

static void sample_recip(struct draw *d, uint64_t u, float *x)
{
    uint64_t v = next(d);
    switch (u % 8) {
    case 0:
        *x = f_of((uint32_t)v);
        break;
    case 1:
        *x = field(v, 0, 254);
        break;
    case 2: { /* 1/x near a midpoint: x = 2^24 / M rounded, times a power of two */
        int k = (int)((v >> 32) % 200) - 100;
        *x = (float)(pow2(24 + k) / mid25(v));
        break;
    }
    case 3:
        *x = field(v, 0, 0);
        break;
    case 4: /* 1/x subnormal */
        *x = field(v, 240, 254);
        break;
    case 5: /* 1/x about FLT_MAX or past it */
        *x = field(v, 0, 2);
        break;
    case 6:
        *x = pow2ish(v);
        break;
    default:
        *x = nudge(1.0f, v);
        break;
    }
}

static void sample_div(struct draw *d, uint64_t u, float *x, float *y)
{
    uint64_t v = next(d), w = next(d);
    switch (u % 8) {
    case 0:
        *x = f_of((uint32_t)v);
        *y = f_of((uint32_t)w);
        break;
    case 1:
        *x = field(v, 0, 254);
        *y = field(w, 0, 254);
        break;
    case 2: /* x / y near a midpoint: x = M·2^-24·y rounded (the product is exact in double) */
        *y = field(w, 64, 190);
        *x = (float)(mid25(v) * pow2(-24) * (double)*y * (v >> 62 ? 1.0 : -1.0));
        break;
    case 3: /* a subnormal operand */
        if (w & 1) {
            *x = field(v, 0, 0);
            *y = field(w, 97, 157);
        } else {
            *x = field(w, 97, 157);
            *y = field(v, 0, 0);
        }
        break;
    case 4:
        if (w & 1) {
            /* a result near the midpoint of two subnormals (or on it): x = K·2^-150·y, K odd
             * with 1 to 25 bits, so that ties and near-ties to the subnormal grid occur */
            unsigned bits = 1 + (unsigned)((v >> 40) % 25);
            uint64_t k = (v & ((UINT64_C(1) << bits) - 1)) | (UINT64_C(1) << (bits - 1)) | 1;
            *y = field(w, 127, 250);
            *x = (float)((double)k * pow2(-150) * (double)*y);
        } else { /* a result that underflows */
            *x = field(v, 1, 60);
            *y = field(w, 150, 254);
        }
        break;
    case 5: /* a result about FLT_MAX or past it */
        *x = field(v, 230, 254);
        *y = field(w, 100, 127);
        break;
    case 6:
        if (w >> 63) {
            /* an exact quotient: x = q·y, q and y of 12 bits each (their product is a float
             * where it is in range), q subnormal at times */
            double q = (double)((v & 0xfff) | 0x800) * pow2((int)((v >> 32) % 208) - 158);
            *y = (float)((double)((w & 0xfff) | 0x800) * pow2((int)((w >> 32) % 122) - 72));
            *x = (float)(q * (double)*y * (v >> 62 & 1 ? -1.0 : 1.0));
        } else {
            *x = pow2ish(v);
            *y = pow2ish(w);
        }
        break;
    default: /* x / y about 1, on either side of a binade */
        *y = field(w, 1, 254);
        *x = nudge(*y, v);
        break;
    }
}

static float ref_of(enum ulp_ref ref, float x, float y)
{
    switch (ref) {
    case ULP_REF_SQRT:
        return sqrtf(x);
    case ULP_REF_DIV:
        return x / y;
    case ULP_REF_RECIP:
        return 1.0f / x;
    }
    return NAN;
}

static bool normal(float f)
{
    uint32_t e = b_of(f) >> 23 & 0xff;
    return e != 0 && e != 0xff;
}

static bool in_domain(enum ulp_ref ref, float x, float y)
{
    if (!normal(x) || (ref == ULP_REF_DIV && !normal(y)) || (ref == ULP_REF_SQRT && x < 0.0f))
        return false;
    return normal(ref_of(ref, x, y));
}

static bool sample_input(enum ulp_ref ref, bool half, uint64_t seed, uint64_t i, float *x, float *y)
{
    *y = 1.0f;
    size_t ns = ref == ULP_REF_DIV ? N_SPECIAL * N_SPECIAL : N_SPECIAL;
    if (i < ns) {
        *x = special(i % N_SPECIAL);
        if (ref == ULP_REF_DIV)
            *y = special(i / N_SPECIAL);
    } else {
        struct draw d = {seed, CP_TENSOR_ULP(ref), i * 8, 0};
        uint64_t u = next(&d);
        if (ref == ULP_REF_SQRT)
            sample_sqrt(&d, u, x);
        else if (ref == ULP_REF_RECIP)
            sample_recip(&d, u, x);
        else
            sample_div(&d, u, x, y);
    }
    return !half || in_domain(ref, *x, *y);
}

size_t cp_ulp_special_count(size_t case_i)
{
    return case_i < N_CASES && cases[case_i].ref == ULP_REF_DIV ? N_SPECIAL * N_SPECIAL : N_SPECIAL;
}

bool cp_ulp_input(size_t case_i, uint64_t seed, uint64_t i, float *x, float *y)
{
    if (case_i >= N_CASES)
        return false;
    return sample_input(cases[case_i].ref, cases[case_i].half, seed, i, x, y);
}

/* ---- the comparison ------------------------------------------------------------------------ */

/* How telling an example is: the largest ULP distance, else a non-finite mismatch, else a
 * zero of the other sign. */
enum { WORST_NONE, WORST_ZERO_SIGN, WORST_NONFINITE, WORST_ULP };

struct acc {
    double sum;
    int worst; /* WORST_* of the example kept */
};

static void keep(cp_ulp_stats *st, struct acc *a, int kind, float x, float y, float got, float want)
{
    if (kind < a->worst || (kind == a->worst && kind != WORST_ULP))
        return;
    a->worst = kind;
    st->have_worst = true;
    st->worst_x = x;
    st->worst_y = y;
    st->worst_got = got;
    st->worst_want = want;
}

static void compare(cp_ulp_stats *st, struct acc *a, float x, float y, float got, float want)
{
    st->n++;
    bool gn = isnan(got), wn = isnan(want);
    if (gn && wn) {
        st->compared++;
        return;
    }
    if (gn || wn || ((isinf(got) || isinf(want)) && got != want)) {
        st->nonfinite++;
        st->bits_differ++;
        keep(st, a, WORST_NONFINITE, x, y, got, want);
        return;
    }
    st->compared++;
    if (b_of(got) == b_of(want))
        return;
    st->bits_differ++;
    uint64_t dist = cp_ulp_dist(got, want);
    a->sum += (double)dist;
    if (dist == 0) {
        keep(st, a, WORST_ZERO_SIGN, x, y, got, want);
    } else if (dist > st->max_ulp) {
        st->max_ulp = dist;
        keep(st, a, WORST_ULP, x, y, got, want);
    }
}

/* ---- running a kernel ---------------------------------------------------------------------- */

#define CHUNK ((size_t)1 << 20)

static int chunk_buffers(cl_context ctx, size_t chunk, cl_mem m[3])
{
    for (int i = 0; i < 3; ++i) {
        cl_int rc;
        m[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, chunk * sizeof(float), NULL, &rc);
        if (rc != CL_SUCCESS)
            return cp_err_cl(rc, "clCreateBuffer (ulp)");
    }
    return CP_OK;
}

/* One chunk: x and y up, the kernel, r down. */
static int run_chunk(cl_command_queue q, cl_kernel k, int op, cl_mem m[3], const float *x,
                     const float *y, float *r, size_t n)
{
    cl_int rc = clEnqueueWriteBuffer(q, m[0], CL_FALSE, 0, n * sizeof(float), x, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueWriteBuffer(q, m[1], CL_FALSE, 0, n * sizeof(float), y, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueWriteBuffer (ulp)");
    cl_int nn = (cl_int)n, opi = op;
    const void *args[] = {&m[0], &m[1], &m[2], &nn, &opi};
    const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof nn, sizeof opi};
    for (cl_uint i = 0; i < 5; ++i)
        if ((rc = clSetKernelArg(k, i, sizes[i], args[i])) != CL_SUCCESS)
            return cp_err_cl(rc, "clSetKernelArg (ulp)");
    size_t gws = n;
    if ((rc = clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, NULL, 0, NULL, NULL)) != CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueNDRangeKernel (ulp)");
    if ((rc = clEnqueueReadBuffer(q, m[2], CL_TRUE, 0, n * sizeof(float), r, 0, NULL, NULL)) !=
        CL_SUCCESS)
        return cp_err_cl(rc, "clEnqueueReadBuffer (ulp)");
    return CP_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The test hook ulp-perturb: the first finite nonzero result of the chunk one ULP off. */
static void perturb(float *r, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (isfinite(r[i]) && r[i] != 0.0f) {
            r[i] = f_of(b_of(r[i]) ^ 1u);
            return;
        }
}

static int ulp_run_ex(cl_context ctx, cl_command_queue q, cl_kernel k, int op, enum ulp_ref ref,
                      bool half, size_t n, uint64_t seed, bool plant,
                      void (*progress)(void *ctx, size_t done, size_t total), void *pctx,
                      cp_ulp_stats *st)
{
    memset(st, 0, sizeof *st);
    st->available = true;
    double t0 = now_s();
    size_t chunk = n < CHUNK ? (n ? n : 1) : CHUNK;
    cl_mem m[3] = {NULL, NULL, NULL};
    float *x = malloc(chunk * sizeof *x), *y = malloc(chunk * sizeof *y);
    float *r = malloc(chunk * sizeof *r), *want = malloc(chunk * sizeof *want);
    int st_ = x && y && r && want ? CP_OK : cp_err_set(CP_FAIL_RUNTIME, "ulp: out of memory");
    if (st_ == CP_OK)
        st_ = chunk_buffers(ctx, chunk, m);
    struct acc a = {0.0, WORST_NONE};
    uint64_t next_i = 0; /* the sample's next input (half_ cases skip those outside) */
    for (size_t done = 0; st_ == CP_OK && done < n;) {
        size_t c = n - done < chunk ? n - done : chunk;
        for (size_t j = 0; j < c; ++j) {
            while (!sample_input(ref, half, seed, next_i, &x[j], &y[j]))
                ++next_i;
            ++next_i;
            want[j] = ref_of(ref, x[j], y[j]);
        }
        if ((st_ = run_chunk(q, k, op, m, x, y, r, c)) != CP_OK)
            break;
        if (plant && done == 0)
            perturb(r, c);
        for (size_t j = 0; j < c; ++j)
            compare(st, &a, x[j], y[j], r[j], want[j]);
        done += c;
        if (progress)
            progress(pctx, done, n);
    }
    st->mean_ulp = st->compared ? a.sum / (double)st->compared : 0.0;
    st->seconds = now_s() - t0;
    for (int i = 0; i < 3; ++i)
        if (m[i])
            clReleaseMemObject(m[i]);
    free(x);
    free(y);
    free(r);
    free(want);
    return st_;
}

int ulp_run(cl_context ctx, cl_command_queue q, cl_kernel k, int op, enum ulp_ref ref, bool half,
            size_t n, uint64_t seed, void (*progress)(void *ctx, size_t done, size_t total),
            void *pctx, cp_ulp_stats *st)
{
    return ulp_run_ex(ctx, q, k, op, ref, half, n, seed, false, progress, pctx, st);
}

/* ---- sessions ------------------------------------------------------------------------------ */

struct cp_ulp_session {
    const cp_device *dev;
    cl_context ctx;
    cl_command_queue q;
    cl_program prog[PROG_COUNT];
    cl_kernel k[PROG_COUNT];
    bool tried[PROG_COUNT];
    char why[PROG_COUNT][200]; /* set: the program is not available on this device */
};

int cp_ulp_open(const cp_device *dev, cp_ulp_session **out)
{
    *out = NULL;
    if (dev->kind != CP_DEV_OPENCL)
        return cp_err_set(CP_FAIL_USAGE, "ulp measures OpenCL devices; the host is the reference");
    cp_ulp_session *s = calloc(1, sizeof *s);
    if (!s)
        return cp_err_set(CP_FAIL_RUNTIME, "ulp: out of memory");
    s->dev = dev;
    int st = cp_cl_open(dev, 0, &s->ctx, &s->q);
    if (st != CP_OK) {
        cp_ulp_close(s);
        return st;
    }
    *out = s;
    return CP_OK;
}

/* Builds program p once; a device without correctly rounded / and sqrt has no PROG_CR. */
static int session_program(cp_ulp_session *s, enum ulp_prog p)
{
    if (s->tried[p])
        return CP_OK;
    s->tried[p] = true;
    char opts[256];
    const char *src = "ulp.cl", *kname = "ulp_eval";
    if (p == PROG_CR && !(s->dev->fp32 & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)) {
        snprintf(s->why[p], sizeof s->why[p],
                 "the device does not report CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT");
        return CP_OK;
    }
    if (p == PROG_TRAIN) {
        char way[128];
        train_divsqrt_options(TRAIN_DIVSQRT_FLOAT, way, sizeof way);
        snprintf(opts, sizeof opts, "-cl-std=CL1.2%s", way);
        src = "train.cl";
        kname = "tr_divsqrt";
    } else {
        snprintf(opts, sizeof opts, "-cl-std=CL1.2%s",
                 p == PROG_CR ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
    }
    int st = cp_program_build_ex(s->ctx, s->dev->device_id, src, opts, &s->prog[p], NULL);
    if (st != CP_OK)
        return st;
    cl_int rc;
    s->k[p] = clCreateKernel(s->prog[p], kname, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_set(CP_FAIL_RUNTIME, "clCreateKernel(%s) failed: %s (%d)", kname,
                          cp_cl_error_name(rc), rc);
    return CP_OK;
}

int cp_ulp_measure(cp_ulp_session *s, size_t case_i, size_t n, uint64_t seed,
                   void (*progress)(void *ctx, size_t done, size_t total), void *ctx,
                   cp_ulp_stats *out)
{
    memset(out, 0, sizeof *out);
    if (case_i >= N_CASES)
        return cp_err_set(CP_FAIL_USAGE, "ulp: no case %zu", case_i);
    const struct ulp_case_def *c = &cases[case_i];
    int st = session_program(s, c->prog);
    if (st != CP_OK)
        return st;
    if (s->why[c->prog][0]) {
        snprintf(out->why, sizeof out->why, "%s", s->why[c->prog]);
        return CP_OK;
    }
    /* test hook ulp-perturb: one result of the correctly rounded sqrt one ULP off, as a device
     * that claims correct rounding and misses once would leave it */
    bool plant = c->prog == PROG_CR && c->ref == ULP_REF_SQRT && cp_test_hook("ulp-perturb");
    return ulp_run_ex(s->ctx, s->q, s->k[c->prog], c->op, c->ref, c->half, n, seed, plant, progress,
                      ctx, out);
}

void cp_ulp_close(cp_ulp_session *s)
{
    if (!s)
        return;
    for (int p = 0; p < PROG_COUNT; ++p) {
        if (s->k[p])
            clReleaseKernel(s->k[p]);
        if (s->prog[p])
            clReleaseProgram(s->prog[p]);
    }
    if (s->q)
        clReleaseCommandQueue(s->q);
    if (s->ctx)
        clReleaseContext(s->ctx);
    free(s);
}
