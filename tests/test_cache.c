/* runtime/cache: the program-binary cache. Keys, the folder and the cap from the environment;
 * a stored entry reads back; truncations, a flipped bit in every byte of a file, a foreign
 * file, garbage and a wrong format version are refused and then replaced; LRU eviction under
 * the cap; an unwritable folder; listing and clearing touch our files only. On the first
 * OpenCL device (PoCL in ctest): a hit gives the program, and outputs bit for bit those of a
 * cold build; a binary the driver refuses falls back to the source; an edited
 * CLPARITY_KERNEL_DIR copy misses; CLPARITY_CACHE=off writes nothing.
 *
 * argv[1] is a scratch folder; each test uses XDG_CACHE_HOME=<argv[1]>/<test>. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cache-impl.h"
#include "clparity/device.h"
#include "clparity/env.h"
#include "engine_util.h"
#include "program-impl.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *scratch;
static cp_devlist devs;
static const cp_device *cl_dev, *host;

/* XDG_CACHE_HOME=<scratch>/<name>, emptied; the cache folder's path in dir. */
static void use_folder(const char *name, char *dir, size_t len)
{
    char xdg[3072], cmd[3200];
    snprintf(xdg, sizeof xdg, "%s/%s", scratch, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", xdg);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(setenv("XDG_CACHE_HOME", xdg, 1), 0);
    unsetenv("CLPARITY_CACHE");
    unsetenv("CLPARITY_CACHE_MAX_MB");
    unsetenv("CLPARITY_KERNEL_DIR");
    snprintf(dir, len, "%s/clparity", xdg);
}

static void make_key(struct cp_cache_key *k, const char *device, const char *options)
{
    struct cp_cache_fields f = {.kernel = "block.cl",
                                .options = options,
                                .device = device,
                                .vendor = "vendor",
                                .device_version = "OpenCL 1.2",
                                .driver = "1.0",
                                .platform = "platform",
                                .platform_version = "OpenCL 1.2 platform"};
    memset(f.source_sha256, 0xab, sizeof f.source_sha256);
    assert_int_equal(cp_cache_key_init(k, &f), CP_OK);
}

static unsigned char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)len + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return b;
}

static void write_file(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void test_environment(void **state)
{
    (void)state;
    assert_string_equal(cp_cache_state_name(CP_CACHE_HIT), "hit");
    assert_string_equal(cp_cache_state_name(CP_CACHE_MISS), "miss");
    assert_string_equal(cp_cache_state_name(CP_CACHE_OFF), "off");
    assert_null(cp_cache_state_name(CP_CACHE_NONE));

    static const char *const off[] = {"off", "OFF", "0", "no", "No", "false"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; ++i) {
        setenv("CLPARITY_CACHE", off[i], 1);
        assert_false(cp_cache_enabled());
    }
    static const char *const on[] = {"on", "1", "yes", ""};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; ++i) {
        setenv("CLPARITY_CACHE", on[i], 1);
        assert_true(cp_cache_enabled());
    }
    unsetenv("CLPARITY_CACHE");
    assert_true(cp_cache_enabled());

    char saved_home[4096] = "", saved_xdg[4096] = "", dir[4096];
    snprintf(saved_home, sizeof saved_home, "%s", getenv("HOME") ? getenv("HOME") : "");
    snprintf(saved_xdg, sizeof saved_xdg, "%s",
             getenv("XDG_CACHE_HOME") ? getenv("XDG_CACHE_HOME") : "");
    setenv("HOME", "/home/someone", 1);
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    assert_int_equal(cp_cache_dir(dir, sizeof dir), CP_OK);
    assert_string_equal(dir, "/x/cache/clparity");
    setenv("XDG_CACHE_HOME", "", 1);
    assert_int_equal(cp_cache_dir(dir, sizeof dir), CP_OK);
    assert_string_equal(dir, "/home/someone/.cache/clparity");
    unsetenv("XDG_CACHE_HOME");
    assert_int_equal(cp_cache_dir(dir, sizeof dir), CP_OK);
    assert_string_equal(dir, "/home/someone/.cache/clparity");
    unsetenv("HOME");
    assert_int_equal(cp_cache_dir(dir, sizeof dir), CP_FAIL_USAGE);
    setenv("HOME", saved_home, 1);
    setenv("XDG_CACHE_HOME", saved_xdg, 1);

    bool valid;
    unsetenv("CLPARITY_CACHE_MAX_MB");
    assert_int_equal(cp_cache_max_bytes(&valid), 256ull << 20);
    assert_true(valid);
    setenv("CLPARITY_CACHE_MAX_MB", "3", 1);
    assert_int_equal(cp_cache_max_bytes(&valid), 3ull << 20);
    setenv("CLPARITY_CACHE_MAX_MB", "0.5", 1);
    assert_int_equal(cp_cache_max_bytes(&valid), 1ull << 19);
    setenv("CLPARITY_CACHE_MAX_MB", "0", 1);
    assert_int_equal(cp_cache_max_bytes(&valid), 0);
    assert_true(valid);
    static const char *const bad[] = {"abc", "-1", "12MB", "nan", "inf"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        setenv("CLPARITY_CACHE_MAX_MB", bad[i], 1);
        assert_int_equal(cp_cache_max_bytes(&valid), 256ull << 20);
        assert_false(valid);
        /* ...and refused before any work, by the library too (runtime/base/env.c): never a silent
         * default for a program that lists devices */
        const cp_env_var *which;
        assert_int_equal(cp_env_check_all(&which), CP_FAIL_USAGE);
        assert_string_equal(which->name, "CLPARITY_CACHE_MAX_MB");
        cp_devlist l;
        assert_int_equal(cp_devlist_enumerate(&l), CP_FAIL_USAGE);
        assert_non_null(strstr(cp_err_msg(), bad[i]));
    }
    unsetenv("CLPARITY_CACHE_MAX_MB");
    assert_int_equal(cp_env_check_all(NULL), CP_OK);
}

