#include "clparity/device.h"
#include "device-impl.h"

#include "icd-impl.h"
#include "clparity/env.h"

#include <CL/cl_ext.h>
#include <cblas.h>
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define FIELD(f) offsetof(cp_device, f), sizeof(((cp_device *)0)->f)
const struct prop dev_props[] = {
    {CL_DEVICE_VENDOR, "vendor", "Vendor", P_STR, FIELD(vendor)},
    {CL_DEVICE_TYPE, "type", "Type", P_TYPE, FIELD(type)},
    {CL_DEVICE_MAX_COMPUTE_UNITS, "compute_units", "Compute units", P_UINT, FIELD(compute_units)},
    {CL_DEVICE_MAX_CLOCK_FREQUENCY, "clock_mhz", "Max clock", P_MHZ, FIELD(clock_mhz)},
    {CL_DEVICE_GLOBAL_MEM_SIZE, "global_mem_bytes", "Global memory", P_BYTES, FIELD(global_mem)},
    {CL_DEVICE_MAX_MEM_ALLOC_SIZE, "max_alloc_bytes", "Max allocation", P_BYTES, FIELD(max_alloc)},
    {CL_DEVICE_VERSION, "version", "Version", P_STR, FIELD(version)},
    {CL_DEVICE_OPENCL_C_VERSION, "opencl_c_version", "OpenCL C", P_STR, FIELD(cl_c_version)},
    {CL_DRIVER_VERSION, "driver_version", "Driver", P_STR, FIELD(driver)},
    {CL_DEVICE_PROFILE, "profile", "Profile", P_STR, FIELD(profile)},
    {CL_DEVICE_SINGLE_FP_CONFIG, "fp32_config", "FP32 config", P_FP, FIELD(fp32)},
};
#undef FIELD
const size_t dev_props_n = sizeof dev_props / sizeof dev_props[0];

static int query_platform_str(cl_platform_id p, cl_platform_info what, char *buf, size_t len,
                              const char *name)
{
    size_t need = 0;
    cl_int rc = clGetPlatformInfo(p, what, 0, NULL, &need);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, name);
    char *tmp = malloc(need + 1);
    if (!tmp)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory reading %s", name);
    rc = clGetPlatformInfo(p, what, need, tmp, NULL);
    if (rc != CL_SUCCESS) {
        free(tmp);
        return cp_err_cl(rc, name);
    }
    tmp[need] = '\0';
    snprintf(buf, len, "%s", tmp);
    free(tmp);
    return CP_OK;
}

static int query_device_prop(cl_device_id d, const struct prop *p, cp_device *dev)
{
    char *field = (char *)dev + p->off;
    if (p->kind != P_STR) {
        cl_int rc = clGetDeviceInfo(d, p->param, p->size, field, NULL);
        return rc == CL_SUCCESS ? CP_OK : cp_err_cl(rc, "clGetDeviceInfo");
    }
    size_t need = 0;
    cl_int rc = clGetDeviceInfo(d, p->param, 0, NULL, &need);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clGetDeviceInfo");
    char *tmp = malloc(need + 1);
    if (!tmp)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory reading device info");
    rc = clGetDeviceInfo(d, p->param, need, tmp, NULL);
    if (rc != CL_SUCCESS) {
        free(tmp);
        return cp_err_cl(rc, "clGetDeviceInfo");
    }
    tmp[need] = '\0';
    snprintf(field, p->size, "%s", tmp);
    free(tmp);
    return CP_OK;
}

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; ++hay)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return n == 0;
}

static int add_device(cp_devlist *l, const cp_device *d)
{
    cp_device *v = realloc(l->v, (l->n + 1) * sizeof *v);
    if (!v)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory listing devices");
    l->v = v;
    l->v[l->n++] = *d;
    return CP_OK;
}

