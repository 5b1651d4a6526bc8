/* run's and compare's outputs: --out, --save and --json (job_write_files), the timing table, and
 * --csv and --plot: one CSV row per device × engine with its timings and its metrics against
 * host:f64, and a plot of both. */
#include "cli.h"
#include "csv.h"
#include "labels.h"
#include "run_job.h"

#include "clparity/compare.h"
#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns of one row, or their names (header): each column is named once, beside the
 * value it takes, so that a new field (the timing statistics of issue 22's point 1, say) is
 * one line here. */
struct cols {
    struct text *t;
    bool header;
};

static void col_str(struct cols *c, const char *name, const char *v)
{
    csv_field(c->t, c->header ? name : v, false);
}

/* A number; NaN or a negative value is an empty field (unknown, n/a). */
static void col_num(struct cols *c, const char *name, double v)
{
    if (c->header)
        csv_field(c->t, name, false);
    else
        csv_num(c->t, v, false);
}

static void col_tristate(struct cols *c, const char *name, int v)
{
    col_str(c, name, v > 0 ? "1" : v == 0 ? "0" : "");
}

/* Result i of the job: r, and for compare its comparison (metrics against host:f64, the
 * baseline, the round trip). NULL r: the header. */
static void job_csv_columns(struct cols *c, const struct job *j, const cp_job_result *r,
                            const cp_comparison *cmp, size_t i)
{
    char label[300] = "", tag[32] = "", hash[32] = "";
    bool ok = r && !r->error[0];
    if (r) {
        cp_device_label(r->dev, label, sizeof label);
        cp_device_tag(r->dev, tag, sizeof tag);
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long)r->hash);
    }
    /* Metrics: a float32 result's, against host:f64, when the job has the reference. */
    const cp_metrics *m = NULL;
    if (ok && r->eng->dtype == CP_F32 && cp_job_reference(j->cj))
        m = cmp ? cp_comparison_metrics(cmp, i) : &r->m;
    bool known = m && m->compared;
    double na = NAN;
    col_str(c, "device", label);
    col_str(c, "device_id", tag);
    col_str(c, "engine", r ? r->eng->name : "");
    col_str(c, "dtype", r ? cp_dtype_descr(r->eng->dtype) : "");
    col_str(c, "routine", ok ? r->routine : ""); /* what ran: the JSON's "routine" */
    col_str(c, "status", ok ? "ok" : "error");
    col_str(c, "error", ok || !r ? "" : r->error);
    /* The timing statistics (clparity/report.h, cp_stats), named and ordered as in sweep's
     * CSV: runs is the count timed (adaptive unless --runs fixed it). */
    const cp_stats *w = ok ? &r->wall : NULL;
    col_num(c, "runs", w ? (double)w->n : na);
    col_num(c, "warmup", (double)j->o.warmup);
    col_num(c, "wall_median_s", w ? w->median : na);
    col_num(c, "wall_min_s", w ? w->min : na);
    col_num(c, "wall_max_s", w ? w->max : na);
    col_num(c, "wall_mean_s", w ? w->mean : na);
    col_num(c, "wall_sd_s", w ? w->sd : na);
    col_num(c, "wall_p10_s", w ? w->p10 : na);
    col_num(c, "wall_p90_s", w ? w->p90 : na);
    col_num(c, "wall_ci_low_s", w ? w->ci_lo : na);
    col_num(c, "wall_ci_high_s", w ? w->ci_hi : na);
    col_num(c, "measured_s", w ? w->total : na);
    col_str(c, "noisy", !w ? "" : cp_stats_mark(w)[0] ? "1" : "0");
    col_num(c, "kernel_median_s", ok ? r->kernel_median : na);
    col_num(c, "h2d_median_s", ok ? r->h2d_median : na);
    col_num(c, "d2h_median_s", ok ? r->d2h_median : na);
    col_num(c, "build_s", ok ? r->build_s : na);
    long batch = cp_job_get_opts(j->cj)->batch; /* as --input set it */
    double macs = cp_model_macs(cp_job_model(j->cj), (int)batch);
    col_num(c, "batch", (double)batch);
    col_num(c, "gflops", ok && r->wall.median > 0.0 ? 2.0 * macs / r->wall.median / 1e9 : na);
    col_str(c, "hash", ok ? hash : "");
    col_tristate(c, "deterministic", ok ? r->deterministic : -1);
    col_tristate(c, "roundtrip", ok ? r->roundtrip : -1);
    col_num(c, "compared", m ? (double)m->compared : na);
    col_num(c, "max_ulp", known ? (double)m->max_ulp : na);
    col_num(c, "median_ulp", known ? m->median_ulp : na);
    col_num(c, "max_abs", m ? m->max_abs : na);
    col_num(c, "max_rel", m ? m->max_rel : na);
    col_num(c, "rel_to_max", m ? m->rel_to_max : na);
    col_num(c, "norm_rel", m ? m->norm_rel : na);
    col_num(c, "bitwise", m ? m->bitwise : na);
    col_num(c, "baseline_bitwise", m && cmp ? cp_comparison_baseline_bitwise(cmp, i) : na);
    /* against host:cr (compare): NaN, an empty cell, where there is none */
    double crb = m && cmp ? cp_comparison_cr_bitwise(cmp, i) : na;
    col_num(c, "cr_bitwise", crb);
    col_num(c, "cr_max_ulp", isnan(crb) ? na : (double)cp_comparison_cr_ulp(cmp, i));
    col_num(c, "argmax", m ? m->argmax : na);
    col_num(c, "nan", m ? (double)m->nan : na);
    col_num(c, "inf", m ? (double)m->inf : na);
    /* The row ends here: the last comma becomes the line's end. */
    if (!c->t->oom && c->t->n && c->t->p[c->t->n - 1] == ',')
        c->t->p[c->t->n - 1] = '\n';
}

