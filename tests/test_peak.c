/* runtime/peak: cp_peak_get on the host and on the first OpenCL device (PoCL in ctest): finite,
 * positive values; a second call reads the cache (equal values, fast); remeasure measures; a
 * corrupt or foreign cache file is measured again and replaced; CLPARITY_CACHE=off writes
 * nothing; a simulator has no peak and touches neither OpenCL nor the cache.
 *
 * argv[1] is a scratch folder; each test uses XDG_CACHE_HOME=<argv[1]>/<test>. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/peak.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *scratch;
static cp_devlist devs;
static const cp_device *cl_dev, *host;

static void use_folder(const char *name)
{
    char xdg[3072], cmd[3200];
    snprintf(xdg, sizeof xdg, "%s/%s", scratch, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", xdg);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(setenv("XDG_CACHE_HOME", xdg, 1), 0);
    unsetenv("CLPARITY_CACHE");
    unsetenv("CLPARITY_KERNEL_DIR");
}

static void assert_sound(const cp_device *d, const cp_peak *p)
{
    assert_true(p->available);
    assert_true(isfinite(p->fma_gflops) && p->fma_gflops > 0.0);
    assert_true(isfinite(p->bandwidth_gbs) && p->bandwidth_gbs > 0.0);
    if (d->kind == CP_DEV_HOST)
        assert_true(p->latency_us < 0.0); /* n/a */
    else
        assert_true(isfinite(p->latency_us) && p->latency_us > 0.0);
    assert_int_equal(strlen(p->measured_at), 20); /* 2026-11-23T11:41:13Z */
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* A figure's spread: ordered around its median, from 7 to 21 repetitions (200 launches for
 * the latency), or none at all where the figure is n/a. */
static void assert_spread(const cp_peak_spread *s, double median, int min_reps, int max_reps)
{
    if (median < 0.0) {
        assert_int_equal(s->reps, 0);
        return;
    }
    assert_in_range(s->reps, min_reps, max_reps);
    double slack = 1e-5 * median; /* six significant digits are kept */
    assert_true(s->min > 0.0 && s->min <= s->p10 + slack);
    assert_true(s->p10 <= median + slack && median <= s->p90 + slack);
    assert_true(s->p90 <= s->max + slack);
}

static void assert_spreads(const cp_peak *p)
{
    assert_spread(&p->fma, p->fma_gflops, 7, 21);
    assert_spread(&p->bandwidth, p->bandwidth_gbs, 7, 21);
    assert_spread(&p->latency, p->latency_us, 200, 200);
    assert_true(p->noisy ==
                ((p->fma.p90 - p->fma.p10) / p->fma_gflops > CP_PEAK_NOISY ||
                 (p->bandwidth.p90 - p->bandwidth.p10) / p->bandwidth_gbs > CP_PEAK_NOISY));
}

static void read_text(const char *path, char *text, size_t len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(text, 1, len - 1, f);
    fclose(f);
    text[n] = '\0';
}

/* Replaces the number after "key": (the first after anchor) by value, in place. */
static void set_number(char *text, const char *anchor, const char *key, const char *value)
{
    char *a = strstr(text, anchor);
    assert_non_null(a);
    char *v = strstr(a, key);
    assert_non_null(v);
    v += strlen(key);
    while (*v == ' ' || *v == '\t' || *v == ':')
        v++;
    char *end = v;
    while (*end && strchr("0123456789.eE+-", *end))
        end++;
    char rest[8192];
    snprintf(rest, sizeof rest, "%s", end);
    sprintf(v, "%s%s", value, rest);
}

