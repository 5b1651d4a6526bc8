/* The comparison as JSON (`compare --json`, `diff --json`, the library's
 * cp_comparison_json): each result with its metrics, the pairwise matrix, the verdicts and the
 * speed verdict. The text report is compare.c's. */
#include "clparity/compare.h"
#include "clparity/error.h"
#include "clparity/report.h"
#include "compare-impl.h"
#include "metrics-impl.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void *speed_json(const cp_comparison *s)
{
    const cp_stats **st;
    const char **nm;
    char(*names)[400];
    if (!cp_comparison_speed_arrays(s, &st, &nm, &names))
        return NULL;
    void *o = cp_speed_json(st, nm, s->n);
    free(names);
    free(st);
    free(nm);
    return o;
}

int cp_comparison_speed_json(const cp_comparison *c, char **out)
{
    return cp_json_text(speed_json(c), out);
}

static void add_tristate(cJSON *o, const char *key, int v)
{
    if (v < 0)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddBoolToObject(o, key, v > 0);
}

void *cp_comparison_json(const cp_comparison *s)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *arr = root ? cJSON_AddArrayToObject(root, "results") : NULL;
    if (!arr) {
        cJSON_Delete(root);
        return NULL;
    }
    char buf[128];
    for (size_t i = 0; i < s->n; ++i) {
        const cp_compare_item *it = &s->v[i];
        cJSON *o = cJSON_CreateObject();
        if (!cp_json_push(arr, o)) /* o NULL, or deleted */
            break;
        snprintf(buf, sizeof buf, "R%zu", i + 1);
        cJSON_AddStringToObject(o, "id", buf);
        cJSON_AddStringToObject(o, "device", it->label);
        cJSON_AddStringToObject(o, "engine", it->engine);
        cJSON_AddStringToObject(o, "dtype", cp_dtype_descr(it->dtype));
        if (failed(it)) { /* its cause, and no numbers */
            cJSON_AddStringToObject(o, "error", it->error);
            continue;
        }
        snprintf(buf, sizeof buf, "%016llx", (unsigned long long)it->hash);
        cJSON_AddStringToObject(o, "hash", buf);
        add_tristate(o, "deterministic", it->deterministic);
        add_tristate(o, "roundtrip", it->roundtrip);
        cJSON *tj = it->wall.n ? cJSON_AddObjectToObject(o, "timing") : NULL;
        if (tj)
            cp_stats_json_add(tj, "wall", &it->wall, true);
        else
            cJSON_AddNullToObject(o, "timing"); /* not timed, or a folder saved without them */
        cJSON_AddBoolToObject(o, "exactness_guaranteed", !it->inexact_device && !it->path_inexact);
        cJSON *inv = cJSON_AddObjectToObject(o, "invariance");
        if (inv) {
            if (it->batch_inv_checked > 0) {
                cJSON_AddNumberToObject(inv, "batch_rows_equal", (double)it->batch_inv_equal);
                cJSON_AddNumberToObject(inv, "batch_rows_checked", (double)it->batch_inv_checked);
            } else {
                cJSON_AddNullToObject(inv, "batch_rows_equal");
                cJSON_AddNullToObject(inv, "batch_rows_checked");
            }
            add_tristate(inv, "threads", it->thread_inv);
        }
        if (!is_f32(it)) {
            cJSON_AddNullToObject(o, "metrics");
            continue;
        }
        const cp_metrics *m = &it->m;
        cJSON *mj = cJSON_AddObjectToObject(o, "metrics");
        if (!mj)
            break;
        cp_metrics_json_fill(mj, m, it->base_bitwise);
        if (!isnan(s->cr_bitwise[i])) {
            cJSON_AddNumberToObject(mj, "cr_bitwise", s->cr_bitwise[i]);
            cJSON_AddNumberToObject(mj, "cr_max_ulp", (double)s->cr_ulp[i]);
        }
        cJSON *w = cJSON_AddObjectToObject(mj, "worst");
        if (w && m->compared) {
            cJSON_AddNumberToObject(w, "index", (double)m->worst);
            cJSON_AddNumberToObject(w, "row", (double)(m->worst / s->cols));
            cJSON_AddNumberToObject(w, "col", (double)(m->worst % s->cols));
            snprintf(buf, sizeof buf, "%a", (double)m->worst_a);
            cJSON_AddStringToObject(w, "value_hex", buf);
            snprintf(buf, sizeof buf, "%.9g", (double)m->worst_a);
            cJSON_AddStringToObject(w, "value", buf);
            snprintf(buf, sizeof buf, "%a", m->worst_r);
            cJSON_AddStringToObject(w, "reference_hex", buf);
            snprintf(buf, sizeof buf, "%.17g", m->worst_r);
            cJSON_AddStringToObject(w, "reference", buf);
        }
        cJSON *pj = cJSON_AddObjectToObject(o, "mismatches");
        for (int p = 0; pj && p < CP_PRESET_COUNT; ++p)
            if (p != CP_PRESET_CR || s->cr_answer) /* cr: against host:cr, where it ran */
                cJSON_AddNumberToObject(pj, cp_preset_name((enum cp_preset)p),
                                        (double)it->mismatches[p]);
    }
    cJSON *pw = cJSON_AddObjectToObject(root, "pairwise");
    cJSON *ids = pw ? cJSON_AddArrayToObject(pw, "ids") : NULL;
    cJSON *bw = pw ? cJSON_AddArrayToObject(pw, "bitwise") : NULL;
    cJSON *mu = pw ? cJSON_AddArrayToObject(pw, "max_ulp") : NULL;
    for (size_t i = 0; ids && bw && mu && i < s->n; ++i) {
        if (!is_f32(&s->v[i]))
            continue;
        snprintf(buf, sizeof buf, "R%zu", i + 1);
        cp_json_push(ids, cJSON_CreateString(buf));
        cJSON *rb = cJSON_CreateArray(), *ru = cJSON_CreateArray();
        for (size_t k = 0; rb && ru && k < s->n; ++k) {
            if (!is_f32(&s->v[k]))
                continue;
            cp_json_push(rb, cJSON_CreateNumber(s->pair_bitwise[i * s->n + k]));
            cp_json_push(ru, cJSON_CreateNumber((double)s->pair_ulp[i * s->n + k]));
        }
        cp_json_push(bw, rb);
        cp_json_push(mu, ru);
    }
    cJSON *vj = cJSON_AddObjectToObject(root, "verdicts");
    for (int p = 0; vj && p < CP_PRESET_COUNT; ++p)
        if (cp_comparison_preset_applies(s, p))
            cJSON_AddBoolToObject(vj, cp_preset_name((enum cp_preset)p),
                                  cp_comparison_verdict(s, p));
        else
            cJSON_AddNullToObject(vj, cp_preset_name((enum cp_preset)p)); /* nothing to judge */
    if (vj)
        cJSON_AddBoolToObject(vj, "checks", cp_comparison_verdict(s, CP_PRESET_COUNT));
    cp_json_add_or_null(root, "speed", speed_json(s)); /* null: fewer than two timed results */
    return root;
}
