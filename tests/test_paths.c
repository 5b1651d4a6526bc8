/* runtime/paths: the rule table and the probe's fallback order of cl:own's kernel paths
 * (own_path.c), cl:cr's rule table (cr_cl.c) and the tune candidates of both (the rows'
 * cp_tunable) as pure functions of a made-up device
 * description, model and batch (no OpenCL needed): which path each kind of device gets, and in
 * which order the probe tries the others. The expectations are the choices made before the tables
 * became functions (issue 33): a change to own_rules[] or own_fallbacks[] that moves one of them
 * fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cl-shared-impl.h"

#include <stdio.h>
#include <string.h>

static cp_device make_device(cl_device_type type, bool sim, unsigned cus, cl_ulong max_alloc)
{
    cp_device d;
    memset(&d, 0, sizeof d);
    d.kind = CP_DEV_OPENCL;
    d.type = type;
    d.simulator = sim;
    d.compute_units = cus;
    d.max_alloc = max_alloc;
    return d;
}

/* A GPU as the H100's numbers in own_path.c's comments: 132 compute units. */
static cp_device gpu(void)
{
    return make_device(CL_DEVICE_TYPE_GPU, false, 132, (cl_ulong)20 << 30);
}

/* PoCL on a CPU of cus cores. */
static cp_device pocl(unsigned cus)
{
    return make_device(CL_DEVICE_TYPE_CPU, false, cus, (cl_ulong)4 << 30);
}

/* Oclgrind: a simulator that reports every type. */
static cp_device oclgrind(void)
{
    return make_device(CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR, true,
                       1, (cl_ulong)1 << 30);
}

/* The rule table's path for the reference model of width d, n layers, batch b on dev. */
static const char *rule_path(const cp_device *dev, size_t max_wg, int d, int n, int b)
{
    cp_model m;
    assert_int_equal(cp_model_builtin_shape(&m, d, n, 1337, 1.0f), CP_OK);
    cp_engine e;
    memset(&e, 0, sizeof e);
    e.model = &m;
    e.max_batch = b;
    int p = own_rule_path(&e, dev, max_wg);
    cp_model_free(&m);
    return p >= 0 && (size_t)p < own_n_paths ? own_paths[p]->name : "none";
}

static void test_gpu_rules(void **state)
{
    (void)state;
    cp_device g = gpu();
    assert_string_equal(rule_path(&g, 1024, 128, 128, 1), "reg");
    assert_string_equal(rule_path(&g, 1024, 128, 128, 2048), "reg");
    assert_string_equal(rule_path(&g, 1024, 256, 16, 32), "reg");
    assert_string_equal(rule_path(&g, 1024, 256, 16, 1), "stream");
    assert_string_equal(rule_path(&g, 1024, 1024, 16, 64), "stream");
    assert_string_equal(rule_path(&g, 1024, 1024, 4, 128), "tiled");
    assert_string_equal(rule_path(&g, 1024, 512, 4, 128), "tiled");
    assert_string_equal(rule_path(&g, 1024, 256, 4, 128), "reg");
    /* work-groups of 128: reg up to width 128, then neither stream nor tiled: naive */
    assert_string_equal(rule_path(&g, 128, 128, 16, 1), "reg");
    assert_string_equal(rule_path(&g, 128, 2048, 4, 128), "naive");
}

static void test_pocl_rules(void **state)
{
    (void)state;
    cp_device two = pocl(2), sixteen = pocl(16);
    assert_string_equal(rule_path(&two, 4096, 128, 128, 1), "cpu1");
    assert_string_equal(rule_path(&two, 4096, 128, 128, 16), "cpu1"); /* 4 blocks of 4 rows */
    assert_string_equal(rule_path(&two, 4096, 128, 128, 32), "vec");  /* 8 blocks > 2 a core */
    assert_string_equal(rule_path(&two, 4096, 1024, 16, 1), "cpu");
    assert_string_equal(rule_path(&two, 4096, 1024, 16, 64), "vec");
    assert_string_equal(rule_path(&sixteen, 4096, 128, 128, 1), "cpug");
    assert_string_equal(rule_path(&sixteen, 4096, 128, 128, 32), "cpu1");
}

static void test_simulator_rules(void **state)
{
    (void)state;
    /* Oclgrind claims the CPU type but runs no kernel natively: the GPUs' rules */
    cp_device o = oclgrind();
    assert_string_equal(rule_path(&o, 256, 128, 4, 1), "reg");
    assert_string_equal(rule_path(&o, 256, 512, 4, 1), "stream");
    /* a device of small work-groups gets the reference kernel */
    cp_device acc = make_device(CL_DEVICE_TYPE_ACCELERATOR, false, 4, (cl_ulong)1 << 30);
    assert_string_equal(rule_path(&acc, 64, 128, 4, 1), "naive");
}

/* cl:cr's default variant: the same rule type and matcher, no fits (every variant fits). */
static const char *cr_variant_w(bool cpu, bool f64, int width, int batch, bool one_buffer)
{
    struct cl_rule_input in = {
        .cpu = cpu, .cus = 2, .width = width, .batch = batch, .f64 = f64, .one_buffer = one_buffer};
    return cr_variant_name(cr_rule_variant(&in));
}

static const char *cr_variant(bool cpu, bool f64, int batch, bool one_buffer)
{
    return cr_variant_w(cpu, f64, 128, batch, one_buffer);
}

