/* Unit tests of runtime/files/npy.c: round trips, numpy's exact header, and malformed files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clparity/error.h"
#include "clparity/npy.h"

static char tmpdir[64];
static char pathbuf[256];

/* The path of a file in the test directory; valid until the next call. */
static const char *tpath(const char *name)
{
    snprintf(pathbuf, sizeof(pathbuf), "%s/%s", tmpdir, name);
    return pathbuf;
}

static int setup_dir(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/cp-npy-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

/* Removes whatever the tests left, including files of tests that failed half-way. */
static int teardown_dir(void **state)
{
    DIR *d;
    struct dirent *e;
    char p[512];

    (void)state;
    d = opendir(tmpdir);
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
        unlink(p);
    }
    closedir(d);
    return rmdir(tmpdir);
}

/* The number of entries in the test directory: no temporary file may be left behind. */
static int dir_entries(void)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void write_raw(const char *path, const void *buf, size_t n)
{
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* Reads a whole file into a malloc'd buffer. */
static unsigned char *read_raw(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = malloc(1 << 16);
    size_t got;

    assert_non_null(f);
    assert_non_null(buf);
    got = fread(buf, 1, 1 << 16, f);
    assert_int_equal(fclose(f), 0);
    *n = got;
    return buf;
}

/*
 * Writes a .npy file with a hand-written header dict, padded like numpy's, followed by
 * data_len bytes of data (a byte ramp).
 */
static void write_npy(const char *path, int major, const char *dict, size_t data_len)
{
    unsigned char buf[4096];
    size_t pre = major == 1 ? 10 : 12;
    size_t len = strlen(dict);
    size_t hlen, n;

    assert_true(pre + len + 64 + data_len < sizeof(buf));
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    memcpy(buf + pre, dict, len);
    n = pre + len;
    while ((n + 1) % 64 != 0)
        buf[n++] = ' ';
    buf[n++] = '\n';
    hlen = n - pre;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    if (major != 1) {
        buf[10] = 0;
        buf[11] = 0;
    }
    for (size_t i = 0; i < data_len; i++)
        buf[n++] = (unsigned char)i;
    write_raw(path, buf, n);
}

static void assert_zeroed(const cp_npy *a)
{
    static const cp_npy zero;

    assert_memory_equal(a, &zero, sizeof(zero));
}

/* Reading path must fail with status and a message "<path>: ...<what>...". */
static void expect_fail(const char *path, int status, const char *what)
{
    cp_npy a;
    const char *msg;

    memset(&a, 0x5a, sizeof(a));
    assert_int_equal(cp_npy_read(path, &a), status);
    assert_zeroed(&a);
    msg = cp_err_msg();
    if (strncmp(msg, path, strlen(path)) != 0 || strncmp(msg + strlen(path), ": ", 2) != 0)
        fail_msg("message '%s' does not start with the path '%s: '", msg, path);
    if (!strstr(msg, what))
        fail_msg("message '%s' lacks '%s'", msg, what);
}

static void round_trip(enum cp_dtype t, int ndim, const size_t *shape, const void *data,
                       size_t count)
{
    const char *p = tpath("rt.npy");
    cp_npy a;

    assert_int_equal(cp_npy_write(p, t, ndim, shape, data), CP_OK);
    assert_int_equal(dir_entries(), 1);
    assert_int_equal(cp_npy_read(p, &a), CP_OK);
    assert_int_equal(a.dtype, t);
    assert_int_equal(a.ndim, ndim);
    for (int i = 0; i < ndim; i++)
        assert_int_equal(a.shape[i], shape[i]);
    assert_int_equal(a.count, count);
    assert_non_null(a.data);
    if (count > 0)
        assert_memory_equal(a.data, data, count * cp_dtype_size(t));
    cp_npy_free(&a);
    assert_zeroed(&a);
    assert_int_equal(unlink(p), 0);
}

static void test_round_trip_f32(void **state)
{
    const size_t shape[] = {3, 5};
    float v[15];

    (void)state;
    for (int i = 0; i < 15; i++)
        v[i] = (float)i * 0.25f - 1.5f;
    round_trip(CP_F32, 2, shape, v, 15);
}

static void test_round_trip_f64(void **state)
{
    const size_t shape[] = {7};
    const double v[7] = {0.0, -0.0, 1.0 / 3.0, 1e300, -1e-300, 3.5, 42.0};

    (void)state;
    round_trip(CP_F64, 1, shape, v, 7);
}

static void test_round_trip_i32(void **state)
{
    const size_t shape[] = {2, 2, 2};
    const int32_t v[8] = {0, 1, -1, INT32_MAX, INT32_MIN, 7, -7, 123456};

    (void)state;
    round_trip(CP_I32, 3, shape, v, 8);
}

static void test_round_trip_i64(void **state)
{
    const size_t shape[] = {4, 1};
    const int64_t v[4] = {INT64_MIN, -1, 0, INT64_MAX};

    (void)state;
    round_trip(CP_I64, 2, shape, v, 4);
}

static void test_round_trip_0d(void **state)
{
    const float v = 2.5f;

    (void)state;
    round_trip(CP_F32, 0, NULL, &v, 1);
}

static void test_round_trip_empty(void **state)
{
    const size_t shape[] = {3, 0};

    (void)state;
    round_trip(CP_F64, 2, shape, NULL, 0);
}

/* What numpy 1.24 writes for np.save(f, np.zeros((2, 3), np.float32)), byte for byte. */
static void test_header_matches_numpy(void **state)
{
    static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    const size_t shape[] = {2, 3};
    const float v[6] = {0};
    unsigned char expect[128];
    unsigned char *got;
    size_t n;

    (void)state;
    memcpy(expect, "\x93NUMPY\x01\x00\x76\x00", 10);
    memset(expect + 10, ' ', sizeof(expect) - 10);
    memcpy(expect + 10, dict, strlen(dict));
    expect[127] = '\n';

    assert_int_equal(cp_npy_write(tpath("h.npy"), CP_F32, 2, shape, v), CP_OK);
    got = read_raw(tpath("h.npy"), &n);
    assert_int_equal(n, 128 + sizeof(v));
    assert_memory_equal(got, expect, sizeof(expect));
    free(got);
    unlink(tpath("h.npy"));
}

/* Headers of other shapes: 64-byte aligned, '\n' last, the shape as Python's tuple repr. */
static void test_header_shapes(void **state)
{
    static const struct {
        int ndim;
        size_t shape[CP_NPY_MAX_DIMS];
        const char *repr;
    } cases[] = {
        {0, {0}, "'shape': (), }"},
        {1, {5}, "'shape': (5,), }"},
        {2, {4, 64}, "'shape': (4, 64), }"},
        {8, {1, 1, 1, 1, 1, 1, 1, 0}, "'shape': (1, 1, 1, 1, 1, 1, 1, 0), }"},
        {3, {(size_t)(UINT64_MAX / 8), 0, 2}, "'shape': (2305843009213693951, 0, 2), }"},
    };

    static const float zeros[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned char *got;
        size_t n, hlen;

        if (SIZE_MAX < UINT64_MAX && i == 4)
            continue; /* the 19-digit case needs a 64-bit size_t */
        assert_int_equal(cp_npy_write(tpath("s.npy"), CP_F32, cases[i].ndim, cases[i].shape, zeros),
                         CP_OK);
        got = read_raw(tpath("s.npy"), &n);
        hlen = (size_t)got[8] | (size_t)got[9] << 8;
        assert_int_equal((10 + hlen) % 64, 0);
        assert_true(10 + hlen <= n);
        assert_int_equal(got[10 + hlen - 1], '\n');
        assert_memory_equal(got + 10, "{'descr': '<f4', 'fortran_order': False, ", 41);
        assert_memory_equal(got + 51, cases[i].repr, strlen(cases[i].repr));
        free(got);
    }
    unlink(tpath("s.npy"));
}

static void test_overwrite(void **state)
{
    const size_t s1[] = {4}, s2[] = {2};
    const int32_t v1[4] = {1, 2, 3, 4}, v2[2] = {9, 8};
    cp_npy a;

    (void)state;
    assert_int_equal(cp_npy_write(tpath("o.npy"), CP_I32, 1, s1, v1), CP_OK);
    assert_int_equal(cp_npy_write(tpath("o.npy"), CP_I32, 1, s2, v2), CP_OK);
    assert_int_equal(dir_entries(), 1);
    assert_int_equal(cp_npy_read(tpath("o.npy"), &a), CP_OK);
    assert_int_equal(a.count, 2);
    assert_memory_equal(a.data, v2, sizeof(v2));
    cp_npy_free(&a);
    unlink(tpath("o.npy"));
}

static void test_write_fails(void **state)
{
    const size_t shape[] = {1}, big[] = {SIZE_MAX / 2, 3, 0};
    const float v = 1.0f;
    char p[300];

    (void)state;
    snprintf(p, sizeof(p), "%s/no/such/dir.npy", tmpdir);
    assert_int_equal(cp_npy_write(p, CP_F32, 1, shape, &v), CP_FAIL_RUNTIME);
    assert_int_equal(strncmp(cp_err_msg(), p, strlen(p)), 0);
    assert_non_null(strstr(cp_err_msg(), strerror(ENOENT)));

    /* rename() onto a directory fails after the temporary file was written: it must go. */
    snprintf(p, sizeof(p), "%s/adir", tmpdir);
    assert_int_equal(mkdir(p, 0700), 0);
    assert_int_equal(cp_npy_write(p, CP_F32, 1, shape, &v), CP_FAIL_RUNTIME);
    assert_int_equal(strncmp(cp_err_msg(), p, strlen(p)), 0);
    assert_int_equal(dir_entries(), 1);
    assert_int_equal(rmdir(p), 0);

    assert_int_equal(cp_npy_write(tpath("x.npy"), CP_F32, CP_NPY_MAX_DIMS + 1, shape, &v),
                     CP_FAIL_USAGE);
    assert_int_equal(cp_npy_write(tpath("x.npy"), CP_F32, 3, big, NULL), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "shape overflows size_t"));
    assert_int_equal(dir_entries(), 0);
}

