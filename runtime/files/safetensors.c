#include "clparity/safetensors.h"

#include "clparity/error.h"
#include "file-impl.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {
    [CP_ST_BOOL] = {"BOOL", 1},       [CP_ST_U8] = {"U8", 1},           [CP_ST_I8] = {"I8", 1},
    [CP_ST_F8_E5M2] = {"F8_E5M2", 1}, [CP_ST_F8_E4M3] = {"F8_E4M3", 1}, [CP_ST_I16] = {"I16", 2},
    [CP_ST_U16] = {"U16", 2},         [CP_ST_F16] = {"F16", 2},         [CP_ST_BF16] = {"BF16", 2},
    [CP_ST_I32] = {"I32", 4},         [CP_ST_U32] = {"U32", 4},         [CP_ST_F32] = {"F32", 4},
    [CP_ST_F64] = {"F64", 8},         [CP_ST_I64] = {"I64", 8},         [CP_ST_U64] = {"U64", 8},
};
#define N_DTYPES (sizeof dtypes / sizeof dtypes[0])

/* Offsets and dimensions must be exact integers: a double holds every integer below 2^53
 * exactly, and nothing at or above it is trusted (2^53 + 1 would parse as 2^53). */
#define EXACT_LIMIT 9007199254740992.0

const char *cp_st_dtype_name(enum cp_st_dtype t)
{
    return (size_t)t < N_DTYPES ? dtypes[t].name : "?";
}

size_t cp_st_dtype_size(enum cp_st_dtype t)
{
    return (size_t)t < N_DTYPES ? dtypes[t].size : 0;
}

/* A name from the file, safe to print: control bytes become '?', and long names are cut. */
static const char *printable(char *dst, size_t cap, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 4 < cap; ++i)
        dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    if (s[i]) {
        memcpy(dst + i, "...", 3);
        i += 3;
    }
    dst[i] = '\0';
    return dst;
}

static uint64_t read_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = v << 8 | p[i];
    return v;
}

/* An exact non-negative integer below 2^53, as size_t. */
static bool exact_size(const cJSON *item, size_t *out)
{
    if (!cJSON_IsNumber(item))
        return false;
    double v = item->valuedouble;
    if (!isfinite(v) || v < 0.0 || v >= EXACT_LIMIT || v != floor(v))
        return false;
    if ((uint64_t)v > SIZE_MAX)
        return false;
    *out = (size_t)v;
    return true;
}

