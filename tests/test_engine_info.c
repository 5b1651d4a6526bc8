/* runtime/engine_info: the engine registry's traits as data (issue 33): each engine's flags,
 * twin and role as the code that compared names decided them, their consistency, and the
 * footprints (cp_engine_footprint, cp_engine_host_footprint) that the memory checks use, against
 * the numbers the name-comparing code gave. No device needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/compare.h"
#include "clparity/engine.h"

#include <string.h>

/* What the engines were before their traits were data: by_name in select.c, ":cr" suffix in
 * compare.c, the strcmps of compare.c (promises exact), job.c (baseline, cr answer),
 * run_job.c (cl:relaxed: no twin) and sweep_grid.c (cl:own, host:openblas; cl:cr since issue 34).
 */
static const struct {
    const char *name;
    bool by_name, cr, exact;
    const char *twin;
    enum cp_engine_role role;
    bool sweep;
} want[] = {
    {"cl:own", false, false, true, "host:exact", CP_ROLE_NONE, true},
    {"cl:clblast", false, false, false, NULL, CP_ROLE_NONE, false},
    {"cl:relaxed", false, false, false, NULL, CP_ROLE_NONE, false},
    {"host:openblas", false, false, false, NULL, CP_ROLE_NONE, true},
    {"host:exact", false, false, true, NULL, CP_ROLE_BASELINE, false},
    {"host:f64", false, false, false, NULL, CP_ROLE_NONE, false},
    {"host:cr", false, true, false, NULL, CP_ROLE_CR_ANSWER, false},
    {"cl:cr", false, true, false, "host:cr", CP_ROLE_NONE, true},
};

static void test_traits(void **state)
{
    (void)state;
    assert_int_equal(cp_engine_count(), sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        const cp_engine_info *e = cp_engine_at(i);
        assert_non_null(e);
        assert_string_equal(e->name, want[i].name);
        assert_ptr_equal(cp_engine_find(want[i].name), e);
        assert_int_equal(e->by_name, want[i].by_name);
        assert_int_equal(e->correctly_rounded, want[i].cr);
        assert_int_equal(cp_engine_correctly_rounded(e->name), want[i].cr);
        assert_int_equal(cp_engine_promises_exact(e->name), want[i].exact);
        if (want[i].twin)
            assert_string_equal(e->twin, want[i].twin);
        else
            assert_null(e->twin);
        assert_int_equal(e->role, want[i].role);
        assert_int_equal(e->in_sweep, want[i].sweep);
        assert_non_null(e->ops);
    }
    /* a name no engine has has no traits */
    assert_false(cp_engine_correctly_rounded("x:cr"));
    assert_false(cp_engine_promises_exact("x:own"));
}

/* A twin is a registered host engine with the same rounding; one baseline, one cr answer. */
static void test_consistent(void **state)
{
    (void)state;
    int roles[3] = {0, 0, 0};
    for (size_t i = 0; i < cp_engine_count(); ++i) {
        const cp_engine_info *e = cp_engine_at(i);
        ++roles[e->role];
        if (e->role != CP_ROLE_NONE)
            assert_int_equal(e->kind, CP_DEV_HOST);
        if (!e->twin)
            continue;
        const cp_engine_info *t = cp_engine_find(e->twin);
        assert_non_null(t);
        assert_int_equal(t->kind, CP_DEV_HOST);
        assert_int_equal(t->correctly_rounded, e->correctly_rounded);
        assert_int_not_equal(t->role, CP_ROLE_NONE);
    }
    assert_int_equal(roles[CP_ROLE_BASELINE], 1);
    assert_int_equal(roles[CP_ROLE_CR_ANSWER], 1);
}

/* The footprints: width, layers, batch, engine, then the device total, the largest buffer, the
 * host bytes on a CPU device and on a GPU device, as the strcmp chain gave them (main at
 * dbeaee7). */
