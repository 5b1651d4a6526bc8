/* cl:own's tuned parameters: defaults, the store written by `clparity tune` (which also keeps
 * cl:cr's, read by runtime/opencl/cr_cl.c through cp_tune_cr_stored), and the CLPARITY_OWN_TUNE
 * override. */
#include "clparity/env.h"
#include "clparity/tune.h"
#include "clparity/cache.h"
#include "clparity/report.h"
#include "cache-impl.h"
#include "tune-impl.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void cp_tune_format(const cp_own_tune *t, char *buf, size_t len)
{
    snprintf(buf, len,
             "rc=%d,rd=%d,bk=%d,db=%d,xl=%d,xp=%d,pf=%d,vw=%d,rb=%d,nv=%d,mc=%d,rr=%d,so=%d,sk=%d,"
             "sp=%d,sg=%d,rg=%d,gu=%d",
             t->reg_rc, t->reg_rd, t->tiled_bk, t->tiled_db, t->tiled_xl, t->tiled_xp, t->tiled_pf,
             t->vec_w, t->vec_rb, t->vec_nv, t->vec_mc, t->reg_rr, t->str_no, t->str_kc, t->str_sp,
             t->str_sg, t->reg_rg, t->cpu_gu);
}

void cp_tune_key(const cp_device *dev, char *buf, size_t len)
{
    snprintf(buf, len, "%s|%s|%s", dev->name, dev->driver, dev->platform_version);
}

static int store_path(char *buf, size_t len)
{
    char dir[4096];
    int st = cp_cache_dir(dir, sizeof dir);
    if (st != CP_OK)
        return st;
    int n = snprintf(buf, len, "%s/tune.json", dir);
    if (n < 0 || (size_t)n >= len)
        return cp_err_set(CP_FAIL_RUNTIME, "tune: the store's path is too long");
    return CP_OK;
}

/* The parsed store, or NULL when it is missing or unreadable. *missing (when given) tells the
 * two apart: true only when there is no store (ENOENT); false when one exists but could not be
 * opened, read or parsed (or memory ran out doing so). */