static int write_csv(const struct job *j, const cp_comparison *cmp)
{
    struct text t = {0}, head = {0};
    struct cols c = {&head, true};
    job_csv_columns(&c, j, NULL, cmp, 0);
    if (head.oom) {
        free(head.p);
        return cli_fail(j->cmd, CP_FAIL_RUNTIME, "--csv: out of memory");
    }
    text_add(&head, "%c", '\0'); /* a string for csv_begin */
    csv_begin(&t, cp_provenance_json(""), head.p);
    free(head.p);
    c = (struct cols){&t, false};
    for (size_t i = 0; i < cp_job_result_count(j->cj); ++i)
        job_csv_columns(&c, j, cp_job_result_at(j->cj, i), cmp, i);
    return csv_write(j->cmd, j->o.csv, &t);
}

/* Two panels, one bar per device × engine: the median wall time with an error bar from the
 * fastest to the slowest run (log scale), and the max ULP against host:f64. */
static int write_plot(const struct job *j, const cp_comparison *cmp)
{
    struct cli_plot pl;
    int st = cli_plot_open(j->cmd, j->o.plot, &pl);
    if (st != CP_OK)
        return st;
    FILE *gp = pl.gp;
    size_t n = cp_job_result_count(j->cj), shown = 0;
    bool ref = cp_job_reference(j->cj) != NULL;
    fprintf(gp, "$t << EOD\n");
    for (size_t i = 0; i < n; ++i) {
        const cp_job_result *r = cp_job_result_at(j->cj, i);
        if (r->error[0])
            continue;
        const cp_metrics *m =
            r->eng->dtype == CP_F32 && ref ? (cmp ? cp_comparison_metrics(cmp, i) : &r->m) : NULL;
        char label[300], dev[32];
        cp_device_label(r->dev, label, sizeof label);
        snprintf(dev, sizeof dev, "%.16s", label); /* cut short: the tic has two lines */
        /* gnuplot's data: index, time ms, min, max, max ULP (NaN: none), engine, device */
        fprintf(gp, "%zu %.9g %.9g %.9g ", shown, 1e3 * r->wall.median, 1e3 * r->wall.min,
                1e3 * r->wall.max);
        if (m && m->compared)
            fprintf(gp, "%llu ", (unsigned long long)m->max_ulp);
        else
            fprintf(gp, "NaN ");
        cli_gp_quoted(gp, r->eng->name);
        fprintf(gp, " ");
        cli_gp_quoted(gp, dev);
        fprintf(gp, "\n");
        shown++;
    }
    fprintf(gp, "EOD\n");
    if (shown == 0) {
        fprintf(gp, "set label 1 \"no finished results\" at graph 0.5, graph 0.5 center\n"
                    "plot [0:1] [0:1] NaN notitle\n");
        return cli_plot_close(j->cmd, &pl);
    }
    char title[300], runs[160];
    job_runs_text(&j->o, runs, sizeof runs);
    snprintf(title, sizeof title, "clparity %s: %s, batch %ld", j->cmd, runs,
             cp_job_get_opts(j->cj)->batch);
    /* The tic: the engine over its device. */
    fprintf(gp, "TIC = 'sprintf(\"%%s\\n%%s\", strcol(6), strcol(7))'\n");
    fprintf(gp, "set multiplot layout 2,1 title ");
    cli_gp_quoted(gp, title);
    fprintf(gp,
            "\nset xrange [-0.6:%zu.6]\nset grid ytics\nunset key\nset xtics noenhanced\n"
            "set style fill solid 0.4\nset boxwidth 0.6\nset bmargin 3.5\n"
            "set ylabel \"wall time (ms): median, min to max\"\nset logscale y\n"
            "plot $t using 1:2:xtic(@TIC) with boxes lc rgb \"#4477aa\", "
            "$t using 1:2:3:4 with yerrorbars lc rgb \"black\" pt 7 ps 0.5\n"
            "unset logscale y\nset yrange [0:*]\nset offsets 0, 0, graph 0.15, 0\n"
            "set ylabel \"max ULP against host:f64\"\n",
            shown - 1);
    if (!ref)
        fprintf(gp, "set label 1 \"no reference (--no-reference): no ULP\" at graph 0.5, "
                    "graph 0.5 center\nplot $t using 1:(NaN):xtic(@TIC) notitle\n");
    else
        fprintf(gp, "plot $t using 1:5:xtic(@TIC) with boxes lc rgb \"#aa3377\", "
                    "$t using 1:5:(sprintf(\"%%.0f\", $5)) with labels offset 0,0.7\n");
    fprintf(gp, "unset multiplot\n");
    return cli_plot_close(j->cmd, &pl);
}