static const struct {
    int d, layers, batch;
    const char *engine;
    unsigned long long total, largest, host_cpu, host_gpu;
} sizes[] = {
    {128, 128, 1, "cl:own", 16778240ULL, 65536ULL, 25166848ULL, 8388608ULL},
    {128, 128, 1, "cl:clblast", 8390144ULL, 65536ULL, 8390144ULL, 0ULL},
    {128, 128, 1, "cl:relaxed", 16778240ULL, 65536ULL, 25166848ULL, 8388608ULL},
    {128, 128, 1, "host:openblas", 1536ULL, 65536ULL, 1536ULL, 1536ULL},
    {128, 128, 1, "host:exact", 9372672ULL, 65536ULL, 9372672ULL, 9372672ULL},
    {128, 128, 1, "host:f64", 16779264ULL, 131072ULL, 16779264ULL, 16779264ULL},
    {128, 128, 1, "host:cr", 9505792ULL, 65536ULL, 9505792ULL, 9505792ULL},
    {128, 128, 1, "cl:cr", 8520712ULL, 65536ULL, 8520712ULL, 0ULL},
    {64, 16, 7, "cl:own", 527872ULL, 16384ULL, 790016ULL, 262144ULL},
    {64, 16, 7, "cl:clblast", 267520ULL, 16384ULL, 267520ULL, 0ULL},
    {64, 16, 7, "cl:relaxed", 527872ULL, 16384ULL, 790016ULL, 262144ULL},
    {64, 16, 7, "host:openblas", 5376ULL, 16384ULL, 5376ULL, 5376ULL},
    {64, 16, 7, "host:exact", 327168ULL, 16384ULL, 327168ULL, 327168ULL},
    {64, 16, 7, "host:f64", 531456ULL, 32768ULL, 531456ULL, 531456ULL},
    {64, 16, 7, "host:cr", 342528ULL, 16384ULL, 342528ULL, 342528ULL},
    {64, 16, 7, "cl:cr", 273976ULL, 16384ULL, 273976ULL, 0ULL},
    {1000, 3, 33, "cl:own", 24264000ULL, 4000000ULL, 36264000ULL, 12000000ULL},
    {1000, 3, 33, "cl:clblast", 12396000ULL, 4000000ULL, 12396000ULL, 0ULL},
    {1000, 3, 33, "cl:relaxed", 24264000ULL, 4000000ULL, 36264000ULL, 12000000ULL},
    {1000, 3, 33, "host:openblas", 396000ULL, 4000000ULL, 396000ULL, 396000ULL},
    {1000, 3, 33, "host:exact", 12444000ULL, 4000000ULL, 12444000ULL, 12444000ULL},
    {1000, 3, 33, "host:f64", 24528000ULL, 8000000ULL, 24528000ULL, 24528000ULL},
    {1000, 3, 33, "host:cr", 12996000ULL, 4000000ULL, 12996000ULL, 12996000ULL},
    {1000, 3, 33, "cl:cr", 12288264ULL, 4000000ULL, 12288264ULL, 0ULL},
};

static void test_footprints(void **state)
{
    (void)state;
    cp_device cpu, gpu;
    memset(&cpu, 0, sizeof cpu);
    memset(&gpu, 0, sizeof gpu);
    cpu.kind = gpu.kind = CP_DEV_OPENCL;
    cpu.type = CL_DEVICE_TYPE_CPU;
    gpu.type = CL_DEVICE_TYPE_GPU;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        cp_model m;
        assert_int_equal(cp_model_builtin_shape(&m, sizes[i].d, sizes[i].layers, 1, 1.0f), CP_OK);
        const cp_engine_info *e = cp_engine_find(sizes[i].engine);
        assert_non_null(e);
        unsigned long long total, largest;
        cp_engine_footprint(e, &m, sizes[i].batch, &total, &largest);
        if (total != sizes[i].total || largest != sizes[i].largest)
            fail_msg("%s d=%d L=%d B=%d: %llu, %llu bytes; want %llu, %llu", e->name, sizes[i].d,
                     sizes[i].layers, sizes[i].batch, total, largest, sizes[i].total,
                     sizes[i].largest);
        assert_int_equal(cp_engine_host_footprint(e, &cpu, &m, sizes[i].batch), sizes[i].host_cpu);
        assert_int_equal(cp_engine_host_footprint(e, &gpu, &m, sizes[i].batch), sizes[i].host_gpu);
        cp_model_free(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traits),
        cmocka_unit_test(test_consistent),
        cmocka_unit_test(test_footprints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