/* A valid [2, 3] float32 file in memory, to be damaged by the tests. */
static unsigned char *valid_file(size_t *n)
{
    const size_t shape[] = {2, 3};
    const float v[6] = {1, 2, 3, 4, 5, 6};

    assert_int_equal(cp_npy_write(tpath("valid.npy"), CP_F32, 2, shape, v), CP_OK);
    return read_raw(tpath("valid.npy"), n);
}

static void test_bad_magic(void **state)
{
    size_t n;
    unsigned char *buf = valid_file(&n);

    (void)state;
    buf[5] = 'Z';
    write_raw(tpath("m.npy"), buf, n);
    expect_fail(tpath("m.npy"), CP_FAIL_USAGE, "bad magic");
    write_raw(tpath("m.npy"), buf, 0);
    expect_fail(tpath("m.npy"), CP_FAIL_USAGE, "bad magic");
    write_raw(tpath("m.npy"), "\x93NUM", 4);
    expect_fail(tpath("m.npy"), CP_FAIL_USAGE, "bad magic");
    free(buf);
}

static void test_truncated_data(void **state)
{
    size_t n;
    unsigned char *buf = valid_file(&n);

    (void)state;
    write_raw(tpath("t.npy"), buf, n - 1);
    expect_fail(tpath("t.npy"), CP_FAIL_USAGE, "truncated: expected 24 data bytes, found 23");
    write_raw(tpath("t.npy"), buf, 128);
    expect_fail(tpath("t.npy"), CP_FAIL_USAGE, "truncated: expected 24 data bytes, found 0");
    free(buf);
}

