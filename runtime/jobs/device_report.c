/* `clparity devices`'s list, human and JSON, from device.c's table of properties (clinfo's
 * way). Above the engines, not in device.c: the host row says how the host engines are set up
 * (cp_host_about_get, the engine registry), and device.c sits below the engines. */
#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/format.h"
#include "clparity/report.h" /* cp_json_push */
#include "device-impl.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void prop_text(const cp_device *d, const struct prop *p, char *buf, size_t len)
{
    const char *field = (const char *)d + p->off;
    switch (p->kind) {
    case P_STR:
        snprintf(buf, len, "%s", field);
        break;
    case P_TYPE:
        cp_device_type_str(d->type, buf, len);
        break;
    case P_UINT:
        snprintf(buf, len, "%u", *(const cl_uint *)(const void *)field);
        break;
    case P_MHZ:
        snprintf(buf, len, "%u MHz", *(const cl_uint *)(const void *)field);
        break;
    case P_BYTES:
        cp_fmt_bytes(*(const cl_ulong *)(const void *)field, false, buf, len);
        break;
    case P_FP:
        cp_fp_config_str(d->fp32, buf, len);
        break;
    }
}

void cp_devlist_print(const cp_devlist *l, FILE *f)
{
    int last_plat = -1;
    char text[512];
    for (size_t i = 0; i < l->n; ++i) {
        const cp_device *d = &l->v[i];
        if (d->kind == CP_DEV_HOST) {
            fprintf(f, "Host: %s\n `-- Device host: %s, core %s, %d threads\n", d->name, d->driver,
                    d->blas_core, d->blas_threads);
            fprintf(f, "       %-16s %u\n", "CPUs", d->compute_units);
            cp_fmt_bytes(d->global_mem, false, text, sizeof text);
            fprintf(f, "       %-16s %s\n", "Memory available", text);
            fprintf(f, "       %-16s %s\n", "OpenBLAS config", d->blas_config);
            cp_host_about a;
            if (cp_host_about_get(&a) != CP_OK) {
                fprintf(f, "       %s\n", cp_err_msg());
                continue;
            }
            int pool = a.pool_threads, pin = a.pool_pin;
            if (pool > 0)
                fprintf(f,
                        "       %-16s up to %d (CLPARITY_HOST_THREADS, else the cores), %s, for "
                        "host:exact and for host:openblas's smaller layers (one OpenBLAS thread "
                        "each; one thread below 2^13 multiply-adds, half of them up to 2^18); "
                        "OpenBLAS's own %d for layers of 2^18 weights or more at 2^22 "
                        "multiply-adds or a batch of 1\n",
                        "Host threads", pool,
                        pin > 0    ? "pinned while it has a thread per CPU and no other "
                                     "process slows it (CLPARITY_HOST_PIN)"
                        : pin == 0 ? "unpinned (CLPARITY_HOST_PIN=0)"
                                   : "CLPARITY_HOST_PIN is not 0 or 1",
                        d->blas_threads);
            const char *isa = a.isa, *has = a.isa_levels;
            bool forced = a.isa_forced;
            if (isa)
                fprintf(f, "       %-16s %s (%s): %s %s%s\n", "host:exact ISA", isa,
                        strcmp(isa, "avx512") == 0 ? "AVX-512 F"
                        : strcmp(isa, "avx2") == 0 ? "AVX2 + FMA"
                                                   : "no vector FMA: fmaf from libm",
                        forced ? "forced by CLPARITY_HOST_ISA; this CPU has"
                               : "the widest of this CPU's",
                        has, forced ? "" : " (CLPARITY_HOST_ISA forces one)");
            else
                fprintf(f, "       %-16s %s\n", "host:exact ISA", a.isa_error);
            const char *w = cp_host_blas_warning(d);
            if (w)
                fprintf(f, "       warning: %s\n", w);
            continue;
        }
        if (d->plat_idx != last_plat) {
            fprintf(f, "Platform #%d: %s\n", d->plat_idx, d->platform);
            last_plat = d->plat_idx;
        }
        fprintf(f, " `-- Device #%d: %s%s\n", d->dev_idx, d->name,
                d->simulator ? "  (simulator: not in the default selection)" : "");
        for (size_t k = 0; k < dev_props_n; ++k) {
            prop_text(d, &dev_props[k], text, sizeof text);
            fprintf(f, "       %-16s %s\n", dev_props[k].label, text);
        }
    }
}

