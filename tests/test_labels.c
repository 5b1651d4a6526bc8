/* tools/labels: accuracy, the prediction-agreement matrix and the flipped inputs, on results
 * whose classes are known: two float32 results and the float64 reference over 4 inputs of 3
 * classes, where input 1 flips (a near tie) and input 3 is all NaN in one result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "labels.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *report(const struct labels_in *j)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(labels_print(f, j), CP_OK);
    fclose(f);
    return buf;
}

static void test_labels(void **state)
{
    (void)state;
    /* rows: input 0 class 2 everywhere; input 1 class 0 in A (margin 1e-6), class 1 in B and
     * the reference; input 2 class 1 everywhere; input 3 all NaN in B. */
    static float a[12] = {0, 1, 5, 2.000001f, 2, -1, 0, 3, 1, 4, 0, 0};
    static float b[12] = {0, 1, 5, 2, 2.000001f, -1, 0, 3, 1, NAN, NAN, NAN};
    static double ref[12] = {0, 1, 5, 2, 2.0000005, -1, 0, 3, 1, 4, 0, 0};
    static int64_t labels[4] = {2, 1, 1, 0};
    cp_device host;
    memset(&host, 0, sizeof host);
    host.kind = CP_DEV_HOST;
    host.plat_idx = host.dev_idx = -1;
    cp_job_result res[2];
    memset(res, 0, sizeof res);
    res[0].dev = res[1].dev = &host;
    res[0].eng = cp_engine_find("host:exact");
    res[1].eng = cp_engine_find("host:openblas");
    res[0].y = a;
    res[1].y = b;
    struct labels_in j = {.cmd = "test",
                          .file = "y.npy",
                          .labels = labels,
                          .rows = 4,
                          .cols = 3,
                          .res = res,
                          .nres = 2,
                          .ref = ref};

    char *out = report(&j);
    fprintf(stderr, "%s", out);
    /* A: inputs 0 (2), 2 (1), 3 (0) right = 3/4; B: 0, 1, 2 right, 3 NaN = 3/4; ref: 4/4 */
    assert_non_null(strstr(out, "accuracy (4 labelled inputs, y.npy"));
    assert_non_null(strstr(out, "host:exact     0.750000  (3/4)"));
    assert_non_null(strstr(out, "host:openblas  0.750000  (3/4)"));
    assert_non_null(
        strstr(out, "ref  host                                 host:f64       1.000000  (4/4)"));
    /* agreement: A-B differ on inputs 1 and 3 (0.5); A-ref on 1 (0.75); B-ref on 3 (0.75) */
    assert_non_null(strstr(out, "  R1    1.000000  0.500000  0.750000"));
    assert_non_null(strstr(out, "  R2    0.500000  1.000000  0.750000"));
    assert_non_null(strstr(out, "input 1 (label 1): R1 host:exact class 0 (margin 9.54e-07) vs R2 "
                                "host:openblas class 1 (margin 9.54e-07)"));
    assert_non_null(strstr(out, "input 3 (label 0): R1 host:exact class 0 (margin 4) vs R2 "
                                "host:openblas no class (all NaN) (margin nan)"));
    assert_non_null(strstr(out, "flips: 2 of 4 inputs"));
    free(out);

    cJSON *js = labels_json(&j);
    assert_non_null(js);
    cJSON *flips = cJSON_GetObjectItem(js, "flips");
    assert_int_equal(cJSON_GetArraySize(flips), 2);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(flips, 0), "index")->valueint, 1);
    cJSON *acc = cJSON_GetObjectItem(js, "accuracy");
    assert_int_equal(cJSON_GetArraySize(acc), 3);
    assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(acc, 2), "accuracy")->valuedouble == 1.0);
    cJSON_Delete(js);

    /* Without labels there is nothing to print. */
    j.labels = NULL;
    out = report(&j);
    assert_string_equal(out, "");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_labels)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