/* Every field of the key changes its hash; equal fields give equal keys. */
static void test_key(void **state)
{
    (void)state;
    struct cp_cache_fields base = {.kernel = "block.cl",
                                   .options = "-cl-std=CL1.2",
                                   .device = "dev",
                                   .vendor = "vendor",
                                   .device_version = "dv",
                                   .driver = "drv",
                                   .platform = "plat",
                                   .platform_version = "pv"};
    struct cp_cache_key k0, k1;
    assert_int_equal(cp_cache_key_init(&k0, &base), CP_OK);
    assert_int_equal(cp_cache_key_init(&k1, &base), CP_OK);
    assert_memory_equal(k0.sha256, k1.sha256, 32);
    assert_int_equal(strlen(k0.file), 68);
    assert_string_equal(k0.file + 64, ".bin");
    cp_cache_key_free(&k1);
    struct cp_cache_fields v[9];
    for (int i = 0; i < 9; ++i)
        v[i] = base;
    v[0].kernel = "other.cl";
    v[1].source_sha256[31] = 1;
    v[2].options = "-cl-std=CL1.2 -DX";
    v[3].device = "dev2";
    v[4].vendor = "vendor2";
    v[5].device_version = "dv2";
    v[6].driver = "drv2";
    v[7].platform = "plat2";
    v[8].platform_version = "pv2";
    for (int i = 0; i < 9; ++i) {
        assert_int_equal(cp_cache_key_init(&k1, &v[i]), CP_OK);
        if (memcmp(k0.sha256, k1.sha256, 32) == 0)
            fail_msg("field %d does not change the key", i);
        cp_cache_key_free(&k1);
    }
    /* Lengths are part of the key: moving a byte from one field to the next changes it. */
    struct cp_cache_fields f = base;
    f.device = "devv";
    f.vendor = "endor";
    assert_int_equal(cp_cache_key_init(&k1, &f), CP_OK);
    assert_memory_not_equal(k0.sha256, k1.sha256, 32);
    cp_cache_key_free(&k1);
    cp_cache_key_free(&k0);
}

static void test_store_load(void **state)
{
    (void)state;
    char dir[4096], path[4200], why[256];
    use_folder("store_load", dir, sizeof dir);
    struct cp_cache_key k;
    make_key(&k, "dev", "-cl-std=CL1.2");
    unsigned char *got;
    size_t n;
    assert_false(cp_cache_load(&k, &got, &n, why, sizeof why));
    assert_string_equal(why, "no entry");
    static const unsigned char payload[] = "a program binary\0with a zero byte";
    assert_true(cp_cache_store(&k, payload, sizeof payload, why, sizeof why));
    assert_true(cp_cache_load(&k, &got, &n, why, sizeof why));
    assert_int_equal(n, sizeof payload);
    assert_memory_equal(got, payload, n);
    free(got);
    snprintf(path, sizeof path, "%s/%s", dir, k.file);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal((size_t)sb.st_size, CP_CACHE_HEADER + k.len + sizeof payload);
    /* An empty payload is stored and read back too. */
    assert_true(cp_cache_store(&k, "", 0, why, sizeof why));
    assert_true(cp_cache_load(&k, &got, &n, why, sizeof why));
    assert_int_equal(n, 0);
    free(got);
    cp_cache_key_free(&k);
}

