#include "clparity/model.h"

#include "clparity/error.h"
#include "clparity/gen.h"
#include "clparity/report.h"
#include "clparity/safetensors.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cp_model_builtin_shape(cp_model *m, int d, int n_layers, uint64_t seed, float init_scale)
{
    memset(m, 0, sizeof *m);
    if (d <= 0 || n_layers <= 0)
        return cp_err_set(CP_FAIL_USAGE, "model sizes must be positive (d=%d, layers=%d)", d,
                          n_layers);
    size_t per = (size_t)d * (size_t)d;
    if (per / (size_t)d != (size_t)d || per > SIZE_MAX / sizeof(float) / (size_t)n_layers)
        return cp_err_set(CP_FAIL_USAGE, "model too large: %d layers of %d x %d overflow memory",
                          n_layers, d, d);
    m->layers = calloc((size_t)n_layers, sizeof *m->layers);
    if (!m->layers)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for %d layers", n_layers);
    m->n_layers = n_layers;
    m->n_params = per * (size_t)n_layers;
    m->in_width = m->out_width = m->max_width = d;
    m->d = d;
    m->seed = seed;
    m->init_scale = init_scale;
    for (int l = 0; l < n_layers; ++l) {
        cp_layer *L = &m->layers[l];
        L->in = L->out = d;
        L->w_off = per * (size_t)l;
        L->act = CP_ACT_RELU;
        L->residual = true;
    }
    return CP_OK;
}

int cp_model_builtin_generate(cp_model *m)
{
    free(m->params);
    m->params = malloc((m->n_params ? m->n_params : 1) * sizeof(float));
    if (!m->params)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for %zu weights (%.2f GiB)", m->n_params,
                          (double)m->n_params * 4.0 / (1024.0 * 1024 * 1024));
    float bound = cp_gen_linear_bound(m->d);
    size_t per = (size_t)m->d * (size_t)m->d;
    for (int l = 0; l < m->n_layers; ++l)
        cp_gen_fill_uniform_weights(m->params + m->layers[l].w_off, per, m->seed,
                                    CP_TENSOR_WEIGHT(l), bound, m->init_scale);
    return CP_OK;
}

int cp_model_builtin(cp_model *m, int d, int n_layers, uint64_t seed, float init_scale)
{
    int st = cp_model_builtin_shape(m, d, n_layers, seed, init_scale);
    if (st == CP_OK)
        st = cp_model_builtin_generate(m);
    if (st != CP_OK)
        cp_model_free(m);
    return st;
}

void cp_model_free(cp_model *m)
{
    free(m->layers);
    free(m->params);
    memset(m, 0, sizeof *m);
}

double cp_model_macs(const cp_model *m, int batch)
{
    double macs = 0.0;
    for (int l = 0; l < m->n_layers; ++l)
        macs += (double)m->layers[l].in * (double)m->layers[l].out;
    return macs * (double)batch;
}

size_t cp_model_max_weights(const cp_model *m)
{
    size_t n = 1;
    for (int l = 0; l < m->n_layers; ++l) {
        size_t io = (size_t)m->layers[l].in * (size_t)m->layers[l].out;
        n = io > n ? io : n;
    }
    return n;
}

int cp_model_input(int batch, int width, uint64_t seed, float **out)
{
    size_t n = (size_t)batch * (size_t)width;
    *out = malloc((n ? n : 1) * sizeof(float));
    if (!*out)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for the input (%d x %d)", batch, width);
    cp_gen_fill_normal(*out, n, seed, CP_TENSOR_INPUT);
    return CP_OK;
}

/* ---- models from safetensors files ------------------------------------------------------ */

struct layer_spec {
    const cp_st_tensor *w, *b;
    enum cp_act act;
    bool residual;
};

/* Parses "<digits><rest>" at s: the index, or -1 when s does not start that way or the
 * rest differs. Indices stay below 2^20: more layers than that is not a model. */
static long name_index(const char *s, const char *rest)
{
    long v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
        return -1;
    for (; *p >= '0' && *p <= '9'; ++p) {
        v = v * 10 + (*p - '0');
        if (v >= (1L << 20))
            return -1;
    }
    return strcmp(p, rest) == 0 ? v : -1;
}

