#include "clparity/metrics.h"

#include "clparity/error.h"
#include "clparity/report.h"
#include "metrics-impl.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t cp_ulp_dist(float a, float b)
{
    return cp_ulp_dist_inl(a, b);
}

uint64_t cp_hash_fnv1a_more(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; ++i) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

uint64_t cp_hash_fnv1a(const void *data, size_t len)
{
    return cp_hash_fnv1a_more(CP_FNV1A_INIT, data, len);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static size_t row_argmax_f32(const float *v, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (v[i] > v[best] || (isnan(v[best]) && !isnan(v[i])))
            best = i;
    return best;
}

static size_t row_argmax_f64(const double *v, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (v[i] > v[best] || (isnan(v[best]) && !isnan(v[i])))
            best = i;
    return best;
}

int cp_metrics_compute(const float *a, const double *r, size_t rows, size_t cols, bool equal_nan,
                       cp_metrics *m)
{
    size_t n = rows * cols;
    memset(m, 0, sizeof *m);
    m->n = n;
    m->rows = rows;
    uint64_t *ulps = malloc((n ? n : 1) * sizeof *ulps);
    if (!ulps)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory computing metrics (%zu elements)", n);
    size_t nulps = 0, equal = 0;
    double ref_max = 0.0, diff2 = 0.0, ref2 = 0.0;
    bool have_worst = false;
    for (size_t i = 0; i < n; ++i) {
        float ai = a[i];
        double ri = r[i];
        float r32 = (float)ri;
        if (isnan(ai))
            m->nan++;
        else if (isinf(ai))
            m->inf++;
        if (isnan(ai) || isnan(r32)) {
            if (isnan(ai) && isnan(r32) && equal_nan)
                equal++;
            else
                m->nan_mismatch++;
            continue;
        }
        if (memcmp(&ai, &r32, sizeof ai) == 0)
            equal++;
        uint64_t u = cp_ulp_dist(ai, r32);
        ulps[nulps++] = u;
        if (!have_worst || u > m->max_ulp) {
            m->max_ulp = u;
            m->worst = i;
            m->worst_a = ai;
            m->worst_r = ri;
            have_worst = true;
        }
        if (isinf(ai) || isinf(ri))
            continue; /* norms of non-finite pairs mean nothing; they are counted above */
        double d = fabs((double)ai - ri);
        if (d > m->max_abs)
            m->max_abs = d;
        if (ri != 0.0 && d / fabs(ri) > m->max_rel)
            m->max_rel = d / fabs(ri);
        if (fabs(ri) > ref_max)
            ref_max = fabs(ri);
        diff2 += d * d;
        ref2 += ri * ri;
    }
    m->rel_to_max = ref_max > 0.0 ? m->max_abs / ref_max : (m->max_abs > 0.0 ? INFINITY : 0.0);
    m->norm_rel = ref2 > 0.0 ? sqrt(diff2) / sqrt(ref2) : (diff2 > 0.0 ? INFINITY : 0.0);
    m->bitwise = n ? (double)equal / (double)n : 1.0;
    m->compared = nulps;
    if (nulps) {
        qsort(ulps, nulps, sizeof *ulps, cmp_u64);
        m->median_ulp = nulps % 2 ? (double)ulps[nulps / 2]
                                  : 0.5 * ((double)ulps[nulps / 2 - 1] + (double)ulps[nulps / 2]);
    }
    free(ulps);
    size_t agree = 0;
    for (size_t row = 0; row < rows && cols; ++row)
        agree += row_argmax_f32(a + row * cols, cols) == row_argmax_f64(r + row * cols, cols);
    m->argmax = rows ? (double)agree / (double)rows : 1.0;
    return CP_OK;
}

void cp_metrics_pair(const float *a, const float *b, size_t n, double *bitwise, uint64_t *max_ulp)
{
    size_t equal = 0;
    uint64_t mu = 0;
    for (size_t i = 0; i < n; ++i) {
        if (memcmp(&a[i], &b[i], sizeof a[i]) == 0) {
            equal++;
            continue;
        }
        if (isnan(a[i]) || isnan(b[i]))
            continue;
        uint64_t u = cp_ulp_dist(a[i], b[i]);
        if (u > mu)
            mu = u;
    }
    *bitwise = n ? (double)equal / (double)n : 1.0;
    *max_ulp = mu;
}

const char *cp_preset_name(enum cp_preset p)
{
    switch (p) {
    case CP_PRESET_TORCH:
        return "torch";
    case CP_PRESET_CLBLAST:
        return "clblast";
    case CP_PRESET_BITWISE:
        return "bitwise";
    case CP_PRESET_CR:
        return "cr";
    }
    return "unknown";
}

bool cp_preset_close(enum cp_preset p, float a, double r, bool equal_nan)
{
    double ad = (double)a;
    if (isnan(ad) || isnan(r))
        return isnan(ad) && isnan(r) && equal_nan;
    if (isinf(ad) || isinf(r))
        return ad == r;
    double diff = fabs(ad - r);
    switch (p) {
    case CP_PRESET_TORCH:
        return diff <= 1e-5 + 1.3e-6 * fabs(r);
    case CP_PRESET_CLBLAST:
        return diff < 1e-3 || diff / (fabs(ad) + fabs(r)) < 0.005;
    case CP_PRESET_BITWISE:
    case CP_PRESET_CR:
        return memcmp(&a, &(float){(float)r}, sizeof a) == 0;
    }
    return false;
}

size_t cp_preset_mismatches(enum cp_preset p, const float *a, const double *r, const float *b,
                            size_t n, bool equal_nan)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (p != CP_PRESET_BITWISE && p != CP_PRESET_CR) {
            bad += !cp_preset_close(p, a[i], r[i], equal_nan);
            continue;
        }
        if (p == CP_PRESET_CR)
            bad += memcmp(&a[i], &b[i], sizeof a[i]) != 0 &&
                   !(equal_nan && isnan(a[i]) && isnan(b[i]));
        else if (isnan(a[i]) && isnan(b[i]))
            bad += !equal_nan;
        else
            bad += memcmp(&a[i], &b[i], sizeof a[i]) != 0;
    }
    return bad;
}

void cp_metrics_json_fill(void *obj, const cp_metrics *m, double base_bitwise)
{
    cJSON_AddNumberToObject(obj, "compared", (double)m->compared);
    cp_json_add_num_or_null(obj, "max_ulp", m->compared ? (double)m->max_ulp : NAN);
    cp_json_add_num_or_null(obj, "median_ulp", m->compared ? m->median_ulp : NAN);
    cp_json_add_num_or_null(obj, "max_abs", m->max_abs);
    cp_json_add_num_or_null(obj, "max_rel", m->max_rel);
    cp_json_add_num_or_null(obj, "rel_to_max", m->rel_to_max);
    cp_json_add_num_or_null(obj, "norm_rel", m->norm_rel);
    cJSON_AddNumberToObject(obj, "bitwise", m->bitwise);
    if (!isnan(base_bitwise))
        cJSON_AddNumberToObject(obj, "baseline_bitwise", base_bitwise);
    cJSON_AddNumberToObject(obj, "argmax", m->argmax);
    cJSON_AddNumberToObject(obj, "nan", (double)m->nan);
    cJSON_AddNumberToObject(obj, "inf", (double)m->inf);
    cJSON_AddNumberToObject(obj, "nan_mismatch", (double)m->nan_mismatch);
}