/* Stores a good entry, lets mutate() spoil it, checks that it is refused, and that a new store
 * replaces it with one that reads back. */
static void refused_then_replaced(const struct cp_cache_key *k, const char *path,
                                  const unsigned char *good, size_t good_n, const char *what)
{
    char why[256];
    unsigned char *got = NULL;
    size_t n;
    if (cp_cache_load(k, &got, &n, why, sizeof why))
        fail_msg("%s: a spoilt entry was accepted", what);
    assert_null(got);
    assert_true(cp_cache_store(k, good + CP_CACHE_HEADER + k->len,
                               good_n - CP_CACHE_HEADER - k->len, why, sizeof why));
    size_t now_n;
    unsigned char *now = read_file(path, &now_n);
    assert_int_equal(now_n, good_n);
    assert_memory_equal(now, good, good_n);
    free(now);
}

static void test_bad_files(void **state)
{
    (void)state;
    char dir[4096], path[4200], other_path[4200], why[256];
    use_folder("bad_files", dir, sizeof dir);
    struct cp_cache_key k, other;
    make_key(&k, "dev", "-cl-std=CL1.2");
    make_key(&other, "dev", "-cl-std=CL1.2 -DOTHER");
    unsigned char payload[300];
    for (size_t i = 0; i < sizeof payload; ++i)
        payload[i] = (unsigned char)(i * 7 + 3);
    assert_true(cp_cache_store(&k, payload, sizeof payload, why, sizeof why));
    assert_true(cp_cache_store(&other, payload, 100, why, sizeof why));
    snprintf(path, sizeof path, "%s/%s", dir, k.file);
    snprintf(other_path, sizeof other_path, "%s/%s", dir, other.file);
    size_t good_n;
    unsigned char *good = read_file(path, &good_n);

    /* Truncated anywhere, from nothing to one byte short. */
    for (size_t len = 0; len < good_n; len += (len < CP_CACHE_HEADER + 8 ? 1 : 37)) {
        write_file(path, good, len);
        refused_then_replaced(&k, path, good, good_n, "truncated");
    }
    /* One more byte at the end. */
    unsigned char *longer = malloc(good_n + 1);
    assert_non_null(longer);
    memcpy(longer, good, good_n);
    longer[good_n] = 0;
    write_file(path, longer, good_n + 1);
    refused_then_replaced(&k, path, good, good_n, "one byte longer");
    free(longer);
    /* A flipped bit in every byte, header, key and payload (the bit rotates with the byte,
     * which keeps the loop to one file write per byte). */
    unsigned char *flipped = malloc(good_n);
    assert_non_null(flipped);
    for (size_t i = 0; i < good_n; ++i) {
        int bit = (int)(i % 8);
        memcpy(flipped, good, good_n);
        flipped[i] ^= (unsigned char)(1u << bit);
        write_file(path, flipped, good_n);
        char what[64];
        snprintf(what, sizeof what, "bit %d of byte %zu flipped", bit, i);
        refused_then_replaced(&k, path, good, good_n, what);
    }
    free(flipped);
    /* Another key's valid file copied over this name. */
    size_t foreign_n;
    unsigned char *foreign = read_file(other_path, &foreign_n);
    write_file(path, foreign, foreign_n);
    unsigned char *got;
    size_t n;
    assert_false(cp_cache_load(&k, &got, &n, why, sizeof why));
    assert_string_equal(why, "an entry of another key");
    refused_then_replaced(&k, path, good, good_n, "foreign");
    free(foreign);
    /* Garbage, and a file of a future format version with consistent checksums. */
    unsigned char garbage[2048];
    for (size_t i = 0; i < sizeof garbage; ++i)
        garbage[i] = (unsigned char)((i * 2654435761u) >> 13);
    write_file(path, garbage, sizeof garbage);
    refused_then_replaced(&k, path, good, good_n, "garbage");
    unsigned char *future = malloc(good_n);
    assert_non_null(future);
    memcpy(future, good, good_n);
    future[8] = CP_CACHE_FORMAT + 1;
    write_file(path, future, good_n);
    assert_false(cp_cache_load(&k, &got, &n, why, sizeof why));
    assert_non_null(strstr(why, "format version"));
    refused_then_replaced(&k, path, good, good_n, "future version");
    free(future);
    /* A folder where the file should be. */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_false(cp_cache_load(&k, &got, &n, why, sizeof why));
    assert_int_equal(rmdir(path), 0);
    free(good);
    cp_cache_key_free(&other);
    cp_cache_key_free(&k);
}