static int enumerate_platform(cp_devlist *l, cl_platform_id pid, int pi)
{
    cp_device base;
    memset(&base, 0, sizeof base);
    base.kind = CP_DEV_OPENCL;
    base.plat_idx = pi;
    base.platform_id = pid;
    int st = query_platform_str(pid, CL_PLATFORM_NAME, base.platform, sizeof base.platform,
                                "clGetPlatformInfo(CL_PLATFORM_NAME)");
    if (st == CP_OK)
        st = query_platform_str(pid, CL_PLATFORM_VENDOR, base.platform_vendor,
                                sizeof base.platform_vendor,
                                "clGetPlatformInfo(CL_PLATFORM_VENDOR)");
    if (st == CP_OK)
        st = query_platform_str(pid, CL_PLATFORM_VERSION, base.platform_version,
                                sizeof base.platform_version,
                                "clGetPlatformInfo(CL_PLATFORM_VERSION)");
    if (st != CP_OK)
        return st;

    cl_uint nd = 0;
    cl_int rc = clGetDeviceIDs(pid, CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    if (rc == CL_DEVICE_NOT_FOUND || (rc == CL_SUCCESS && nd == 0)) {
        /* clinfo shows such a platform with no device; the note says why, where known. */
        char why[1024] = "";
        const char *pd = getenv("POCL_DEVICES");
        if (contains_ci(base.platform, "Portable Computing Language") &&
            !cp_pocl_cache_problem(why, sizeof why) && pd)
            snprintf(why, sizeof why, "POCL_DEVICES=%s", pd);
        if (strcasecmp(base.platform, "rusticl") == 0 && !getenv("RUSTICL_ENABLE"))
            snprintf(why, sizeof why,
                     "rusticl exposes no device unless RUSTICL_ENABLE names a driver (e.g. "
                     "RUSTICL_ENABLE=llvmpipe)");
        cp_note_add(l->env_note, sizeof l->env_note, "platform #%d (%s) reports no device%s%s", pi,
                    base.platform, why[0] ? ": " : " (clGetDeviceIDs: CL_DEVICE_NOT_FOUND)", why);
        return CP_OK;
    }
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clGetDeviceIDs");
    cl_device_id *ids = calloc(nd, sizeof *ids);
    if (!ids)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory listing devices");
    rc = clGetDeviceIDs(pid, CL_DEVICE_TYPE_ALL, nd, ids, NULL);
    if (rc != CL_SUCCESS) {
        st = cp_err_cl(rc, "clGetDeviceIDs");
        goto out_free_ids;
    }
    for (cl_uint di = 0; di < nd; ++di) {
        cp_device d = base;
        d.dev_idx = (int)di;
        d.device_id = ids[di];
        struct prop name = {CL_DEVICE_NAME, "name", "Name", P_STR, offsetof(cp_device, name),
                            sizeof d.name};
        st = query_device_prop(ids[di], &name, &d);
        for (size_t k = 0; st == CP_OK && k < dev_props_n; ++k)
            st = query_device_prop(ids[di], &dev_props[k], &d);
        if (st != CP_OK)
            goto out_free_ids;
        d.simulator = contains_ci(d.platform, "oclgrind") || contains_ci(d.name, "oclgrind");
        st = add_device(l, &d);
        if (st != CP_OK)
            goto out_free_ids;
    }
out_free_ids:
    free(ids);
    return st;
}

static void fill_host(cp_device *h)
{
    memset(h, 0, sizeof *h);
    h->kind = CP_DEV_HOST;
    h->plat_idx = h->dev_idx = -1;
    snprintf(h->platform, sizeof h->platform, "host");
    cp_host_cpu_name(h->name, sizeof h->name);
    snprintf(h->vendor, sizeof h->vendor, "host");
    const char *cfg = openblas_get_config();
    snprintf(h->blas_config, sizeof h->blas_config, "%s", cfg ? cfg : "unknown");
    const char *core = openblas_get_corename();
    snprintf(h->blas_core, sizeof h->blas_core, "%s", core ? core : "unknown");
    h->blas_threads = openblas_get_num_threads();
    /* "OpenBLAS 0.3.21 DYNAMIC_ARCH ...": the first two words are the version. */
    int words = 0;
    size_t i = 0;
    for (; h->blas_config[i] && i + 1 < sizeof h->driver; ++i) {
        if (h->blas_config[i] == ' ' && ++words == 2)
            break;
        h->driver[i] = h->blas_config[i];
    }
    h->driver[i] = '\0';
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    h->compute_units = ncpu > 0 ? (cl_uint)ncpu : 1;
    h->global_mem = cp_host_mem_available();
    h->max_alloc = h->global_mem;
    h->type = CL_DEVICE_TYPE_CPU;
}

int cp_devlist_enumerate(cp_devlist *out)
{
    out->v = NULL;
    out->n = 0;
    out->env_note[0] = '\0';
    /* Every library user lists devices first: a CLPARITY_* variable that holds garbage is
     * refused here, before any work, as the command refuses it (runtime/base/env.c). */
    int st = cp_env_check_all(NULL);
    if (st != CP_OK)
        return st;
    cl_uint np = 0;
    cl_int rc = clGetPlatformIDs(0, NULL, &np);
    if (rc == CL_PLATFORM_NOT_FOUND_KHR)
        np = 0; /* the ICD loader found no platform: only host remains */
    else if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clGetPlatformIDs");
    cl_platform_id *pids = NULL;
    if (np) {
        pids = calloc(np, sizeof *pids);
        if (!pids)
            return cp_err_set(CP_FAIL_RUNTIME, "out of memory listing platforms");
        rc = clGetPlatformIDs(np, pids, NULL);
        if (rc != CL_SUCCESS) {
            st = cp_err_cl(rc, "clGetPlatformIDs");
            goto out_free;
        }
    }
    if (np == 0) {
        char why[sizeof out->env_note - 64] = "";
        cp_icd_check(why, sizeof why, true);
        snprintf(out->env_note, sizeof out->env_note, "no OpenCL platform found (%s)", why);
    } else {
        cp_icd_check(out->env_note, sizeof out->env_note, false); /* one skipped, others not */
    }
    for (cl_uint p = 0; p < np && st == CP_OK; ++p)
        st = enumerate_platform(out, pids[p], (int)p);
    if (st == CP_OK) {
        cp_device h;
        fill_host(&h);
        st = add_device(out, &h);
    }
out_free:
    free(pids);
    if (st != CP_OK)
        cp_devlist_free(out);
    return st;
}

void cp_devlist_free(cp_devlist *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

void cp_device_label(const cp_device *d, char *buf, size_t len)
{
    if (d->kind == CP_DEV_HOST)
        snprintf(buf, len, "host");
    else
        snprintf(buf, len, "%d:%d %s", d->plat_idx, d->dev_idx, d->name);
}

void cp_device_tag(const cp_device *d, char *buf, size_t len)
{
    if (d->kind == CP_DEV_HOST)
        snprintf(buf, len, "host");
    else
        snprintf(buf, len, "p%dd%d", d->plat_idx, d->dev_idx);
}

static void append_word(char *buf, size_t len, const char *w)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, "%s%s", used ? " " : "", w);
}

