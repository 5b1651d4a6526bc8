/* clparity sweep's --plot: the gnuplot script of the sweep's median wall times. */
#include "cli.h"
#include "sweep.h"

#include <stdbool.h>
#include <stdio.h>

/* The blog post's plot: median wall time against the varied parameter, log axes, one line
 * per device x engine. gnuplot reads the script on its stdin and writes a temporary file,
 * renamed when it succeeded. */
int sweep_write_plot(const struct sweep *s)
{
    const struct sweep_opts *o = &s->o;
    struct cli_plot pl;
    int st = cli_plot_open("sweep", o->plot, &pl);
    if (st != CP_OK)
        return st;
    FILE *gp = pl.gp;
    char title[256];
    switch (o->vary) {
    case VARY_BATCH:
        snprintf(title, sizeof title, "time against batch (d = %ld, L = %ld)", o->d, o->layers);
        break;
    case VARY_WIDTH:
        snprintf(title, sizeof title, "time against width d (L = %ld, B = %ld)", o->layers,
                 o->batch);
        break;
    case VARY_DEPTH:
        snprintf(title, sizeof title, "time against depth L (d = %ld, B = %ld)", o->d, o->batch);
        break;
    default:
        snprintf(title, sizeof title,
                 "time against width d at %.0f parameters (L = params/d², B = %ld)", o->params,
                 o->batch);
        break;
    }
    fprintf(gp, "\nset title ");
    cli_gp_quoted(gp, title);
    fprintf(gp, "\nset xlabel ");
    cli_gp_quoted(gp, o->vary == VARY_BATCH   ? "batch size B"
                      : o->vary == VARY_DEPTH ? "layers L"
                                              : "width d");
    fprintf(gp, "\nset ylabel \"median wall time (ms)\"\n"
                "set logscale xy\nset grid xtics ytics mxtics mytics\n"
                "set key below\nset pointsize 1\n");
    /* One data block per series with at least one finished point. */
    size_t nplot = 0;
    for (size_t k = 0; k < s->nser; ++k) {
        bool any = false;
        for (size_t i = 0; i < s->nrows; ++i)
            any = any || (s->rows[i].series == k && s->rows[i].status == ROW_OK);
        if (!any)
            continue;
        fprintf(gp, "$s%zu << EOD\n", k);
        for (size_t i = 0; i < s->nrows; ++i) {
            const struct row *r = &s->rows[i];
            if (r->series == k && r->status == ROW_OK)
                fprintf(gp, "%ld %.9g\n", s->pts[r->point].x, 1e3 * r->wall.median);
        }
        fprintf(gp, "EOD\n");
        nplot++;
    }
    if (nplot == 0) {
        /* Nothing finished: an empty frame says so rather than no file at all. */
        fprintf(gp, "set label 1 \"no finished results\" at graph 0.5, graph 0.5 center\n"
                    "unset logscale\nplot [0:1] [0:1] NaN notitle\n");
    } else {
        fprintf(gp, "plot ");
        const char *sep = "";
        for (size_t k = 0; k < s->nser; ++k) {
            bool any = false;
            for (size_t i = 0; i < s->nrows; ++i)
                any = any || (s->rows[i].series == k && s->rows[i].status == ROW_OK);
            if (!any)
                continue;
            char name[400];
            sweep_series_name(s, k, name, sizeof name);
            fprintf(gp, "%s$s%zu using 1:2 with linespoints lw 2 title ", sep, k);
            cli_gp_quoted(gp, name);
            sep = ", \\\n     ";
        }
        fprintf(gp, "\n");
    }
    return cli_plot_close("sweep", &pl);
}