static long dumb_index(const char *name)
{
    static const char prefix[] = "blocks.";
    if (strncmp(name, prefix, sizeof prefix - 1) != 0)
        return -1;
    return name_index(name + sizeof prefix - 1, ".net.0.weight");
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The layers by the names of the post's model or of an nn.Sequential. */
static int specs_from_names(const cp_st_file *f, enum cp_arch_kind kind, struct layer_spec **out,
                            int *n_out)
{
    long *idx = malloc((f->n ? f->n : 1) * sizeof *idx);
    if (!idx)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory");
    int n = 0;
    for (size_t i = 0; i < f->n; ++i) {
        long v =
            kind == CP_ARCH_DUMB ? dumb_index(f->t[i].name) : name_index(f->t[i].name, ".weight");
        if (v >= 0)
            idx[n++] = v;
    }
    int st = CP_OK;
    struct layer_spec *s = NULL;
    if (n == 0) {
        st = cp_err_set(CP_FAIL_USAGE, "%s: no tensor named %s", f->name,
                        kind == CP_ARCH_DUMB ? "blocks.N.net.0.weight (the post's model)"
                                             : "N.weight (an nn.Sequential)");
        goto out;
    }
    qsort(idx, (size_t)n, sizeof *idx, cmp_long);
    if (kind == CP_ARCH_DUMB && idx[n - 1] != n - 1) {
        long missing = 0;
        while (missing < n && idx[missing] == missing)
            missing++;
        st = cp_err_set(CP_FAIL_USAGE,
                        "%s: blocks.%ld.net.0.weight is missing: the blocks must be numbered 0 "
                        "to %d",
                        f->name, missing, n - 1);
        goto out;
    }
    s = calloc((size_t)n, sizeof *s);
    if (!s) {
        st = cp_err_set(CP_FAIL_RUNTIME, "out of memory");
        goto out;
    }
    for (int l = 0; l < n; ++l) {
        char wn[64], bn[64];
        if (kind == CP_ARCH_DUMB) {
            snprintf(wn, sizeof wn, "blocks.%ld.net.0.weight", idx[l]);
            snprintf(bn, sizeof bn, "blocks.%ld.net.0.bias", idx[l]);
        } else {
            snprintf(wn, sizeof wn, "%ld.weight", idx[l]);
            snprintf(bn, sizeof bn, "%ld.bias", idx[l]);
        }
        s[l].w = cp_st_find(f, wn);
        s[l].b = cp_st_find(f, bn);
        s[l].act = kind == CP_ARCH_DUMB || l + 1 < n ? CP_ACT_RELU : CP_ACT_NONE;
        s[l].residual = kind == CP_ARCH_DUMB;
    }
    *out = s;
    *n_out = n;
    s = NULL;
out:
    free(s);
    free(idx);
    return st;
}

/* The layers from the metadata key clparity.arch (tools/export_torch.py). */
static int specs_from_metadata(const cp_st_file *f, struct layer_spec **out, int *n_out)
{
    int st = CP_OK;
    struct layer_spec *s = NULL;
    cJSON *root = cJSON_Parse(f->arch);
    const cJSON *layers = root ? cJSON_GetObjectItemCaseSensitive(root, "layers") : NULL;
    const cJSON *ver = root ? cJSON_GetObjectItemCaseSensitive(root, "version") : NULL;
    if (!cJSON_IsObject(root) || !cJSON_IsArray(layers) || !cJSON_IsNumber(ver)) {
        st = cp_err_set(CP_FAIL_USAGE,
                        "%s: metadata clparity.arch is not a JSON object with \"version\" and "
                        "\"layers\"",
                        f->name);
        goto out;
    }
    if (ver->valuedouble != 1.0) {
        st = cp_err_set(CP_FAIL_USAGE,
                        "%s: metadata clparity.arch: version %g, this clparity "
                        "reads version 1",
                        f->name, ver->valuedouble);
        goto out;
    }
    int n = cJSON_GetArraySize(layers);
    if (n <= 0) {
        st = cp_err_set(CP_FAIL_USAGE, "%s: metadata clparity.arch lists no layer", f->name);
        goto out;
    }
    s = calloc((size_t)n, sizeof *s);
    if (!s) {
        st = cp_err_set(CP_FAIL_RUNTIME, "out of memory");
        goto out;
    }
    int l = 0;
    for (const cJSON *it = layers->child; it; it = it->next, ++l) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(it, "weight");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(it, "bias");
        const cJSON *act = cJSON_GetObjectItemCaseSensitive(it, "act");
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(it, "residual");
        bool act_ok = cJSON_IsString(act) && (strcmp(act->valuestring, "relu") == 0 ||
                                              strcmp(act->valuestring, "none") == 0);
        if (!cJSON_IsString(w) || !(cJSON_IsNull(b) || cJSON_IsString(b)) || !act_ok ||
            !cJSON_IsBool(res)) {
            st = cp_err_set(CP_FAIL_USAGE,
                            "%s: metadata clparity.arch, layer %d: needs \"weight\" (a name), "
                            "\"bias\" (a name or null), \"act\" (\"relu\" or \"none\") and "
                            "\"residual\" (true or false)",
                            f->name, l);
            goto out;
        }
        s[l].w = cp_st_find(f, w->valuestring);
        if (!s[l].w) {
            st =
                cp_err_set(CP_FAIL_USAGE, "%s: metadata clparity.arch, layer %d: no tensor '%.80s'",
                           f->name, l, w->valuestring);
            goto out;
        }
        if (cJSON_IsString(b)) {
            s[l].b = cp_st_find(f, b->valuestring);
            if (!s[l].b) {
                st = cp_err_set(CP_FAIL_USAGE,
                                "%s: metadata clparity.arch, layer %d: no tensor '%.80s'", f->name,
                                l, b->valuestring);
                goto out;
            }
        }
        s[l].act = strcmp(act->valuestring, "relu") == 0 ? CP_ACT_RELU : CP_ACT_NONE;
        s[l].residual = cJSON_IsTrue(res);
    }
    *out = s;
    *n_out = n;
    s = NULL;
out:
    free(s);
    cJSON_Delete(root);
    return st;
}