static void set_mtime(const char *dir, const char *file, time_t t)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    struct timespec ts[2] = {{.tv_sec = t}, {.tv_sec = t}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void test_eviction(void **state)
{
    (void)state;
    char dir[4096], path[4200], why[256];
    use_folder("eviction", dir, sizeof dir);
    struct cp_cache_key k[4];
    static const char *const opts[4] = {"-DA", "-DB", "-DC", "-DD"};
    for (int i = 0; i < 4; ++i)
        make_key(&k[i], "dev", opts[i]);
    /* 4000-byte payloads: three entries fit in 0.0125 MiB (13107 bytes), four do not. */
    static unsigned char payload[4000];
    setenv("CLPARITY_CACHE_MAX_MB", "0.0125", 1);
    time_t t0 = time(NULL) - 1000;
    for (int i = 0; i < 3; ++i) {
        assert_true(cp_cache_store(&k[i], payload, sizeof payload, why, sizeof why));
        set_mtime(dir, k[i].file, t0 + i);
    }
    /* Files that are not ours stay whatever happens, and a writer's fresh temporary file
     * too; a stale one (an interrupted write) goes. */
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    write_file(path, payload, sizeof payload);
    char stale[100], fresh[100];
    snprintf(stale, sizeof stale, "%.64s.bin.tmp.12345", k[3].file);
    snprintf(fresh, sizeof fresh, "%.64s.bin.tmp.12346", k[3].file);
    snprintf(path, sizeof path, "%s/%s", dir, stale);
    write_file(path, "x", 1);
    set_mtime(dir, stale, t0 - 7200);
    snprintf(path, sizeof path, "%s/%s", dir, fresh);
    write_file(path, "x", 1);
    /* A hit makes the oldest entry the newest: the next store evicts k[1] instead. */
    unsigned char *got;
    size_t n;
    assert_true(cp_cache_load(&k[0], &got, &n, why, sizeof why));
    free(got);
    assert_true(cp_cache_store(&k[3], payload, sizeof payload, why, sizeof why));
    bool want[4] = {true, false, true, true};
    for (int i = 0; i < 4; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, k[i].file);
        if (exists(path) != want[i])
            fail_msg("entry %d: %s", i, want[i] ? "evicted" : "kept");
    }
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    assert_true(exists(path));
    snprintf(path, sizeof path, "%s/%s", dir, stale);
    assert_false(exists(path));
    snprintf(path, sizeof path, "%s/%s", dir, fresh);
    assert_true(exists(path));

    /* Rewriting an entry does not count its old size against the cap: k[2], now the oldest,
     * stays. */
    assert_true(cp_cache_store(&k[3], payload, sizeof payload, why, sizeof why));
    snprintf(path, sizeof path, "%s/%s", dir, k[2].file);
    assert_true(exists(path));

    /* An entry larger than the cap is not stored, and evicts nothing. */
    static unsigned char big[20000];
    assert_false(cp_cache_store(&k[1], big, sizeof big, why, sizeof why));
    assert_non_null(strstr(why, "exceed the cap"));
    snprintf(path, sizeof path, "%s/%s", dir, k[0].file);
    assert_true(exists(path));
    /* A cap of 0 stores nothing. */
    setenv("CLPARITY_CACHE_MAX_MB", "0", 1);
    assert_false(cp_cache_store(&k[1], payload, 1, why, sizeof why));
    unsetenv("CLPARITY_CACHE_MAX_MB");
    for (int i = 0; i < 4; ++i)
        cp_cache_key_free(&k[i]);
}

/* As root, chmod does not stop a write, so the folder is made impossible: its parent is a
 * regular file. As another user, a chmod 0555 folder is tried too. */