int job_write_tables(const struct job *j, const cp_comparison *cmp)
{
    int st = CP_OK;
    if (j->o.csv)
        st = write_csv(j, cmp);
    if (st == CP_OK && j->o.plot)
        st = write_plot(j, cmp);
    return st;
}
/* --out, --save, then --json, each as asked. */
int job_write_files(const struct job *j, bool (*add)(void *root, const struct job *j, void *ctx),
                    void *ctx)
{
    int st = CP_OK;
    if (j->o.out && cp_job_result_count(j->cj) == 1 && !cp_job_failed_count(j->cj)) {
        st = cp_job_write_output(j->cj, 0, j->o.out);
        if (st != CP_OK)
            return cli_fail(j->cmd, st, "--out: %s", cp_err_msg());
    }
    if (j->o.save) {
        cp_save *s;
        st = cp_save_begin(j->o.save, &s);
        if (st != CP_OK)
            return cli_fail(j->cmd, st, "%s", cp_err_msg());
        st = cp_job_save_files(j->cj, cp_save_dir(s));
        if (st == CP_OK && j->save_more && (st = j->save_more(j, cp_save_dir(s), j->save_ctx))) {
            cp_save_abort(s, st); /* save_more printed its problem */
            return cli_fail(j->cmd, st, "--save: %s is left as it was", j->o.save);
        }
        st = st == CP_OK ? cp_save_commit(s) : cp_save_abort(s, st);
        if (st != CP_OK)
            return cli_fail(j->cmd, st, "%s", cp_err_msg());
    }
    if (!j->o.json)
        return CP_OK;
    cJSON *root = job_json(j);
    if (root)
        cJSON_AddStringToObject(root, "command", j->cmd);
    if (root && add && !add(root, j, ctx)) {
        cJSON_Delete(root);
        root = NULL;
    }
    return cli_write_json(j->cmd, "--json", j->o.json, root);
}

void *job_json(const struct job *j)
{
    cJSON *root = cp_job_json(j->cj);
    struct labels_in lab = labels_of_job(j);
    if (root && j->labels)
        cp_json_add(root, "labels", labels_json(&lab));
    return root;
}

void job_runs_text(const struct job_opts *o, char *buf, size_t len)
{
    if (o->runs > 0)
        snprintf(buf, len, "%ld run%s after %ld warm-up", o->runs, o->runs == 1 ? "" : "s",
                 o->warmup);
    else
        snprintf(buf, len,
                 "adaptive runs (at least %d and %g s timed per result, at most %d) after %ld "
                 "warm-up",
                 CP_RUNS_MIN, o->min_time, CP_RUNS_MAX, o->warmup);
}

int job_print_speed(FILE *out, const struct job *j)
{
    size_t n = cp_job_result_count(j->cj);
    const cp_stats **st = calloc(n + 1, sizeof *st);
    const char **nm = calloc(n + 1, sizeof *nm);
    char(*names)[400] = calloc(n + 1, sizeof *names);
    if (st && nm && names) {
        for (size_t i = 0; i < n; ++i) {
            const cp_job_result *r = cp_job_result_at(j->cj, i);
            char label[300];
            cp_device_label(r->dev, label, sizeof label);
            snprintf(names[i], sizeof names[i], "%s on %s", r->eng->name, label);
            nm[i] = names[i];
            st[i] = r->error[0] ? NULL : &r->wall;
        }
        cp_timing_print(out, st, nm, n);
    }
    int rc = st && nm && names
                 ? CP_OK
                 : cli_fail(j->cmd, CP_FAIL_RUNTIME,
                            "the report is incomplete: out of memory printing the timing table");
    free(st);
    free(nm);
    free(names);
    return rc;
}
