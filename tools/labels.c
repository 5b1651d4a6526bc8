/* With --labels: accuracy per device × engine, the prediction-agreement matrix, and the
 * inputs whose predicted class differs between two results, with the top-2 margins that
 * explain a flip (a margin near zero: two classes almost tie, and rounding decides). */
#include "labels.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* At most this many flipped inputs are printed; the JSON lists them all. */
#define FLIPS_SHOWN 20

struct lab_col {
    char id[24];
    char label[300];
    const char *engine;
    enum cp_dtype dtype;
    const void *y;
};

struct lab {
    size_t n, rows, cols;
    struct lab_col *c;
    int *pred;      /* n × rows: argmax, -1 when the row is all NaN */
    double *margin; /* n × rows: top1 - top2 (NaN when there is no second class) */
    size_t *correct;
};

static double value_at(const struct lab_col *c, size_t i)
{
    return c->dtype == CP_F64 ? ((const double *)c->y)[i] : (double)((const float *)c->y)[i];
}

/* The first largest value wins; NaNs are passed over. */
static void row_pred(const struct lab_col *c, size_t row, size_t cols, int *pred, double *margin)
{
    int best = -1;
    double top = -INFINITY, second = -INFINITY;
    for (size_t k = 0; k < cols; ++k) {
        double v = value_at(c, row * cols + k);
        if (isnan(v))
            continue;
        if (best < 0 || v > top) {
            if (best >= 0)
                second = top;
            top = v;
            best = (int)k;
        } else if (v > second) {
            second = v;
        }
    }
    *pred = best;
    *margin = best >= 0 && cols > 1 && second > -INFINITY ? top - second : NAN;
}

static void lab_free(struct lab *l)
{
    free(l->c);
    free(l->pred);
    free(l->margin);
    free(l->correct);
}

/* The job's results, plus the reference when host:f64 was not listed. */
static int lab_build(const struct labels_in *j, struct lab *l)
{
    memset(l, 0, sizeof *l);
    size_t nres = j->nres;
    const double *ref = j->ref;
    l->rows = j->rows;
    l->cols = j->cols;
    bool ref_listed = false;
    for (size_t i = 0; i < nres; ++i)
        ref_listed = ref_listed || j->res[i].y == (const void *)ref;
    size_t n = nres + (ref && !ref_listed ? 1 : 0);
    l->c = calloc(n ? n : 1, sizeof *l->c);
    size_t cells = n * l->rows + 1;
    l->pred = malloc(cells * sizeof *l->pred);
    l->margin = malloc(cells * sizeof *l->margin);
    l->correct = calloc(n ? n : 1, sizeof *l->correct);
    if (!l->c || !l->pred || !l->margin || !l->correct) {
        lab_free(l);
        return CP_FAIL_RUNTIME;
    }
    for (size_t i = 0; i < nres; ++i) {
        const cp_job_result *r = &j->res[i];
        if (r->error[0])
            continue; /* it failed: no predictions */
        struct lab_col *c = &l->c[l->n++];
        snprintf(c->id, sizeof c->id, "R%zu", i + 1);
        cp_device_label(r->dev, c->label, sizeof c->label);
        c->engine = r->eng->name;
        c->dtype = r->eng->dtype;
        c->y = r->y;
    }
    if (n > nres) {
        struct lab_col *c = &l->c[l->n++];
        snprintf(c->id, sizeof c->id, "ref");
        snprintf(c->label, sizeof c->label, "host");
        c->engine = "host:f64";
        c->dtype = CP_F64;
        c->y = ref;
    }
    for (size_t i = 0; i < l->n; ++i)
        for (size_t r = 0; r < l->rows; ++r) {
            size_t at = i * l->rows + r;
            row_pred(&l->c[i], r, l->cols, &l->pred[at], &l->margin[at]);
            l->correct[i] += l->pred[at] >= 0 && (int64_t)l->pred[at] == j->labels[r];
        }
    return CP_OK;
}

static double agreement(const struct lab *l, size_t a, size_t b)
{
    size_t same = 0;
    for (size_t r = 0; r < l->rows; ++r)
        same += l->pred[a * l->rows + r] == l->pred[b * l->rows + r];
    return l->rows ? (double)same / (double)l->rows : 1.0;
}

/* The first pair of results that disagree on row r, or false when all agree. */
static bool flip_pair(const struct lab *l, size_t r, size_t *a, size_t *b)
{
    for (size_t i = 0; i < l->n; ++i)
        for (size_t k = i + 1; k < l->n; ++k)
            if (l->pred[i * l->rows + r] != l->pred[k * l->rows + r]) {
                *a = i;
                *b = k;
                return true;
            }
    return false;
}

/* "class 3", or "no class (all NaN)" for a row without a number. */
static void class_str(int pred, char *buf, size_t len)
{
    if (pred < 0)
        snprintf(buf, len, "no class (all NaN)");
    else
        snprintf(buf, len, "class %d", pred);
}