static cJSON *load_store(const char *path, bool *missing)
{
    if (missing)
        *missing = false;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (missing)
            *missing = errno == ENOENT;
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            size_t ncap = cap ? 2 * cap : 8192;
            char *nb = ncap <= ((size_t)1 << 24) ? realloc(buf, ncap) : NULL;
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        size_t r = fread(buf + n, 1, 4096, f);
        n += r;
        if (r < 4096)
            break;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    buf[n] = '\0';
    cJSON *j = bad ? NULL : cJSON_Parse(buf);
    free(buf);
    if (j && !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* The string `name` of dev's entry in the store (cp_tune_store), into buf; false, with buf "",
 * where the cache is off, the store is missing or cannot be read (never fatal: the defaults
 * apply), there is no such entry or field, or it does not fit. */
static bool stored_field(const cp_device *dev, const char *name, char *buf, size_t len)
{
    char path[4200], key[800];
    buf[0] = '\0';
    if (!cp_cache_enabled() || store_path(path, sizeof path) != CP_OK)
        return false;
    cJSON *store = load_store(path, NULL);
    cp_tune_key(dev, key, sizeof key);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(store, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, name);
    bool ok = cJSON_IsString(v) && strlen(v->valuestring) < len;
    if (ok)
        memcpy(buf, v->valuestring, strlen(v->valuestring) + 1);
    cJSON_Delete(store);
    return ok;
}

bool cp_tune_cr_stored(const cp_device *dev, char *buf, size_t len)
{
    return stored_field(dev, "cr_params", buf, len) && buf[0];
}

int cp_tune_get(const cp_device *dev, unsigned pref_vec, cp_own_tune *t, enum cp_tune_source *src)
{
    /* Defaults: the best measured on the H100 (clparity tune, 2026-11-23: rc=64,rd=2 of 8 reg
     * settings, rd=3 the same within 1 %; bk=32,db=0,xl=0,xp=4,pf=0 of 10 tiled settings:
     * 39.5 TFLOP/s at d=2048, against 36.0 with the next tile held in registers (pf=1, 163
     * registers: one work-group per SM; pf=0 needs 128: two)) and on PoCL (vw from the device's
     * preferred width; 8 rows × 2 vectors in registers with AVX-512's 32 vector registers,
     * 4 × 2 with 16; 128 rows per work-item: docs/PERFORMANCE.md, target 3). */
    t->reg_rc = 64;
    t->reg_rd = 2;
    t->tiled_bk = 32;
    t->tiled_db = 0;
    t->tiled_xl = 0;
    t->tiled_xp = 4;
    t->tiled_pf = 0;
    t->vec_w = pref_vec >= 16 ? 16 : 8; /* tests/check_built.py (default_vw) mirrors this */
    t->vec_rb = pref_vec >= 16 ? 8 : 4;
    t->vec_nv = 2;
    t->vec_mc = 128;
    t->reg_rr = 8;
    /* stream: 0 = chosen from the layer width (own_small.c, stream_shape) */
    t->str_no = 0;
    t->str_kc = 0;
    t->str_sp = 1;
    t->str_sg = 0;
    t->reg_rg = 2; /* H100 2026-11-25: d=128 L=3840 B=1 2.19 ms against rg=1's 6.44 */
    t->cpu_gu = 1;
    if (src)
        *src = CP_TUNE_DEFAULT;
    char spec[512];
    cp_own_tune stored = *t;
    if (stored_field(dev, "params", spec, sizeof spec) && cp_tune_parse(spec, &stored) == CP_OK) {
        *t = stored;
        if (src)
            *src = CP_TUNE_CACHED;
    }
    const char *env;
    int est = cp_env_get("CLPARITY_OWN_TUNE", &env);
    if (est != CP_OK)
        return est;
    if (env) {
        int st = cp_tune_parse(env, t);
        if (st != CP_OK)
            return cp_err_set(CP_FAIL_USAGE, "CLPARITY_OWN_TUNE: %s", cp_err_msg());
        if (src)
            *src = CP_TUNE_ENV;
    }
    return CP_OK;
}

int cp_tune_store(const cp_device *dev, const cp_own_tune *t, const char *cr_spec, void *measured)
{
    char path[4200], dir[4096];
    int st = store_path(path, sizeof path);
    if (st == CP_OK)
        st = cp_cache_dir(dir, sizeof dir);
    if (st != CP_OK)
        return st;
    char why[256];
    if (!cp_cache_make_dirs(dir, why, sizeof why))
        return cp_err_set(CP_FAIL_RUNTIME, "tune: %s", why);
    /* A store that exists but cannot be read (I/O error, out of memory, not a JSON object) is
     * left as it is: replacing it would drop every other device's settings without a word. */
    bool missing;
    cJSON *store = load_store(path, &missing);
    if (!store && !missing) {
        cJSON_Delete(measured);
        return cp_err_set(CP_FAIL_RUNTIME,
                          "cannot read the store %s (an I/O error, out of memory, or not a "
                          "JSON object): nothing stored; remove it to start a new one",
                          path);
    }
    if (!store)
        store = cJSON_CreateObject();
    char key[800], spec[256], date[32];
    cp_tune_key(dev, key, sizeof key);
    cp_tune_format(t, spec, sizeof spec);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON *e = cJSON_CreateObject();
    if (!store || !e || !cJSON_AddStringToObject(e, "params", spec) ||
        (cr_spec && cr_spec[0] && !cJSON_AddStringToObject(e, "cr_params", cr_spec)) ||
        !cJSON_AddStringToObject(e, "date", date)) {
        cJSON_Delete(store);
        cJSON_Delete(e);
        cJSON_Delete(measured);
        return cp_err_set(CP_FAIL_RUNTIME, "tune: out of memory");
    }
    if (measured)
        cp_json_add(e, "measured", measured);
    cJSON_DeleteItemFromObjectCaseSensitive(store, key);
    cp_json_add(store, key, e);
    st = cp_json_write(path, store);
    cJSON_Delete(store);
    return st;
}

int cp_tune_own_spec(const cp_device *dev, const char *over, char *buf, size_t len)
{
    cp_own_tune t;
    int st = cp_tune_get(dev, 0, &t, NULL);
    if (st == CP_OK && over)
        st = cp_tune_parse(over, &t);
    if (st == CP_OK)
        cp_tune_format(&t, buf, len);
    return st;
}

int cp_tune_store_spec(const cp_device *dev, const char *own_spec, const char *cr_spec,
                       void *measured)
{
    cp_own_tune t;
    memset(&t, 0, sizeof t);
    int st = cp_tune_parse(own_spec, &t);
    if (st != CP_OK) {
        cJSON_Delete(measured);
        return st;
    }
    return cp_tune_store(dev, &t, cr_spec, measured);
}
