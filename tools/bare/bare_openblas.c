/* bare_openblas: the reference model as a plain OpenBLAS loop, for tools/bench --cpu's
 * "bare OpenBLAS" column. Per layer one cblas_sgemm(RowMajor, NoTrans, Trans) on all of
 * OpenBLAS's threads (cblas_sgemv at batch 1), then the epilogue (ReLU, residual) on one
 * thread, as a user who calls the library directly would write it. Not a test and not part of
 * clparity: a yardstick for host:openblas.
 *
 *   bare_openblas D LAYERS BATCH RUNS WARMUP
 *
 * prints one line: median_s min_s max_s threads core hash (FNV-1a of the last output). */
#include "clparity/metrics.h"
#include "clparity/model.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void forward(const cp_model *m, int batch, float *a, float *b, float *z)
{
    int d = m->d;
    for (int l = 0; l < m->n_layers; ++l) {
        const float *w = m->params + m->layers[l].w_off;
        if (batch == 1)
            cblas_sgemv(CblasRowMajor, CblasNoTrans, d, d, 1.0f, w, d, a, 1, 0.0f, z, 1);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, d, d, 1.0f, a, d, w, d,
                        0.0f, z, d);
        for (size_t i = 0; i < (size_t)batch * (size_t)d; ++i)
            b[i] = a[i] + ((z[i] <= 0.0f) ? 0.0f : z[i]);
        float *t = a;
        a = b;
        b = t;
    }
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bare_openblas D LAYERS BATCH RUNS WARMUP\n");
        return 2;
    }
    int d = atoi(argv[1]), layers = atoi(argv[2]), batch = atoi(argv[3]);
    int runs = atoi(argv[4]), warmup = atoi(argv[5]);
    if (d < 1 || layers < 1 || batch < 1 || runs < 1 || warmup < 0) {
        fprintf(stderr, "bare_openblas: bad arguments\n");
        return 2;
    }
    cp_model m;
    float *x = NULL;
    if (cp_model_builtin(&m, d, layers, 1337, 1.0f) != 0 ||
        cp_model_input(batch, d, 1337, &x) != 0) {
        fprintf(stderr, "bare_openblas: model or input: out of memory\n");
        return 3;
    }
    size_t n = (size_t)batch * (size_t)d;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *z = malloc(n * sizeof *z);
    double *t = malloc((size_t)runs * sizeof *t);
    if (!a || !b || !z || !t) {
        fprintf(stderr, "bare_openblas: out of memory\n");
        return 3;
    }
    for (int i = 0; i < warmup + runs; ++i) {
        memcpy(a, x, n * sizeof *a);
        double t0 = now();
        forward(&m, batch, a, b, z);
        if (i >= warmup)
            t[i - warmup] = now() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    const float *y = layers % 2 ? b : a;
    printf("%.9f %.9f %.9f %d %s %016llx\n", t[runs / 2], t[0], t[runs - 1],
           openblas_get_num_threads(), openblas_get_corename(),
           (unsigned long long)cp_hash_fnv1a(y, n * sizeof *y));
    free(a);
    free(b);
    free(z);
    free(t);
    free(x);
    cp_model_free(&m);
    return 0;
}