#define MAX_FILE_WIDTH (1 << 24)

int cp_model_from_safetensors(cp_model *m, const cp_st_file *f, const cp_arch_opts *a,
                              const char **from)
{
    memset(m, 0, sizeof *m);
    struct layer_spec *s = NULL;
    int n = 0, st;
    enum cp_arch_kind kind = a->kind;
    if (kind == CP_ARCH_AUTO && f->arch) {
        st = specs_from_metadata(f, &s, &n);
        *from = "the metadata clparity.arch";
    } else {
        if (kind == CP_ARCH_AUTO) {
            kind = CP_ARCH_MLP;
            for (size_t i = 0; i < f->n; ++i)
                if (dumb_index(f->t[i].name) >= 0)
                    kind = CP_ARCH_DUMB;
            bool any = kind == CP_ARCH_DUMB;
            for (size_t i = 0; i < f->n && !any; ++i)
                any = name_index(f->t[i].name, ".weight") >= 0;
            if (!any)
                return cp_err_set(CP_FAIL_USAGE,
                                  "%s: cannot tell the architecture: no metadata clparity.arch "
                                  "and no tensor named blocks.N.net.0.weight or N.weight; pass "
                                  "--arch dumb|mlp",
                                  f->name);
            *from = kind == CP_ARCH_DUMB ? "the tensor names (the post's model)"
                                         : "the tensor names (an nn.Sequential MLP)";
        } else {
            *from = "--arch";
        }
        st = specs_from_names(f, kind, &s, &n);
    }
    if (st != CP_OK)
        return st;
    /* The flags override, layer by layer. */
    for (int l = 0; l < n; ++l) {
        if (a->act >= 0 && (l + 1 < n || kind == CP_ARCH_DUMB))
            s[l].act = (enum cp_act)a->act;
        if (a->residual >= 0)
            s[l].residual =
                a->residual && s[l].w->ndim == 2 && s[l].w->shape[0] == s[l].w->shape[1];
    }
    if (a->act >= 0 || a->residual >= 0)
        *from = a->kind != CP_ARCH_AUTO ? "--arch, --act and --residual"
                                        : (a->act >= 0 && a->residual >= 0 ? "--act and --residual"
                                           : a->act >= 0                   ? "--act"
                                                                           : "--residual");
    /* Shapes, dtypes and the chain of widths. */
    size_t total = 0;
    for (int l = 0; l < n; ++l) {
        const cp_st_tensor *w = s[l].w, *b = s[l].b;
        if (w->dtype != CP_ST_F32 || (b && b->dtype != CP_ST_F32)) {
            const cp_st_tensor *bad = w->dtype != CP_ST_F32 ? w : b;
            st = cp_err_set(CP_FAIL_USAGE, "%s: tensor '%.80s' is %s, where F32 is needed", f->name,
                            bad->name, cp_st_dtype_name(bad->dtype));
            goto out;
        }
        if (w->ndim != 2 || w->shape[0] == 0 || w->shape[1] == 0 || w->shape[0] > MAX_FILE_WIDTH ||
            w->shape[1] > MAX_FILE_WIDTH) {
            st = cp_err_set(CP_FAIL_USAGE,
                            "%s: layer %d: weight '%.80s' must be 2-D [out, in] with sizes in "
                            "[1, %d]",
                            f->name, l, w->name, MAX_FILE_WIDTH);
            goto out;
        }
        if (b && (b->ndim != 1 || b->shape[0] != w->shape[0])) {
            st = cp_err_set(CP_FAIL_USAGE, "%s: layer %d: bias '%.80s' must be 1-D [%zu]", f->name,
                            l, b->name, w->shape[0]);
            goto out;
        }
        if (l > 0 && w->shape[1] != s[l - 1].w->shape[0]) {
            st = cp_err_set(CP_FAIL_USAGE,
                            "%s: layer %d ('%.80s') takes %zu inputs, but layer %d gives %zu",
                            f->name, l, w->name, w->shape[1], l - 1, s[l - 1].w->shape[0]);
            goto out;
        }
        if (s[l].residual && w->shape[0] != w->shape[1]) {
            st = cp_err_set(CP_FAIL_USAGE,
                            "%s: layer %d: a residual needs in == out, not %zu -> %zu", f->name, l,
                            w->shape[1], w->shape[0]);
            goto out;
        }
        total += w->count + (b ? b->count : 0);
        if (total > SIZE_MAX / sizeof(float) / 2) {
            st = cp_err_set(CP_FAIL_USAGE, "%s: too many parameters", f->name);
            goto out;
        }
    }
    m->layers = calloc((size_t)n, sizeof *m->layers);
    m->params = malloc((total ? total : 1) * sizeof(float));
    if (!m->layers || !m->params) {
        st = cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory for %zu parameters", f->name, total);
        goto out;
    }
    m->n_layers = n;
    m->n_params = total;
    size_t off = 0;
    for (int l = 0; l < n && st == CP_OK; ++l) {
        cp_layer *L = &m->layers[l];
        L->out = (int)s[l].w->shape[0];
        L->in = (int)s[l].w->shape[1];
        L->w_off = off;
        st = cp_st_get_f32(f, s[l].w, m->params + off);
        off += s[l].w->count;
        L->has_bias = s[l].b != NULL;
        if (L->has_bias && st == CP_OK) {
            L->b_off = off;
            st = cp_st_get_f32(f, s[l].b, m->params + off);
            off += s[l].b->count;
        }
        L->act = s[l].act;
        L->residual = s[l].residual;
        if (L->in > m->max_width)
            m->max_width = L->in;
        if (L->out > m->max_width)
            m->max_width = L->out;
    }
    m->in_width = m->layers[0].in;
    m->out_width = m->layers[n - 1].out;
    m->d = m->in_width;
out:
    free(s);
    if (st != CP_OK)
        cp_model_free(m);
    return st;
}