static void test_unwritable(void **state)
{
    (void)state;
    char dir[4096], path[4200], why[256];
    use_folder("unwritable", dir, sizeof dir);
    struct cp_cache_key k;
    make_key(&k, "dev", "");
    char xdg[4096];
    snprintf(xdg, sizeof xdg, "%s/unwritable", scratch);
    assert_int_equal(mkdir(xdg, 0700), 0);
    snprintf(path, sizeof path, "%s/file", xdg);
    write_file(path, "x", 1);
    snprintf(xdg, sizeof xdg, "%s/unwritable/file/sub", scratch);
    setenv("XDG_CACHE_HOME", xdg, 1);
    unsigned char *got;
    size_t n;
    assert_false(cp_cache_load(&k, &got, &n, why, sizeof why));
    assert_false(cp_cache_store(&k, "payload", 7, why, sizeof why));
    assert_non_null(strstr(why, "Not a directory"));
    assert_int_equal(cp_cache_dir(dir, sizeof dir), CP_OK);
    assert_false(cp_cache_writable(dir, why, sizeof why));
    cp_cache_listing l;
    assert_int_equal(cp_cache_list(dir, &l), CP_OK);
    assert_int_equal(l.n, 0);
    cp_cache_listing_free(&l);

    if (geteuid() != 0) {
        use_folder("unwritable_chmod", dir, sizeof dir);
        assert_true(cp_cache_store(&k, "payload", 7, why, sizeof why));
        assert_int_equal(chmod(dir, 0555), 0);
        struct cp_cache_key k2;
        make_key(&k2, "dev2", "");
        assert_false(cp_cache_store(&k2, "payload", 7, why, sizeof why));
        assert_false(cp_cache_writable(dir, why, sizeof why));
        /* Entries already there are still read. */
        assert_true(cp_cache_load(&k, &got, &n, why, sizeof why));
        free(got);
        assert_int_equal(chmod(dir, 0700), 0);
        cp_cache_key_free(&k2);
    } else {
        fprintf(stderr, "running as root: chmod 0555 is not enforced, only the regular-file "
                        "parent is tried\n");
    }
    cp_cache_key_free(&k);
}

static void test_list_clear(void **state)
{
    (void)state;
    char dir[4096], path[4200], why[256];
    use_folder("list_clear", dir, sizeof dir);
    cp_cache_listing l;
    assert_int_equal(cp_cache_list(dir, &l), CP_OK); /* no folder yet: empty */
    assert_int_equal(l.n, 0);
    cp_cache_listing_free(&l);
    struct cp_cache_key a, b;
    make_key(&a, "device A", "-DA");
    make_key(&b, "device B", "-DB");
    assert_true(cp_cache_store(&a, "aaaa", 4, why, sizeof why));
    assert_true(cp_cache_store(&b, "bbbbbbbb", 8, why, sizeof why));
    set_mtime(dir, a.file, time(NULL) - 100);
    /* b's file spoilt: listed, marked invalid. */
    snprintf(path, sizeof path, "%s/%s", dir, b.file);
    size_t bn;
    unsigned char *bb = read_file(path, &bn);
    bb[bn - 1] ^= 1;
    write_file(path, bb, bn);
    free(bb);
    /* Not ours: another name, and a name that is almost ours. */
    snprintf(path, sizeof path, "%s/README", dir);
    write_file(path, "keep", 4);
    snprintf(path, sizeof path, "%s/%.64s.BIN", dir, a.file);
    write_file(path, "keep", 4);

    assert_int_equal(cp_cache_list(dir, &l), CP_OK);
    assert_int_equal(l.n, 2);
    /* Newest first. */
    assert_string_equal(l.v[0].file, b.file);
    assert_false(l.v[0].valid);
    assert_string_equal(l.v[0].problem, "payload checksum mismatch");
    assert_string_equal(l.v[1].file, a.file);
    assert_true(l.v[1].valid);
    assert_string_equal(l.v[1].device, "device A");
    assert_string_equal(l.v[1].options, "-DA");
    assert_string_equal(l.v[1].driver, "1.0");
    assert_string_equal(l.v[1].kernel, "block.cl");
    assert_int_equal(strlen(l.v[1].source_sha256), 64);
    assert_int_equal(l.bytes, l.v[0].bytes + l.v[1].bytes);
    unsigned long long listed = l.bytes;
    cp_cache_listing_free(&l);

    size_t removed;
    unsigned long long bytes;
    assert_int_equal(cp_cache_clear(dir, &removed, &bytes), CP_OK);
    assert_int_equal(removed, 2);
    assert_int_equal(bytes, listed);
    snprintf(path, sizeof path, "%s/README", dir);
    assert_true(exists(path));
    snprintf(path, sizeof path, "%s/%.64s.BIN", dir, a.file);
    assert_true(exists(path));
    assert_int_equal(cp_cache_list(dir, &l), CP_OK);
    assert_int_equal(l.n, 0);
    cp_cache_listing_free(&l);
    cp_cache_key_free(&a);
    cp_cache_key_free(&b);
}