static int compare_begin(const void *a, const void *b)
{
    const cp_st_tensor *x = *(const cp_st_tensor *const *)a, *y = *(const cp_st_tensor *const *)b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

static int parse_metadata(const char *name, const cJSON *meta, cp_st_file *f)
{
    char pk[96];
    if (!cJSON_IsObject(meta))
        return cp_err_set(CP_FAIL_USAGE, "%s: __metadata__ is not a JSON object", name);
    for (const cJSON *it = meta->child; it; it = it->next) {
        if (!cJSON_IsString(it))
            return cp_err_set(CP_FAIL_USAGE, "%s: __metadata__ value '%s' is not a string", name,
                              printable(pk, sizeof pk, it->string));
        if (strcmp(it->string, "clparity.arch") == 0 && !f->arch) {
            f->arch = strdup(it->valuestring);
            if (!f->arch)
                return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", name);
        }
    }
    return CP_OK;
}

static int parse_tensor(const char *name, const cJSON *it, cp_st_tensor *t, size_t data_size)
{
    char pk[96];
    const char *tn = printable(pk, sizeof pk, it->string);
    if (!cJSON_IsObject(it))
        return cp_err_set(CP_FAIL_USAGE, "%s: tensor '%s' is not a JSON object", name, tn);
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(it, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(it, "shape");
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(it, "data_offsets");
    if (!cJSON_IsString(dt))
        return cp_err_set(CP_FAIL_USAGE, "%s: tensor '%s' has no dtype string", name, tn);
    size_t d = 0;
    while (d < N_DTYPES && strcmp(dtypes[d].name, dt->valuestring) != 0)
        d++;
    if (d == N_DTYPES) {
        char pd[48];
        return cp_err_set(CP_FAIL_USAGE, "%s: tensor '%s' has an unknown dtype '%s'", name, tn,
                          printable(pd, sizeof pd, dt->valuestring));
    }
    t->dtype = (enum cp_st_dtype)d;
    if (!cJSON_IsArray(shape))
        return cp_err_set(CP_FAIL_USAGE, "%s: tensor '%s' has no shape array", name, tn);
    int ndim = cJSON_GetArraySize(shape);
    if (ndim > CP_ST_MAX_DIMS)
        return cp_err_set(CP_FAIL_USAGE, "%s: tensor '%s' has %d dimensions, more than %d", name,
                          tn, ndim, CP_ST_MAX_DIMS);
    t->ndim = ndim;
    t->count = 1;
    int k = 0;
    bool overflow = false;
    for (const cJSON *s = shape->child; s; s = s->next, ++k) {
        if (!exact_size(s, &t->shape[k]))
            return cp_err_set(CP_FAIL_USAGE,
                              "%s: tensor '%s': shape[%d] is not an integer in [0, 2^53)", name, tn,
                              k);
        if (t->shape[k] != 0 && t->count > SIZE_MAX / t->shape[k])
            overflow = true;
        else
            t->count *= t->shape[k];
    }
    /* A zero dimension makes the product 0 whatever the others are; absurd dimensions that
     * overflow on the way are refused all the same. */
    size_t esz = dtypes[d].size;
    if (overflow || t->count > SIZE_MAX / esz)
        return cp_err_set(CP_FAIL_USAGE,
                          "%s: tensor '%s': absurd dimensions, the shape's size overflows size_t",
                          name, tn);
    for (k = 0; k < ndim; ++k)
        if (t->shape[k] == 0)
            t->count = 0;
    if (!cJSON_IsArray(offs) || cJSON_GetArraySize(offs) != 2)
        return cp_err_set(CP_FAIL_USAGE, "%s: tensor '%s' has no data_offsets [begin, end]", name,
                          tn);
    if (!exact_size(offs->child, &t->begin) || !exact_size(offs->child->next, &t->end))
        return cp_err_set(CP_FAIL_USAGE,
                          "%s: tensor '%s': data_offsets are not integers in [0, 2^53)", name, tn);
    if (t->begin > t->end || t->end > data_size)
        return cp_err_set(CP_FAIL_USAGE,
                          "%s: tensor '%s': data_offsets [%zu, %zu] out of range (the data "
                          "section holds %zu bytes)",
                          name, tn, t->begin, t->end, data_size);
    if (t->end - t->begin != t->count * esz)
        return cp_err_set(CP_FAIL_USAGE,
                          "%s: tensor '%s': shape and size disagree: %zu elements of %s need "
                          "%zu bytes, data_offsets span %zu",
                          name, tn, t->count, dtypes[d].name, t->count * esz, t->end - t->begin);
    t->name = strdup(it->string);
    if (!t->name)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", name);
    return CP_OK;
}

/* The tensors tile the data section: sorted by offset, each begins where the last ended
 * (the reference implementation refuses gaps too), and the last ends at the end. */
static int check_layout(const char *name, cp_st_file *f)
{
    int st = CP_OK;
    cp_st_tensor **v = malloc((f->n ? f->n : 1) * sizeof *v);
    if (!v)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", name);
    for (size_t i = 0; i < f->n; ++i)
        v[i] = &f->t[i];
    qsort(v, f->n, sizeof *v, compare_begin);
    size_t pos = 0;
    char pa[96], pb[96];
    for (size_t i = 0; i < f->n && st == CP_OK; ++i) {
        if (v[i]->begin < pos)
            st = cp_err_set(CP_FAIL_USAGE,
                            "%s: tensors '%s' and '%s' overlap (bytes [%zu, %zu] and [%zu, %zu])",
                            name, printable(pa, sizeof pa, v[i - 1]->name),
                            printable(pb, sizeof pb, v[i]->name), v[i - 1]->begin, v[i - 1]->end,
                            v[i]->begin, v[i]->end);
        else if (v[i]->begin > pos)
            st = cp_err_set(
                CP_FAIL_USAGE, "%s: a gap of %zu bytes in the data before tensor '%s' (offset %zu)",
                name, v[i]->begin - pos, printable(pa, sizeof pa, v[i]->name), v[i]->begin);
        else
            pos = v[i]->end;
    }
    if (st == CP_OK && pos != f->data_size)
        st = cp_err_set(CP_FAIL_USAGE,
                        "%s: %zu trailing bytes after the last tensor (the data section holds "
                        "%zu bytes, the tensors %zu)",
                        name, f->data_size - pos, f->data_size, pos);
    free(v);
    return st;
}

int cp_st_parse(const void *buf, size_t size, const char *name, cp_st_file *f)
{
    const unsigned char *b = buf;
    memset(f, 0, sizeof *f);
    f->file_size = size;
    f->name = strdup(name ? name : "(memory)");
    if (!f->name)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    name = f->name;
    if (size < 8)
        return cp_err_set(CP_FAIL_USAGE,
                          "%s: truncated: %zu bytes, shorter than the 8-byte header length", name,
                          size);
    uint64_t hlen = read_le64(b);
    if (hlen > size - 8)
        return cp_err_set(CP_FAIL_USAGE,
                          "%s: header length %llu goes beyond the file (%zu bytes after the "
                          "length)",
                          name, (unsigned long long)hlen, size - 8);
    if (hlen > CP_ST_MAX_HEADER)
        return cp_err_set(CP_FAIL_USAGE, "%s: header length %llu is above the limit of %u bytes",
                          name, (unsigned long long)hlen, CP_ST_MAX_HEADER);
    if (hlen < 2)
        return cp_err_set(CP_FAIL_USAGE, "%s: bad JSON header: %llu bytes", name,
                          (unsigned long long)hlen);
    const char *hdr = (const char *)b + 8;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(hdr, (size_t)hlen, &end, 0);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t off = at && at >= hdr && at <= hdr + hlen ? (size_t)(at - hdr) : 0;
        return cp_err_set(CP_FAIL_USAGE, "%s: bad JSON header (a syntax error near byte %zu)", name,
                          off);
    }
    int st = CP_OK;
    /* After the JSON only padding may follow (the reference writer pads with spaces). */
    for (const char *p = end; p && p < hdr + hlen && st == CP_OK; ++p)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            st = cp_err_set(CP_FAIL_USAGE,
                            "%s: bad JSON header: unexpected bytes after the JSON (byte %zu)", name,
                            (size_t)(p - hdr));
    if (st == CP_OK && !cJSON_IsObject(root))
        st = cp_err_set(CP_FAIL_USAGE, "%s: bad JSON header: not a JSON object", name);
    if (st != CP_OK)
        goto out;
    f->data = b + 8 + hlen;
    f->data_size = size - 8 - (size_t)hlen;
    size_t n = 0;
    for (const cJSON *it = root->child; it; it = it->next)
        n++;
    f->t = calloc(n ? n : 1, sizeof *f->t);
    if (!f->t) {
        st = cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", name);
        goto out;
    }
    bool seen_meta = false;
    for (const cJSON *it = root->child; it && st == CP_OK; it = it->next) {
        char pk[96];
        if (strcmp(it->string, "__metadata__") == 0) {
            if (seen_meta)
                st = cp_err_set(CP_FAIL_USAGE, "%s: __metadata__ appears twice", name);
            else
                st = parse_metadata(name, it, f);
            seen_meta = true;
            continue;
        }
        if (cp_st_find(f, it->string)) {
            st = cp_err_set(CP_FAIL_USAGE, "%s: tensor '%s' appears twice", name,
                            printable(pk, sizeof pk, it->string));
            break;
        }
        st = parse_tensor(name, it, &f->t[f->n], f->data_size);
        if (st == CP_OK)
            f->n++;
    }
    if (st == CP_OK)
        st = check_layout(name, f);
out:
    cJSON_Delete(root);
    return st;
}

int cp_st_read(const char *path, cp_st_file *f)
{
    memset(f, 0, sizeof *f);
    mode_t mode;
    FILE *fp = cp_fopen_regular(path, &mode); /* a FIFO would block open(), and never end */
    if (!fp && mode)
        return cp_err_set(CP_FAIL_USAGE, "%s: not a regular file (%s)", path, cp_file_kind(mode));
    if (!fp)
        return cp_err_set(cp_open_status(errno), "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    unsigned char *buf = NULL;
    int st = CP_OK;
    if (fstat(fileno(fp), &sb) != 0) {
        st = cp_err_set(CP_FAIL_RUNTIME, "%s: cannot stat: %s", path, strerror(errno));
        goto out;
    }
    size_t size = (size_t)sb.st_size;
    buf = malloc(size ? size : 1);
    if (!buf) {
        st = cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory for %zu bytes", path, size);
        goto out;
    }
    if (fread(buf, 1, size, fp) != size) {
        st = ferror(fp) ? cp_err_set(CP_FAIL_RUNTIME, "%s: read failed", path)
                        : cp_err_set(CP_FAIL_USAGE, "%s: truncated while reading", path);
        goto out;
    }
    st = cp_st_parse(buf, size, path, f);
    f->owned = buf;
    buf = NULL;
out:
    free(buf);
    fclose(fp);
    return st;
}

const cp_st_tensor *cp_st_find(const cp_st_file *f, const char *name)
{
    for (size_t i = 0; i < f->n; ++i)
        if (strcmp(f->t[i].name, name) == 0)
            return &f->t[i];
    return NULL;
}

int cp_st_get_f32(const cp_st_file *f, const cp_st_tensor *t, float *dst)
{
    char pk[96];
    if (t->dtype != CP_ST_F32)
        return cp_err_set(CP_FAIL_USAGE, "%s: tensor '%s' is %s, where F32 is needed", f->name,
                          printable(pk, sizeof pk, t->name), cp_st_dtype_name(t->dtype));
    const unsigned char *p = f->data + t->begin;
    for (size_t i = 0; i < t->count; ++i) {
        uint32_t u = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
                     (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
        memcpy(&dst[i], &u, sizeof u);
    }
    return CP_OK;
}

void cp_st_free(cp_st_file *f)
{
    for (size_t i = 0; i < f->n; ++i)
        free(f->t[i].name);
    free(f->t);
    free(f->arch);
    free(f->owned);
    free(f->name);
    memset(f, 0, sizeof *f);
}