static bool same_kind(const cp_layer *a, const cp_layer *b)
{
    return a->in == b->in && a->out == b->out && a->has_bias == b->has_bias && a->act == b->act &&
           a->residual == b->residual;
}

/* Runs of identical layers are written once with a count: "8 x [64→64 relu +x]". */
void cp_model_describe(const cp_model *m, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int l = 0; l < m->n_layers && pos + 1 < len;) {
        const cp_layer *L = &m->layers[l];
        int run = 1;
        while (l + run < m->n_layers && same_kind(L, &m->layers[l + run]))
            run++;
        char one[96];
        snprintf(one, sizeof one, "%d→%d%s%s%s", L->in, L->out, L->has_bias ? " +bias" : "",
                 L->act == CP_ACT_RELU ? " relu" : "", L->residual ? " +residual" : "");
        int k = run > 1 ? snprintf(buf + pos, len - pos, "%s%d x [%s]", l ? ", " : "", run, one)
                        : snprintf(buf + pos, len - pos, "%s%s", l ? ", " : "", one);
        if (k < 0 || (size_t)k >= len - pos)
            break;
        pos += (size_t)k;
        l += run;
    }
}

int cp_model_load(const char *path, const cp_arch_opts *a, cp_model *m, const char **from,
                  char sha256[65])
{
    cp_st_file f;
    int st = cp_st_read(path, &f);
    if (st == CP_OK)
        st = cp_model_from_safetensors(m, &f, a, from);
    if (st == CP_OK && sha256)
        cp_sha256_hex(f.owned, f.file_size, sha256);
    cp_st_free(&f);
    return st;
}