/* ---- on an OpenCL device ---------------------------------------------------------------- */

struct built {
    float *y;
    enum cp_cache_state state;
    char note[256];
};

/* cl:own at d = 64, L = 4, B = 3: its output and what the cache did. */
static struct built run_own(void)
{
    struct built b = {0};
    cp_model m;
    float *x = NULL;
    assert_int_equal(cp_model_builtin(&m, 64, 4, 1337, 1.0f), CP_OK);
    assert_int_equal(cp_model_input(3, 64, 1337, &x), CP_OK);
    cp_engine *e = NULL;
    cp_timing t;
    b.y = malloc(3 * 64 * sizeof(float));
    assert_non_null(b.y);
    if (cp_engine_create(cp_engine_find("cl:own"), cl_dev, &m, 3, &e) != CP_OK)
        fail_msg("cl:own: %s", cp_err_msg());
    assert_int_equal(cp_engine_forward(e, x, 3, b.y, &t), CP_OK);
    b.state = cp_engine_build_cache(e);
    assert_int_equal(cp_engine_cache_hit(e), b.state == CP_CACHE_HIT);
    snprintf(b.note, sizeof b.note, "%s", cp_engine_build_cache_note(e));
    cp_engine_destroy(e);
    free(x);
    cp_model_free(&m);
    return b;
}

static size_t count_entries(const char *dir)
{
    cp_cache_listing l;
    assert_int_equal(cp_cache_list(dir, &l), CP_OK);
    size_t n = l.n;
    for (size_t i = 0; i < l.n; ++i)
        assert_true(l.v[i].valid);
    cp_cache_listing_free(&l);
    return n;
}

static bool require_device(void)
{
    if (cl_dev)
        return true;
    fprintf(stderr, "no OpenCL device: skipped\n");
    return false;
}

static void test_engine_hit_identical(void **state)
{
    (void)state;
    if (!require_device())
        skip();
    char dir[4096];
    use_folder("engine", dir, sizeof dir);
    setenv("CLPARITY_CACHE", "off", 1);
    struct built cold = run_own();
    assert_int_equal(cold.state, CP_CACHE_OFF);
    assert_false(exists(dir)); /* off writes nothing, not even the folder */
    unsetenv("CLPARITY_CACHE");
    struct built miss = run_own();
    assert_int_equal(miss.state, CP_CACHE_MISS);
    assert_string_equal(miss.note, "");
    assert_int_equal(count_entries(dir), 1);
    struct built hit = run_own();
    assert_int_equal(hit.state, CP_CACHE_HIT);
    assert_memory_equal(miss.y, cold.y, 3 * 64 * sizeof(float));
    assert_memory_equal(hit.y, cold.y, 3 * 64 * sizeof(float));
    /* And host engines build nothing. */
    cp_model m;
    cp_engine *e = NULL;
    assert_int_equal(cp_model_builtin(&m, 4, 1, 1, 1.0f), CP_OK);
    assert_int_equal(cp_engine_create(cp_engine_find("host:exact"), host, &m, 1, &e), CP_OK);
    assert_int_equal(cp_engine_build_cache(e), CP_CACHE_NONE);
    cp_engine_destroy(e);
    cp_model_free(&m);
    free(cold.y);
    free(miss.y);
    free(hit.y);
}

/* An intact file whose binary the driver refuses: the source is built, and the entry is
 * rewritten with a binary that works. */