static void test_truncated_header(void **state)
{
    size_t n;
    unsigned char *buf = valid_file(&n);

    (void)state;
    write_raw(tpath("t.npy"), buf, 9);
    expect_fail(tpath("t.npy"), CP_FAIL_USAGE, "truncated header");
    write_raw(tpath("t.npy"), buf, 60);
    expect_fail(tpath("t.npy"), CP_FAIL_USAGE,
                "truncated header: header length 118 but only 50 bytes follow");
    free(buf);
}

static void test_header_length_beyond_file(void **state)
{
    size_t n;
    unsigned char *buf = valid_file(&n);

    (void)state;
    buf[8] = 0xff;
    buf[9] = 0xff;
    write_raw(tpath("l.npy"), buf, n);
    expect_fail(tpath("l.npy"), CP_FAIL_USAGE, "header length 65535 but only 142 bytes follow");
    free(buf);
}

static void test_trailing_bytes(void **state)
{
    size_t n;
    unsigned char *buf = valid_file(&n);

    (void)state;
    buf[n] = 0;
    write_raw(tpath("x.npy"), buf, n + 1);
    expect_fail(tpath("x.npy"), CP_FAIL_USAGE, "trailing bytes: expected 24 data bytes, found 25");
    free(buf);
}

static void test_fortran_order(void **state)
{
    (void)state;
    write_npy(tpath("f.npy"), 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24);
    expect_fail(tpath("f.npy"), CP_FAIL_USAGE, "not C-ordered (fortran_order is True)");
}