void *cp_devlist_json(const cp_devlist *l)
{
    cJSON *arr = cJSON_CreateArray();
    char text[512];
    for (size_t i = 0; arr && i < l->n; ++i) {
        const cp_device *d = &l->v[i];
        cJSON *o = cJSON_CreateObject();
        if (!cp_json_push(arr, o)) /* o NULL, or deleted */
            break;
        char label[300];
        cp_device_tag(d, label, sizeof label);
        cJSON_AddStringToObject(o, "id", label);
        cJSON_AddStringToObject(o, "kind", d->kind == CP_DEV_HOST ? "host" : "opencl");
        cJSON_AddStringToObject(o, "name", d->name);
        if (d->kind == CP_DEV_HOST) {
            cJSON_AddStringToObject(o, "blas", d->driver);
            cJSON_AddStringToObject(o, "blas_config", d->blas_config);
            cJSON_AddStringToObject(o, "blas_core", d->blas_core);
            cJSON_AddNumberToObject(o, "blas_threads", d->blas_threads);
            cJSON_AddNumberToObject(o, "cpus", d->compute_units);
            cJSON_AddNumberToObject(o, "mem_available_bytes", (double)d->global_mem);
            cp_host_about a;
            if (cp_host_about_get(&a) != CP_OK)
                continue;
            const char *isa = a.isa, *has = a.isa_levels;
            if (isa)
                cJSON_AddStringToObject(o, "exact_isa", isa);
            else
                cJSON_AddNullToObject(o, "exact_isa");
            cJSON *levels = cJSON_AddArrayToObject(o, "exact_isa_levels");
            for (const char *t = has; levels && *t;) { /* "avx2, baseline": one item each */
                char word[16];
                size_t n = strcspn(t, ",");
                snprintf(word, sizeof word, "%.*s", (int)n, t);
                cp_json_push(levels, cJSON_CreateString(word));
                t += n + strspn(t + n, ", ");
            }
            cJSON_AddBoolToObject(o, "exact_isa_forced", a.isa_forced);
            if (isa)
                cJSON_AddNullToObject(o, "exact_isa_error");
            else
                cJSON_AddStringToObject(o, "exact_isa_error", a.isa_error);
            const char *w = cp_host_blas_warning(d);
            if (w)
                cJSON_AddStringToObject(o, "warning", w);
            else
                cJSON_AddNullToObject(o, "warning");
            continue;
        }
        cJSON_AddNumberToObject(o, "platform_index", d->plat_idx);
        cJSON_AddNumberToObject(o, "device_index", d->dev_idx);
        cJSON_AddStringToObject(o, "platform", d->platform);
        cJSON_AddStringToObject(o, "platform_vendor", d->platform_vendor);
        cJSON_AddStringToObject(o, "platform_version", d->platform_version);
        cJSON_AddBoolToObject(o, "simulator", d->simulator);
        for (size_t k = 0; k < dev_props_n; ++k) {
            const struct prop *p = &dev_props[k];
            const char *field = (const char *)d + p->off;
            switch (p->kind) {
            case P_UINT:
            case P_MHZ:
                cJSON_AddNumberToObject(o, p->key, *(const cl_uint *)(const void *)field);
                break;
            case P_BYTES:
                cJSON_AddNumberToObject(o, p->key, (double)*(const cl_ulong *)(const void *)field);
                break;
            case P_STR:
            case P_TYPE:
            case P_FP:
                prop_text(d, p, text, sizeof text);
                cJSON_AddStringToObject(o, p->key, text);
                break;
            }
        }
    }
    return arr;
}