static void test_engine_refused_binary(void **state)
{
    (void)state;
    if (!require_device())
        skip();
    char dir[4096], why[256];
    use_folder("refused", dir, sizeof dir);
    setenv("CLPARITY_OWN_KERNEL", "naive", 1); /* the program is block.cl, -cl-std=CL1.2 */
    setenv("CLPARITY_CACHE", "off", 1);
    struct built cold = run_own();
    unsetenv("CLPARITY_CACHE");
    char *src = NULL; /* block.cl with mac.cl expanded: the bytes built */
    size_t src_len = 0;
    assert_int_equal(cp_program_source("block.cl", &src, &src_len), CP_OK);
    struct cp_cache_key k;
    assert_int_equal(cp_cache_key_for(&k, cl_dev->device_id, "block.cl", src, src_len,
                                      "-cl-std=CL1.2", why, sizeof why),
                     CP_OK);
    free(src);
    static const char junk[] = "not a program binary of any driver";
    assert_true(cp_cache_store(&k, junk, sizeof junk, why, sizeof why));
    struct built b = run_own();
    assert_int_equal(b.state, CP_CACHE_MISS);
    fprintf(stderr, "refused binary: %s\n", b.note);
    assert_non_null(strstr(b.note, "bad entry replaced: cl"));
    assert_memory_equal(b.y, cold.y, 3 * 64 * sizeof(float));
    struct built again = run_own();
    assert_int_equal(again.state, CP_CACHE_HIT);
    assert_memory_equal(again.y, cold.y, 3 * 64 * sizeof(float));
    cp_cache_key_free(&k);
    unsetenv("CLPARITY_OWN_KERNEL");
    free(cold.y);
    free(b.y);
    free(again.y);
}

/* CLPARITY_KERNEL_DIR: the key follows the bytes built, not the file's name. */
static void test_engine_kernel_dir(void **state)
{
    (void)state;
    if (!require_device())
        skip();
    char dir[4096], kdir[4096], path[4200];
    use_folder("kernel_dir", dir, sizeof dir);
    setenv("CLPARITY_OWN_KERNEL", "naive", 1); /* one program: block.cl */
    struct built embedded = run_own();
    assert_int_equal(embedded.state, CP_CACHE_MISS);
    snprintf(kdir, sizeof kdir, "%s/kernel_dir/kernels", scratch);
    assert_int_equal(mkdir(kdir, 0700), 0);
    /* block.cl and what it includes (mac.cl): a kernel folder holds every source built */
    static const char *const names[] = {"mac.cl", "block.cl"};
    for (size_t n = 0; n < 2; ++n) {
        const struct cp_kernel_source *src = NULL;
        for (size_t i = 0; i < cp_kernel_source_count; ++i)
            if (strcmp(cp_kernel_sources[i].name, names[n]) == 0)
                src = &cp_kernel_sources[i];
        assert_non_null(src);
        snprintf(path, sizeof path, "%s/%s", kdir, names[n]);
        write_file(path, src->data, src->len);
    }
    setenv("CLPARITY_KERNEL_DIR", kdir, 1);
    struct built same = run_own(); /* the same bytes: the same entry */
    assert_int_equal(same.state, CP_CACHE_HIT);
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    fputs("\n/* edited */\n", f);
    fclose(f);
    struct built edited = run_own();
    assert_int_equal(edited.state, CP_CACHE_MISS);
    assert_int_equal(count_entries(dir), 2);
    assert_memory_equal(edited.y, embedded.y, 3 * 64 * sizeof(float));
    unsetenv("CLPARITY_KERNEL_DIR");
    unsetenv("CLPARITY_OWN_KERNEL");
    free(embedded.y);
    free(same.y);
    free(edited.y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cache SCRATCH_DIR\n");
        return 1;
    }
    scratch = argv[1];
    if (mkdir(scratch, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s: %s\n", scratch, strerror(errno));
        return 1;
    }
    if (cp_devlist_enumerate(&devs) != CP_OK) {
        fprintf(stderr, "%s\n", cp_err_msg());
        return 1;
    }
    cl_dev = find_kind(&devs, CP_DEV_OPENCL);
    host = find_kind(&devs, CP_DEV_HOST);
    if (cl_dev)
        fprintf(stderr, "OpenCL device: %s (%s)\n", cl_dev->name, cl_dev->platform);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_key),
        cmocka_unit_test(test_store_load),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_eviction),
        cmocka_unit_test(test_unwritable),
        cmocka_unit_test(test_list_clear),
        cmocka_unit_test(test_engine_hit_identical),
        cmocka_unit_test(test_engine_refused_binary),
        cmocka_unit_test(test_engine_kernel_dir),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cp_devlist_free(&devs);
    return rc;
}
