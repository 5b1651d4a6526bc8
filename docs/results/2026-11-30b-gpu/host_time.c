/* host trainer step time: host_time ENGINE d L B sgd|adam steps */
#include "clparity/device.h"
#include "clparity/error.h"
#include "clparity/model.h"
#include "clparity/train.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
int main(int argc, char **argv)
{
    if (argc < 7)
        return 2;
    int d = atoi(argv[2]), L = atoi(argv[3]), B = atoi(argv[4]), steps = atoi(argv[6]);
    bool adam = strcmp(argv[5], "adam") == 0;
    cp_devlist dl;
    if (cp_devlist_enumerate(&dl) != CP_OK) {
        fprintf(stderr, "%s\n", cp_err_msg());
        return 1;
    }
    const cp_device *dev = NULL;
    for (size_t i = 0; i < dl.n && !dev; ++i)
        if (dl.v[i].kind == CP_DEV_HOST)
            dev = &dl.v[i];
    cp_model m;
    float *x = NULL;
    if (cp_model_builtin(&m, d, L, 1337, 0.5f) != CP_OK || cp_model_input(B, d, 1337, &x) != CP_OK)
        return 1;
    float *t = calloc((size_t)B * d, sizeof *t);
    double *w = malloc(m.n_params * sizeof *w);
    cp_optim o;
    cp_optim_default(adam ? CP_OPTIM_ADAM : CP_OPTIM_SGD, adam ? 1e-4 : 1e-3, &o);
    cp_trainer *tr = NULL;
    double loss = 0;
    int st = cp_trainer_create_optim(argv[1], dev, &m, B, x, t, &o, &tr);
    double t0 = 0, best = 1e30, tp = 0;
    for (int s = 0; st == CP_OK && s < steps + 3; ++s) {
        if (s == 3)
            t0 = now_ms();
        double a = now_ms();
        st = cp_trainer_step(tr, &loss);
        double e = now_ms() - a;
        if (s >= 3 && e < best)
            best = e;
        tp += 0;
    }
    double t1 = now_ms();
    if (st == CP_OK)
        st = cp_trainer_weights(tr, w);
    if (st != CP_OK) {
        fprintf(stderr, "host_time: %s\n", cp_err_msg());
        return 1;
    }
    uint64_t h = 1469598103934665603ull;
    const unsigned char *p = (const unsigned char *)w;
    size_t nb = m.n_params * (strcmp(argv[1], "host:f64") == 0 ? 8 : 4);
    for (size_t i = 0; i < nb; ++i)
        h = (h ^ p[i]) * 1099511628211ull;
    printf("%s d=%d L=%d B=%d %s ms/step=%.3f min=%.3f hash=%016llx\n", argv[1], d, L, B, argv[5],
           (t1 - t0) / steps, best, (unsigned long long)h);
    cp_trainer_destroy(tr);
    return 0;
}
