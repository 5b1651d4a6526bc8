/* clparity train's parts: tools/cmd_train.c (options, preparing, the training loop) and
 * tools/train_out.c (the tables and the JSON, CSV, --save and plot files). */
#ifndef CLPARITY_TRAIN_CLI_H
#define CLPARITY_TRAIN_CLI_H

#include "clparity/device.h"
#include "clparity/model.h"
#include "clparity/train.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CMD "train"

struct opts {
    char **sels;
    size_t nsel;
    const char *engines, *json, *csv, *save, *model, *plot;
    bool shape_set; /* --d-model, --layers or --init-scale given */
    long d, layers, batch, steps, every;
    uint64_t seed;
    double init_scale, lr;
    bool target_zeros, allow_slow;
};

struct result {
    const cp_device *dev;
    const char *engine;
    cp_trainer *tr;
    void *w; /* current weights, n_params of the dtype */
    double loss;
    uint64_t max_ulp_base; /* over the recorded steps */
    long first_div;        /* first recorded step that differs from the baseline; 0: none */
    void *y_rt;
    int roundtrip;    /* 1 ok, 0 failed */
    int forward_base; /* cl:own: the round trip's output equals host:exact's; -1 n/a */
    uint64_t hash;
    /* seconds in cp_trainer_step (each ends with the loss on the host): the first step (a
     * driver may compile kernels at their first launch), and the sum over the others */
    double first_s, step_s;
};

struct rec {
    long step;
    size_t res;
    double loss, base_abs, base_bitwise, f64_abs;
    uint64_t base_ulp, f64_ulp;
};

struct train {
    struct opts o;
    cp_devlist devs;
    bool *chosen;
    cp_model m;
    float *x, *t;
    struct result *r;
    size_t nr, base, ref; /* indices of host:exact and host:f64 */
    struct rec *recs;
    size_t nrecs, caprecs;
    char build_options[128];
    const char *arch_from;
    char model_sha256[65];
};

/* "1:0 pthread-..." or "host". */
void train_label(const struct result *r, char *buf, size_t len);

/* Output (train_out.c). */
void train_print_tables(FILE *f, const struct train *T);
int train_write_json(const struct train *T);
int train_write_csv(const struct train *T);
int train_save(const struct train *T);
int train_write_plot(const struct train *T);

#endif