cp_model *cp_model_new(void)
{
    cp_model *m = calloc(1, sizeof *m);
    if (!m)
        cp_err_set(CP_FAIL_RUNTIME, "out of memory for a model");
    return m;
}

int cp_model_add_layer(cp_model *m, int in, int out, const float *w, const float *b, int act,
                       bool residual)
{
    int l = m->n_layers;
    if (in <= 0 || out <= 0 || in > 1 << 20 || out > 1 << 20)
        return cp_err_set(CP_FAIL_USAGE, "layer %d: sizes %d -> %d out of range", l, in, out);
    if (l > 0 && m->layers[l - 1].out != in)
        return cp_err_set(CP_FAIL_USAGE, "layer %d takes %d inputs, but layer %d gives %d", l, in,
                          l - 1, m->layers[l - 1].out);
    if (residual && in != out)
        return cp_err_set(CP_FAIL_USAGE, "layer %d: a residual needs in == out, not %d -> %d", l,
                          in, out);
    if (act != CP_ACT_NONE && act != CP_ACT_RELU)
        return cp_err_set(CP_FAIL_USAGE, "layer %d: unknown activation %d", l, act);
    size_t nw = (size_t)in * (size_t)out, nb = b ? (size_t)out : 0;
    cp_layer *layers = realloc(m->layers, (size_t)(l + 1) * sizeof *layers);
    if (layers)
        m->layers = layers;
    float *params = layers ? realloc(m->params, (m->n_params + nw + nb) * sizeof *params) : NULL;
    if (!params)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory for layer %d", l);
    m->params = params;
    cp_layer *L = &m->layers[l];
    memset(L, 0, sizeof *L);
    L->in = in;
    L->out = out;
    L->w_off = m->n_params;
    memcpy(m->params + L->w_off, w, nw * sizeof *w);
    L->has_bias = b != NULL;
    if (b) {
        L->b_off = L->w_off + nw;
        memcpy(m->params + L->b_off, b, nb * sizeof *b);
    }
    L->act = (enum cp_act)act;
    L->residual = residual;
    m->n_params += nw + nb;
    m->n_layers = l + 1;
    m->in_width = m->layers[0].in;
    m->out_width = out;
    m->max_width = in > m->max_width ? in : m->max_width;
    m->max_width = out > m->max_width ? out : m->max_width;
    m->d = m->in_width;
    return CP_OK;
}

void cp_model_delete(cp_model *m)
{
    if (!m)
        return;
    cp_model_free(m);
    free(m);
}