void cp_fp_config_str(cl_device_fp_config c, char *buf, size_t len)
{
    static const struct {
        cl_device_fp_config bit;
        const char *word;
    } bits[] = {
        {CL_FP_DENORM, "denorm"},
        {CL_FP_INF_NAN, "inf-nan"},
        {CL_FP_ROUND_TO_NEAREST, "rte"},
        {CL_FP_ROUND_TO_ZERO, "rtz"},
        {CL_FP_ROUND_TO_INF, "rti"},
        {CL_FP_FMA, "fma"},
        {CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, "correct-div-sqrt"},
        {CL_FP_SOFT_FLOAT, "soft-float"},
    };
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; ++i)
        if (c & bits[i].bit)
            append_word(buf, len, bits[i].word);
    if (!buf[0])
        snprintf(buf, len, "none");
}

void cp_device_type_str(cl_device_type t, char *buf, size_t len)
{
    buf[0] = '\0';
    if (t & CL_DEVICE_TYPE_CPU)
        append_word(buf, len, "CPU");
    if (t & CL_DEVICE_TYPE_GPU)
        append_word(buf, len, "GPU");
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        append_word(buf, len, "ACCELERATOR");
    if (t & CL_DEVICE_TYPE_CUSTOM)
        append_word(buf, len, "CUSTOM");
    if (!buf[0])
        snprintf(buf, len, "DEFAULT");
}

const char *cp_host_blas_warning(const cp_device *host)
{
    static char msg[512];
    /* Cores older than Haswell: DYNAMIC_ARCH falls back to them on CPUs it does not know. */
    static const char *const generic[] = {"Prescott",  "Core2",  "Penryn",    "Dunnington",
                                          "Nehalem",   "Atom",   "Katmai",    "Coppermine",
                                          "Northwood", "Banias", "Barcelona", "Generic"};
    bool is_generic = false;
    for (size_t i = 0; i < sizeof generic / sizeof generic[0]; ++i)
        if (strcasecmp(host->blas_core, generic[i]) == 0)
            is_generic = true;
    if (!is_generic)
        return NULL;
    __builtin_cpu_init();
    const char *want = NULL;
    if (__builtin_cpu_supports("avx512f"))
        want = "SkylakeX";
    else if (__builtin_cpu_supports("avx2"))
        want = "Haswell";
    if (!want)
        return NULL;
    snprintf(msg, sizeof msg,
             "OpenBLAS picked the generic core '%s' on a CPU with %s: sgemm may be ~4x slower; "
             "set OPENBLAS_CORETYPE=%s",
             host->blas_core, strcmp(want, "SkylakeX") == 0 ? "AVX-512" : "AVX2", want);
    return msg;
}

unsigned long long cp_host_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024ULL;
}

void cp_host_cpu_name(char *buf, size_t len)
{
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *v = strchr(line, ':');
        if (!v)
            continue;
        v++;
        while (isspace((unsigned char)*v))
            v++;
        size_t n = strcspn(v, "\n");
        snprintf(buf, len, "%.*s", (int)n, v);
        break;
    }
    fclose(f);
}
