/* cl:own's training step on one OpenCL device, without the host references that `clparity
 * train` always runs: for each CLPARITY_TRAIN_KERNELS way named, the mean ms per step over
 * `steps` steps (after 2 warm-up steps; each step reads the output back for the loss, as train
 * does) and a hash (FNV-1a 64) of the weights after warm-up + steps steps: equal hashes are the
 * same bits. Built against build/libclparity.so by gpu.sh:
 *   train_time DEVICE-SUBSTRING d L B sgd|adam steps WAY...
 * prints one line per way: "way=W d=.. L=.. B=.. opt=.. ms/step=X hash=H". Exit 1 on an error. */
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
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: train_time DEVICE d L B sgd|adam steps WAY...\n");
        return 2;
    }
    int d = atoi(argv[2]), L = atoi(argv[3]), B = atoi(argv[4]), steps = atoi(argv[6]);
    bool adam = strcmp(argv[5], "adam") == 0;
    cp_devlist dl;
    if (cp_devlist_enumerate(&dl) != CP_OK) {
        fprintf(stderr, "train_time: %s\n", cp_err_msg());
        return 1;
    }
    const cp_device *dev = NULL;
    for (size_t i = 0; i < dl.n && !dev; ++i)
        if (dl.v[i].kind == CP_DEV_OPENCL && strstr(dl.v[i].name, argv[1]))
            dev = &dl.v[i];
    if (!dev) {
        fprintf(stderr, "train_time: no OpenCL device named '%s'\n", argv[1]);
        return 1;
    }
    cp_model m;
    float *x = NULL;
    if (cp_model_builtin(&m, d, L, 1337, 0.5f) != CP_OK || cp_model_input(B, d, 1337, &x) != CP_OK) {
        fprintf(stderr, "train_time: %s\n", cp_err_msg());
        return 1;
    }
    float *t = calloc((size_t)B * (size_t)d, sizeof *t);
    float *w = malloc(m.n_params * sizeof *w);
    cp_optim o;
    cp_optim_default(adam ? CP_OPTIM_ADAM : CP_OPTIM_SGD, adam ? 1e-4 : 1e-3, &o);
    int rc = 0;
    for (int a = 7; a < argc && t && w; ++a) {
        setenv("CLPARITY_TRAIN_KERNELS", argv[a], 1);
        cp_trainer *tr = NULL;
        double loss = 0.0, t0 = 0.0, t1 = 0.0;
        int st = cp_trainer_create_optim("cl:own", dev, &m, B, x, t, &o, &tr);
        for (int s = 0; st == CP_OK && s < steps + 2; ++s) {
            if (s == 2)
                t0 = now_ms();
            st = cp_trainer_step(tr, &loss);
        }
        t1 = now_ms();
        if (st == CP_OK)
            st = cp_trainer_weights(tr, w);
        if (st != CP_OK) {
            fprintf(stderr, "train_time: way %s: %s\n", argv[a], cp_err_msg());
            rc = 1;
        } else {
            uint64_t h = 1469598103934665603ull;
            const unsigned char *p = (const unsigned char *)w;
            for (size_t i = 0; i < m.n_params * sizeof *w; ++i)
                h = (h ^ p[i]) * 1099511628211ull;
            printf("way=%s d=%d L=%d B=%d opt=%s ms/step=%.3f loss=%.6e hash=%016llx\n", argv[a], d,
                   L, B, argv[5], (t1 - t0) / steps, loss, (unsigned long long)h);
            fflush(stdout);
        }
        cp_trainer_destroy(tr);
    }
    free(t);
    free(w);
    free(x);
    cp_model_free(&m);
    cp_devlist_free(&dl);
    return rc;
}
