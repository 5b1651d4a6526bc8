/* clparity sweep's parts (tools/cmd_sweep.c: options and the command; sweep_grid.c: the grid
 * and its points; sweep_run.c: running them; sweep_out.c: the table, the crossovers and the
 * JSON and CSV files; sweep_plot.c: the plot). */
#ifndef CLPARITY_SWEEP_H
#define CLPARITY_SWEEP_H

#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/model.h"
#include "clparity/peak.h"
#include "clparity/report.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum vary { VARY_BATCH, VARY_WIDTH, VARY_DEPTH, VARY_PARAMS, N_VARY };
extern const char *const vary_names[N_VARY];
/* What the crossover lines call the varied value. */
extern const char *const vary_symbol[N_VARY];

#define DEFAULT_PARAMS 2147483648.0 /* 2^31, the blog post's budget */
#define QUICK_PARAMS 1048576.0      /* 2^20 */
/* --rounds' default: the one number that the code, --help and docs/COMMANDS.md give. */
#define SWEEP_ROUNDS_DEFAULT 10
#define SWEEP_STR_(x) #x
#define SWEEP_STR(x) SWEEP_STR_(x)

struct sweep_opts {
    char **sels;
    size_t nsel;
    const char *engines;
    int vary;
    const char *grid;
    bool quick;
    long d, layers, batch;
    bool d_set, layers_set, batch_set;
    double params;
    bool params_set;
    uint64_t seed;
    double init_scale;
    long runs, warmup; /* runs 0: adaptive (cp_runs_more) */
    double min_time;
    long rounds; /* the grid is run this many times over (cp_runs_more_round) */
    bool runs_set, warmup_set, min_time_set, rounds_set;
    const char *json, *csv, *plot;
    bool allow_slow;
};

struct point {
    long d, layers, batch;
    long x; /* the varied value: batch, d, L or (params) d */
};

struct series {
    const cp_device *dev;
    size_t dev_index; /* into the device list, for its peak */
    const cp_engine_info *eng;
};

enum row_status { ROW_OK, ROW_REFUSED, ROW_ERROR };
extern const char *const row_status_names[3];

/* A result whose first round's median forward takes this long (seconds) or longer runs in the
 * first round only: each of its runs spans the changes that the later rounds would catch. */
#define SWEEP_LONG_FORWARD 1.0

struct row {
    size_t point, series;
    enum row_status status;
    char reason[320]; /* refused: "<size> > <limit> (<which>)"; error: the message */
    char detail[512]; /* refused: the full message of the check */
    double macs;
    cp_stats wall, e2e;
    double kernel_median; /* < 0: n/a */
    double gflops;
    double pct_peak;       /* < 0: n/a */
    bool pct_peak_suspect; /* pct_peak above 100: the peak was measured too low (sweep_pct_note) */
    /* The rounds: each one's median wall time, and while the sweep runs, every run so far. */
    double round_median[CP_ROUNDS_MAX];
    size_t round_runs[CP_ROUNDS_MAX];
    size_t nround;
    double *t; /* wall, e2e and kernel times, cap runs each (NULL once the row is done) */
    size_t k, cap;
    bool kernel_known;
    bool printed;
};

/* A point's model and input, made in round 0 and kept for the later rounds (sweep_run.c). */
struct kept {
    cp_model m;
    float *x;
    bool made;        /* m and x hold the point's model and input */
    bool consecutive; /* beyond SWEEP_KEEP_BYTES: all the point's rounds ran in round 0 */
};
/* The weights and inputs that a sweep keeps for its rounds; beyond, a point runs its rounds
 * one after the other. */
#define SWEEP_KEEP_BYTES (1ULL << 30)

struct sweep {
    struct sweep_opts o;
    cp_devlist devs;
    bool *chosen;
    bool *use;
    cp_peak *peaks; /* per device */
    struct point *pts;
    size_t npts;
    struct series *ser;
    size_t nser;
    struct row *rows;
    size_t nrows;
    size_t rounds;     /* the rounds that run: --rounds, or fewer with --runs below it */
    struct kept *kept; /* per point */
    unsigned long long kept_bytes; /* what the kept points hold */
    FILE *out;                     /* the table */
    bool interrupted;
    int status;              /* 3 when a result failed at run time */
    char build_options[512]; /* the last OpenCL engine's, for the provenance */
};

/* Set by SIGINT or SIGTERM: the sweep stops after the current run. */
extern volatile sig_atomic_t sweep_stop_signal;

/* The grid (sweep_grid.c): the points, the engines, the series (device x engine). */
int sweep_make_points(struct sweep *s);
int sweep_choose_engines(struct sweep *s);
int sweep_make_series(struct sweep *s);

/* Running (sweep_run.c): every series at point pi in round `round` (0-based): round 0 makes
 * the point's rows (and refuses what does not fit); each round adds its block of runs; the
 * last round (s->rounds - 1) sets the statistics and prints each row as it finishes. */
void sweep_run_point(struct sweep *s, size_t round, size_t pi, size_t *done);
/* After a signal: the rows whose first round finished get the statistics of the runs they
 * have (rows without any are dropped), and are printed if they were not. */
void sweep_finish_rows(struct sweep *s);
/* Frees what the rows hold while the sweep runs. */
void sweep_free_rows(struct sweep *s);

/* Output (sweep_out.c). */
void sweep_print_intro(const struct sweep *s);
void sweep_print_header(FILE *out);
void sweep_print_row(const struct sweep *s, const struct row *r);
void sweep_print_crossovers(const struct sweep *s);
/* After the table: what '!' on a % of peak above 100 means, when a row has it. */
void sweep_print_pct_note(const struct sweep *s);
int sweep_write_json(const struct sweep *s);
/* Test hook "sweep-times:FILE": the rows' times replaced by FILE's (sweep_out.c); CP_OK
 * without the hook. */
int sweep_test_times(struct sweep *s);
int sweep_write_csv(const struct sweep *s);
/* "cl:own on 0:0 NVIDIA H100": series i's engine and device, as the crossovers and the plot
 * name it. */
void sweep_series_name(const struct sweep *s, size_t i, char *buf, size_t len);
/* sweep_plot.c */
int sweep_write_plot(const struct sweep *s);

#endif