static void test_cr_rules(void **state)
{
    (void)state;
    assert_string_equal(cr_variant(true, true, 1, true), "cpu1"); /* PoCL */
    assert_string_equal(cr_variant(true, true, 64, true), "cpu1");
    assert_string_equal(cr_variant(true, true, 1, false), "cpu");      /* weights over one buffer */
    assert_string_equal(cr_variant(true, false, 1, true), "f32-item"); /* no fp64 (llvmpipe) */
    assert_string_equal(cr_variant(false, true, 1, true), "stream");   /* a GPU with fp64 */
    assert_string_equal(cr_variant(false, true, 64, true), "stream");
    /* B=65..2048 up to 128 wide in one buffer: gemm's tiles in one launch; else gemm */
    assert_string_equal(cr_variant(false, true, 65, true), "tiles");
    assert_string_equal(cr_variant(false, true, 256, true), "tiles");
    assert_string_equal(cr_variant(false, true, 2048, true), "tiles");
    assert_string_equal(cr_variant(false, true, 2049, true), "gemm");
    assert_string_equal(cr_variant_w(false, true, 129, 65, true), "gemm");
    assert_string_equal(cr_variant(false, true, 65, false), "gemm");
    assert_string_equal(cr_variant(false, true, 32, false), "gemm");
    assert_string_equal(cr_variant(false, true, 16, false), "gemv");
    assert_string_equal(cr_variant(false, false, 128, true), "f32"); /* a GPU without fp64 */
    /* ... at B <= 4 up to 2048 wide in one buffer, f32-stream; past B=256 up to 1024 wide,
     * f32-gemm (one buffer or not) */
    assert_string_equal(cr_variant(false, false, 4, true), "f32-stream");
    assert_string_equal(cr_variant(false, false, 256, true), "f32");
    assert_string_equal(cr_variant(false, false, 257, true), "f32-gemm");
    assert_string_equal(cr_variant(false, false, 257, false), "f32-gemm");
    assert_string_equal(cr_variant_w(false, false, 1024, 4096, true), "f32-gemm");
    assert_string_equal(cr_variant_w(false, false, 1025, 4096, true), "f32");
    assert_string_equal(cr_variant(true, false, 4096, true), "f32-item"); /* CPUs */
}

/* The tune candidates come from the rows (cp_tunables), in tune's order, and every one parses
 * as its engine's settings. */
static void tunables(const char *engine, const cp_device *dev, char *buf, size_t len)
{
    const cp_tunable *tv[16];
    size_t n = cp_tunables(cp_engine_find(engine), dev, tv, 16), at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && at < len; ++i) {
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "", tv[i]->path);
        for (int quick = 0; quick < 2; ++quick)
            for (const char *const *c = quick ? tv[i]->quick_cands : tv[i]->cands; *c; ++c) {
                cp_own_tune t;
                memset(&t, 0, sizeof t);
                int st =
                    strcmp(engine, "cl:cr") == 0 ? cp_cr_tune_check(*c) : cp_tune_parse(*c, &t);
                if (st != CP_OK)
                    fail_msg("%s %s: candidate '%s' does not parse", engine, tv[i]->path, *c);
            }
    }
}

static void test_tune_candidates(void **state)
{
    (void)state;
    cp_device g = gpu(), c = pocl(2), o = oclgrind();
    char buf[128];
    tunables("cl:own", &g, buf, sizeof buf);
    assert_string_equal(buf, "reg,stream,tiled");
    tunables("cl:own", &c, buf, sizeof buf);
    assert_string_equal(buf, "vec");
    tunables("cl:own", &o, buf, sizeof buf); /* a simulator claims the CPU type: tune skips it */
    assert_string_equal(buf, "vec");
    tunables("cl:cr", &g, buf, sizeof buf);
    assert_string_equal(buf, "stream,gemm");
    tunables("cl:cr", &c, buf, sizeof buf);
    assert_string_equal(buf, "cpu1");
    const cp_tunable *tv[16];
    assert_int_equal(cp_tunables(cp_engine_find("cl:own"), &g, tv, 16), 3);
    assert_string_equal(tv[0]->cands[0], "rc=16,rd=2,rg=1");
    assert_int_equal(tv[0]->full.d, 128);
    assert_int_equal(tv[0]->more[0].batch, 256);
}

/* The probe's order as names, comma-separated. */
static void order_names(const cp_device *dev, int first, int dflt, char *buf, size_t len)
{
    int order[OWN_PATHS_MAX + 2];
    int n = own_probe_order(dev, first, dflt, order);
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && at < len; ++i)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "", own_paths[order[i]]->name);
}

static void test_fallback_order(void **state)
{
    (void)state;
    cp_device g = gpu(), c = pocl(2);
    char buf[128];
    order_names(&c, PATH_CPU1, PATH_CPU1, buf, sizeof buf);
    assert_string_equal(buf, "cpu1,cpu,vec,naive");
    order_names(&c, PATH_CPUG, PATH_CPUG, buf, sizeof buf);
    assert_string_equal(buf, "cpug,cpu1,cpu,vec,naive");
    /* CLPARITY_OWN_KERNEL=naive on a CPU: then the device's own choice and what follows it */
    order_names(&c, PATH_NAIVE, PATH_CPUG, buf, sizeof buf);
    assert_string_equal(buf, "naive,cpug,cpu1,cpu,vec");
    order_names(&g, PATH_REG, PATH_REG, buf, sizeof buf);
    assert_string_equal(buf, "reg,stream,tiled,naive");
    order_names(&g, PATH_TILED, PATH_REG, buf, sizeof buf);
    assert_string_equal(buf, "tiled,reg,stream,naive");
    /* a forced path that is in no list (small): first, then the device's choice onwards */
    order_names(&g, PATH_SMALL, PATH_STREAM, buf, sizeof buf);
    assert_string_equal(buf, "small,stream,tiled,naive");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_rules),       cmocka_unit_test(test_pocl_rules),
        cmocka_unit_test(test_simulator_rules), cmocka_unit_test(test_fallback_order),
        cmocka_unit_test(test_cr_rules),        cmocka_unit_test(test_tune_candidates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