static void check_device(const cp_device *d, const char *folder)
{
    use_folder(folder);
    cp_peak a, b, c;
    assert_int_equal(cp_peak_get(d, false, &a), CP_OK);
    assert_sound(d, &a);
    assert_false(a.cached);
    assert_string_equal(a.cache_note, "");
    assert_int_equal(access(a.cache_file, R_OK), 0);

    /* The cache: the same numbers, read in a moment. */
    assert_int_equal(cp_peak_get(d, false, &b), CP_OK);
    assert_true(b.cached);
    assert_true(b.seconds < 0.1);
    assert_true(a.fma_gflops == b.fma_gflops && a.bandwidth_gbs == b.bandwidth_gbs &&
                a.latency_us == b.latency_us);
    assert_string_equal(a.measured_at, b.measured_at);
    assert_string_equal(a.cache_file, b.cache_file);
    /* The spread too: measured, and read back the same from the cache. */
    assert_spreads(&a);
    assert_spreads(&b);
    assert_memory_equal(&a.fma, &b.fma, sizeof a.fma);
    assert_memory_equal(&a.bandwidth, &b.bandwidth, sizeof a.bandwidth);
    assert_memory_equal(&a.latency, &b.latency, sizeof a.latency);
    assert_true(a.noisy == b.noisy);

    /* An older clparity's entry (schema 1: no spread) is stale: measured again, and said so. */
    char text[8192];
    read_text(a.cache_file, text, sizeof text);
    set_number(text, "", "\"schema\"", "1");
    write_text(a.cache_file, text);
    assert_int_equal(cp_peak_get(d, false, &b), CP_OK);
    assert_false(b.cached);
    assert_spreads(&b);
    assert_string_equal(b.cache_note, "an older entry without a spread, measured again");
    assert_int_equal(cp_peak_get(d, false, &b), CP_OK);
    assert_true(b.cached);

    /* A spread that is not ordered around its median (p10 above it) is a bad entry. */
    read_text(a.cache_file, text, sizeof text);
    set_number(text, "\"spread\"", "\"p10\"", "1e30");
    write_text(a.cache_file, text);
    assert_int_equal(cp_peak_get(d, false, &b), CP_OK);
    assert_false(b.cached);
    assert_non_null(strstr(b.cache_note, "missing or bad spread"));

    assert_int_equal(cp_peak_get(d, true, &c), CP_OK);
    assert_false(c.cached);
    assert_sound(d, &c);

    /* Each kind of bad file is measured again, noted, and replaced by a sound one. */
    static const char *const bad[] = {
        "",
        "not json at all",
        "{\"schema\": 1, \"key\": \"method",
        "{\"schema\": 1, \"key\": \"another device\", \"fma_gflops\": 1, \"bandwidth_gbs\": 1, "
        "\"latency_us\": 1, \"measured_at\": \"x\"}",
        "[1, 2, 3]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        write_text(a.cache_file, bad[i]);
        cp_peak p;
        assert_int_equal(cp_peak_get(d, false, &p), CP_OK);
        assert_false(p.cached);
        assert_sound(d, &p);
        assert_non_null(strstr(p.cache_note, "bad entry replaced"));
        cp_peak q;
        assert_int_equal(cp_peak_get(d, false, &q), CP_OK);
        assert_true(q.cached);
        assert_true(q.fma_gflops == p.fma_gflops);
    }

    /* A sound file with a non-positive value is bad too: edit the stored number. */
    read_text(a.cache_file, text, sizeof text);
    char *v = strstr(text, "\"fma_gflops\":");
    assert_non_null(v);
    v += strlen("\"fma_gflops\":");
    while (*v == ' ' || *v == '\t')
        v++;
    *v = '-';
    write_text(a.cache_file, text);
    cp_peak p;
    assert_int_equal(cp_peak_get(d, false, &p), CP_OK);
    assert_false(p.cached);
    assert_non_null(strstr(p.cache_note, "missing or bad values"));

    /* Off: measured, nothing written. */
    use_folder(folder);
    setenv("CLPARITY_CACHE", "off", 1);
    assert_int_equal(cp_peak_get(d, false, &p), CP_OK);
    assert_false(p.cached);
    assert_string_equal(p.cache_file, "");
    char path[4200];
    assert_int_equal(cp_peak_cache_path(d, path, sizeof path), CP_OK);
    assert_int_not_equal(access(path, F_OK), 0);
    unsetenv("CLPARITY_CACHE");
}

static void test_host(void **state)
{
    (void)state;
    check_device(host, "host");
}

static void test_opencl(void **state)
{
    (void)state;
    if (!cl_dev)
        skip();
    check_device(cl_dev, "opencl");
}

/* Two devices, two files; a change of driver is another key, hence another file. */
static void test_keys(void **state)
{
    (void)state;
    use_folder("keys");
    char a[4200], b[4200];
    assert_int_equal(cp_peak_cache_path(host, a, sizeof a), CP_OK);
    if (cl_dev) {
        assert_int_equal(cp_peak_cache_path(cl_dev, b, sizeof b), CP_OK);
        assert_string_not_equal(a, b);
        cp_device other = *cl_dev;
        other.driver[0] = other.driver[0] == 'X' ? 'Y' : 'X'; /* another driver version */
        char c[4200];
        assert_int_equal(cp_peak_cache_path(&other, c, sizeof c), CP_OK);
        assert_string_not_equal(b, c);
    }
    assert_non_null(strstr(a, "/clparity/peak-"));
}

/* A simulator: no peak, no OpenCL call (the device handle is bogus), no cache file. */
static void test_simulator(void **state)
{
    (void)state;
    use_folder("simulator");
    cp_device sim;
    memset(&sim, 0, sizeof sim);
    sim.kind = CP_DEV_OPENCL;
    sim.simulator = true;
    snprintf(sim.name, sizeof sim.name, "Oclgrind Simulator");
    cp_peak p;
    assert_int_equal(cp_peak_get(&sim, false, &p), CP_OK);
    assert_false(p.available);
    assert_false(p.cached);
    assert_string_equal(p.cache_file, "");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_peak SCRATCH\n");
        return 2;
    }
    scratch = argv[1];
    if (cp_devlist_enumerate(&devs) != CP_OK) {
        fprintf(stderr, "cannot list devices: %s\n", cp_err_msg());
        return 1;
    }
    for (size_t i = 0; i < devs.n; ++i) {
        if (devs.v[i].kind == CP_DEV_HOST)
            host = &devs.v[i];
        else if (!cl_dev && !devs.v[i].simulator)
            cl_dev = &devs.v[i];
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host),
        cmocka_unit_test(test_opencl),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_simulator),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cp_devlist_free(&devs);
    return failed;
}