static void test_bad_dtypes(void **state)
{
    (void)state;
    write_npy(tpath("d.npy"), 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", 24);
    expect_fail(tpath("d.npy"), CP_FAIL_USAGE, "unsupported dtype '>f4'");
    write_npy(tpath("d.npy"), 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }", 48);
    expect_fail(tpath("d.npy"), CP_FAIL_USAGE, "unsupported dtype '<c8'");
    write_npy(tpath("d.npy"), 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", 12);
    expect_fail(tpath("d.npy"), CP_FAIL_USAGE, "unsupported dtype '<f2'");
    write_npy(tpath("d.npy"), 1, "{'descr': '\x01\xff', 'fortran_order': False, 'shape': (), }", 4);
    expect_fail(tpath("d.npy"), CP_FAIL_USAGE, "unsupported dtype '\\x01\\xff'");
    write_npy(tpath("d.npy"), 1,
              "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8);
    expect_fail(tpath("d.npy"), CP_FAIL_USAGE, "unsupported dtype");
}

static void test_shape_overflow(void **state)
{
    cp_npy a;

    (void)state;
    write_npy(tpath("o.npy"), 1,
              "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }",
              0);
    expect_fail(tpath("o.npy"), CP_FAIL_USAGE, "shape overflows size_t");
    /* The element count fits but the byte count does not. */
    write_npy(tpath("o.npy"), 1,
              "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", 0);
    expect_fail(tpath("o.npy"), CP_FAIL_USAGE, "shape overflows size_t");
    write_npy(tpath("o.npy"), 1,
              "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 0);
    expect_fail(tpath("o.npy"), CP_FAIL_USAGE, "overflows size_t");
    /*
     * A zero dimension does not excuse the others: like numpy, the product of the non-zero
     * dimensions must fit, or stride computations would overflow.
     */
    write_npy(tpath("o.npy"), 1,
              "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 0), }",
              0);
    expect_fail(tpath("o.npy"), CP_FAIL_USAGE, "shape overflows size_t");
    write_npy(tpath("o.npy"), 1,
              "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4096, 0), }", 0);
    assert_int_equal(cp_npy_read(tpath("o.npy"), &a), CP_OK);
    assert_int_equal(a.count, 0);
    assert_non_null(a.data);
    cp_npy_free(&a);
}

/* A file that is not there, or a symbolic link loop: the user's to fix, status 2 (issue 32). */
static void test_missing_file(void **state)
{
    (void)state;
    expect_fail(tpath("does-not-exist.npy"), CP_FAIL_USAGE, strerror(ENOENT));
    const char *loop = tpath("loop.npy");
    unlink(loop);
    assert_int_equal(symlink("loop.npy", loop), 0);
    expect_fail(loop, CP_FAIL_USAGE, strerror(ELOOP));
    unlink(loop);
}

/* Spellings numpy or other writers may produce that mean the same array. */
static void test_header_variants_accepted(void **state)
{
    static const char *dicts[] = {
        "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}",
        "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}",
        "  {  'descr' :'<f4' ,'fortran_order':False,'shape':( 2 ,3 , ) , }  ",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }",
    };
    cp_npy a;

    (void)state;
    for (size_t i = 0; i < sizeof(dicts) / sizeof(dicts[0]); i++) {
        for (int major = 1; major <= 2; major++) {
            write_npy(tpath("v.npy"), major, dicts[i], 24);
            if (cp_npy_read(tpath("v.npy"), &a) != CP_OK)
                fail_msg("header %s (version %d) refused: %s", dicts[i], major, cp_err_msg());
            assert_int_equal(a.dtype, CP_F32);
            assert_int_equal(a.ndim, 2);
            assert_int_equal(a.shape[0], 2);
            assert_int_equal(a.shape[1], 3);
            assert_int_equal(a.count, 6);
            assert_int_equal(((unsigned char *)a.data)[23], 23);
            cp_npy_free(&a);
        }
    }
}

static void test_header_variants_refused(void **state)
{
    static const struct {
        const char *dict;
        const char *what;
    } cases[] = {
        {"{'descr': '<f4', 'fortran_order': False}", "no 'shape'"},
        {"{'descr': '<f4', 'shape': (6,)}", "no 'fortran_order'"},
        {"{'fortran_order': False, 'shape': (6,)}", "no 'descr'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}",
         "duplicate key 'descr'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", "unexpected key 'x'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (6)}", "shape is not a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [6]}", "shape is not a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-6,)}", "non-negative integer"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,6)}",
         "too many dimensions"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (6,)}", "not True or False"},
        {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (6,)}", "not True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} x", "unexpected text"},
        {"{'descr' '<f4', 'fortran_order': False, 'shape': (6,)}", "expected ':'"},
        {"{'descr': '<f4', 'fortran_order': False 'shape': (6,)}", "expected ',' or '}'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,)", "expected ',' or '}'"},
        {"{'descr': '<f\\x34', 'fortran_order': False, 'shape': (6,)}", "unsupported dtype"},
        {"['descr', '<f4']", "expected '{'"},
        {"", "expected '{'"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        write_npy(tpath("r.npy"), 1, cases[i].dict, 24);
        expect_fail(tpath("r.npy"), CP_FAIL_USAGE, cases[i].what);
    }
}

static void test_bad_version(void **state)
{
    size_t n;
    unsigned char *buf = valid_file(&n);

    (void)state;
    buf[6] = 9;
    write_raw(tpath("v.npy"), buf, n);
    expect_fail(tpath("v.npy"), CP_FAIL_USAGE, "unsupported format version 9.0");
    buf[6] = 1;
    buf[7] = 1;
    write_raw(tpath("v.npy"), buf, n);
    expect_fail(tpath("v.npy"), CP_FAIL_USAGE, "unsupported format version 1.1");
    /* A version 2.0 header length of 4 GiB - 1 is refused before anything is allocated. */
    write_npy(tpath("v.npy"), 2, "{}", 0);
    free(buf);
    buf = read_raw(tpath("v.npy"), &n);
    memset(buf + 8, 0xff, 4);
    write_raw(tpath("v.npy"), buf, n);
    expect_fail(tpath("v.npy"), CP_FAIL_USAGE, "too large");
    free(buf);
}

static void test_read_directory(void **state)
{
    (void)state;
    expect_fail(tmpdir, CP_FAIL_USAGE, "not a regular file (a directory)");
}

/* A FIFO without a writer is refused at once: open() of it for reading used to block. */
static void test_read_fifo(void **state)
{
    char path[4200];
    (void)state;
    snprintf(path, sizeof path, "%s/fifo.npy", tmpdir);
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_fail(path, CP_FAIL_USAGE, "not a regular file (a FIFO)");
    unlink(path);
}

/* Every proper prefix of a valid file is malformed, never an I/O error or a crash. */
static void test_every_truncation(void **state)
{
    size_t n;
    unsigned char *buf = valid_file(&n);

    (void)state;
    for (size_t len = 0; len < n; len++) {
        cp_npy a;

        write_raw(tpath("p.npy"), buf, len);
        assert_int_equal(cp_npy_read(tpath("p.npy"), &a), CP_FAIL_USAGE);
        assert_zeroed(&a);
    }
    free(buf);
}

/* Random damage to header bytes: the reader accepts or refuses, never crashes. */
static void test_random_damage(void **state)
{
    size_t n;
    unsigned char *orig = valid_file(&n);
    unsigned char buf[512];
    uint32_t rng = 12345;
    int accepted = 0;

    (void)state;
    assert_true(n <= sizeof(buf));
    for (int iter = 0; iter < 3000; iter++) {
        int flips;
        cp_npy a;
        int ret;

        memcpy(buf, orig, n);
        rng = rng * 1664525u + 1013904223u;
        flips = 1 + (int)(rng >> 29);
        for (int k = 0; k < flips; k++) {
            rng = rng * 1664525u + 1013904223u;
            /* Mostly the 128 header bytes; sometimes a printable byte, to reach the parser. */
            size_t at = (rng >> 8) % 128;
            rng = rng * 1664525u + 1013904223u;
            buf[at] =
                (rng >> 31) ? (unsigned char)(rng >> 16) : (unsigned char)(32 + (rng >> 16) % 95);
        }
        write_raw(tpath("r.npy"), buf, n);
        ret = cp_npy_read(tpath("r.npy"), &a);
        assert_true(ret == CP_OK || ret == CP_FAIL_USAGE);
        if (ret == CP_OK) {
            accepted++;
            size_t data_off = 10 + ((size_t)buf[8] | (size_t)buf[9] << 8);

            assert_true(a.count * cp_dtype_size(a.dtype) == n - data_off);
            cp_npy_free(&a);
        } else {
            assert_zeroed(&a);
        }
    }
    /* Some damage lands in the padding, so some files stay valid. */
    assert_true(accepted > 0);
    free(orig);
}

static void test_free_null_and_twice(void **state)
{
    cp_npy a = {0};

    (void)state;
    cp_npy_free(NULL);
    cp_npy_free(&a);
    cp_npy_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_f32),
        cmocka_unit_test(test_round_trip_f64),
        cmocka_unit_test(test_round_trip_i32),
        cmocka_unit_test(test_round_trip_i64),
        cmocka_unit_test(test_round_trip_0d),
        cmocka_unit_test(test_round_trip_empty),
        cmocka_unit_test(test_header_matches_numpy),
        cmocka_unit_test(test_header_shapes),
        cmocka_unit_test(test_overwrite),
        cmocka_unit_test(test_write_fails),
        cmocka_unit_test(test_bad_magic),
        cmocka_unit_test(test_truncated_data),
        cmocka_unit_test(test_truncated_header),
        cmocka_unit_test(test_header_length_beyond_file),
        cmocka_unit_test(test_trailing_bytes),
        cmocka_unit_test(test_fortran_order),
        cmocka_unit_test(test_bad_dtypes),
        cmocka_unit_test(test_shape_overflow),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_header_variants_accepted),
        cmocka_unit_test(test_header_variants_refused),
        cmocka_unit_test(test_bad_version),
        cmocka_unit_test(test_read_directory),
        cmocka_unit_test(test_read_fifo),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_random_damage),
        cmocka_unit_test(test_free_null_and_twice),
    };

    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