int labels_print(FILE *f, const struct labels_in *j)
{
    if (!j->labels)
        return CP_OK;
    struct lab l;
    if (lab_build(j, &l) != CP_OK)
        return cli_fail(j->cmd, CP_FAIL_RUNTIME, "out of memory for the accuracy report");
    fprintf(f, "\naccuracy (%zu labelled inputs, %s; predicted class = argmax of the outputs):\n",
            l.rows, j->file);
    for (size_t i = 0; i < l.n; ++i)
        fprintf(f, "  %-4s %-36.36s %-14s %.6f  (%zu/%zu)\n", l.c[i].id, l.c[i].label,
                l.c[i].engine, l.rows ? (double)l.correct[i] / (double)l.rows : 0.0, l.correct[i],
                l.rows);
    fprintf(f, "prediction agreement (fraction of inputs with the same predicted class):\n");
    fprintf(f, "      ");
    for (size_t k = 0; k < l.n; ++k)
        fprintf(f, " %9s", l.c[k].id);
    fprintf(f, "\n");
    for (size_t i = 0; i < l.n; ++i) {
        fprintf(f, "  %-4s", l.c[i].id);
        for (size_t k = 0; k < l.n; ++k)
            fprintf(f, " %9.6f", agreement(&l, i, k));
        fprintf(f, "\n");
    }
    size_t flips = 0;
    for (size_t r = 0; r < l.rows; ++r) {
        size_t a, b;
        if (!flip_pair(&l, r, &a, &b))
            continue;
        if (flips == 0)
            fprintf(f, "flips (inputs whose predicted class differs between two results; margin = "
                       "top-1 minus top-2 output of that result):\n");
        if (flips < FLIPS_SHOWN) {
            char ca[48], cb[48];
            class_str(l.pred[a * l.rows + r], ca, sizeof ca);
            class_str(l.pred[b * l.rows + r], cb, sizeof cb);
            fprintf(
                f, "  input %zu (label %lld): %s %s %s (margin %.3g) vs %s %s %s (margin %.3g)\n",
                r, (long long)j->labels[r], l.c[a].id, l.c[a].engine, ca, l.margin[a * l.rows + r],
                l.c[b].id, l.c[b].engine, cb, l.margin[b * l.rows + r]);
        }
        flips++;
    }
    if (flips > FLIPS_SHOWN)
        fprintf(f, "  ... %zu more (--json lists them all)\n", flips - FLIPS_SHOWN);
    fprintf(f, "flips: %zu of %zu inputs change class between some two results\n", flips, l.rows);
    lab_free(&l);
    return CP_OK;
}

void *labels_json(const struct labels_in *j)
{
    if (!j->labels)
        return NULL;
    struct lab l;
    if (lab_build(j, &l) != CP_OK)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON *acc = o ? cJSON_AddArrayToObject(o, "accuracy") : NULL;
    if (!acc) {
        cJSON_Delete(o);
        lab_free(&l);
        return NULL;
    }
    cJSON_AddStringToObject(o, "file", j->file);
    cJSON_AddNumberToObject(o, "count", (double)l.rows);
    for (size_t i = 0; i < l.n; ++i) {
        cJSON *a = cJSON_CreateObject();
        if (!a)
            break;
        cJSON_AddStringToObject(a, "id", l.c[i].id);
        cJSON_AddStringToObject(a, "device", l.c[i].label);
        cJSON_AddStringToObject(a, "engine", l.c[i].engine);
        cJSON_AddNumberToObject(a, "correct", (double)l.correct[i]);
        cJSON_AddNumberToObject(a, "accuracy",
                                l.rows ? (double)l.correct[i] / (double)l.rows : 0.0);
        cp_json_push(acc, a);
    }
    cJSON *ag = cJSON_AddObjectToObject(o, "agreement");
    cJSON *ids = ag ? cJSON_AddArrayToObject(ag, "ids") : NULL;
    cJSON *mat = ag ? cJSON_AddArrayToObject(ag, "matrix") : NULL;
    for (size_t i = 0; ids && mat && i < l.n; ++i) {
        cp_json_push(ids, cJSON_CreateString(l.c[i].id));
        cJSON *row = cJSON_CreateArray();
        for (size_t k = 0; row && k < l.n; ++k)
            cp_json_push(row, cJSON_CreateNumber(agreement(&l, i, k)));
        cp_json_push(mat, row);
    }
    cJSON *flips = cJSON_AddArrayToObject(o, "flips");
    for (size_t r = 0; flips && r < l.rows; ++r) {
        size_t a, b;
        if (!flip_pair(&l, r, &a, &b))
            continue;
        cJSON *fl = cJSON_CreateObject();
        if (!fl)
            break;
        cJSON_AddNumberToObject(fl, "index", (double)r);
        cJSON_AddNumberToObject(fl, "label", (double)j->labels[r]);
        cJSON *cls = cJSON_AddArrayToObject(fl, "classes");
        cJSON *mar = cJSON_AddArrayToObject(fl, "margins");
        for (size_t i = 0; cls && mar && i < l.n; ++i) {
            cp_json_push(cls, cJSON_CreateNumber(l.pred[i * l.rows + r]));
            double m = l.margin[i * l.rows + r];
            cp_json_push(mar, isfinite(m) ? cJSON_CreateNumber(m) : cJSON_CreateNull());
        }
        cp_json_push(flips, fl);
    }
    lab_free(&l);
    return o;
}

struct labels_in labels_of_job(const struct job *j)
{
    struct labels_in in = {
        .cmd = j->cmd,
        .file = j->o.labels,
        .labels = j->labels,
        .rows = (size_t)cp_job_get_opts(j->cj)->batch,
        .cols = (size_t)cp_job_model(j->cj)->out_width,
        .res = cp_job_result_at(j->cj, 0),
        .nres = cp_job_result_count(j->cj),
        .ref = cp_job_reference(j->cj),
    };
    return in;
}
