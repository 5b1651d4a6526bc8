/* The on-disk program-binary cache. Nothing here is fatal to a build: every problem with the
 * cache (a bad file, an unwritable folder, a driver that refuses a binary) ends in a build
 * from source, and the reason is handed back as text for the caller to show. The layout of a
 * file is described in cache-impl.h. */
#include "clparity/env.h"
#include "cache-impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MAX_BYTES (256ull << 20)
/* No program binary comes near this; a larger file is garbage and is not read whole. */
#define MAX_FILE_BYTES (1ull << 30)
#define MAX_KEY_BYTES (1u << 16)
/* A temporary file this old belongs to a writer that died; eviction removes it. */
#define STALE_TMP_SECONDS 3600

static const char magic[8] = {'C', 'L', 'P', 'C', 'A', 'C', 'H', 'E'};

const char *cp_cache_state_name(enum cp_cache_state s)
{
    switch (s) {
    case CP_CACHE_NONE:
        return NULL;
    case CP_CACHE_OFF:
        return "off";
    case CP_CACHE_MISS:
        return "miss";
    case CP_CACHE_HIT:
        return "hit";
    }
    return NULL;
}

bool cp_cache_enabled(void)
{
    /* on,off,1,0,yes,no,true,false: the odd ones are off. A bad value was refused before any
     * work (cp_env_check_all); here it leaves the cache on. */
    int w;
    return cp_env_word("CLPARITY_CACHE", &w) != CP_OK || w < 0 || w % 2 == 0;
}

int cp_cache_dir(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && xdg[0])
        n = snprintf(buf, len, "%s/clparity", xdg);
    else if (home && home[0])
        n = snprintf(buf, len, "%s/.cache/clparity", home);
    else
        return cp_err_set(CP_FAIL_USAGE, "program cache: neither XDG_CACHE_HOME nor HOME is set");
    if (n < 0 || (size_t)n >= len)
        return cp_err_set(CP_FAIL_RUNTIME, "program cache: the folder's path is too long");
    return CP_OK;
}

unsigned long long cp_cache_max_bytes(bool *valid)
{
    if (valid)
        *valid = true;
    /* The table's range, 0 to 2^40 MiB, is far beyond any disk and keeps the product inside 64
     * bits. A bad value was refused before any work (cp_env_check_all). */
    double mb;
    bool set;
    if (cp_env_number("CLPARITY_CACHE_MAX_MB", &mb, &set) != CP_OK) {
        if (valid)
            *valid = false;
        return DEFAULT_MAX_BYTES;
    }
    return set ? (unsigned long long)(mb * 1048576.0) : DEFAULT_MAX_BYTES;
}

bool cp_sha256(const void *data, size_t len, unsigned char out[32])
{
    unsigned int n = 0;
    return EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) == 1 && n == 32;
}

static void hex_of(const unsigned char *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; ++i) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

/* ---- keys ------------------------------------------------------------------------------- */

enum { N_FIELDS = 9 };

int cp_cache_key_init(struct cp_cache_key *k, const struct cp_cache_fields *f)
{
    memset(k, 0, sizeof *k);
    const void *data[N_FIELDS] = {f->kernel, f->source_sha256, f->options,
                                  f->device, f->vendor,        f->device_version,
                                  f->driver, f->platform,      f->platform_version};
    size_t lens[N_FIELDS];
    size_t total = 0;
    for (int i = 0; i < N_FIELDS; ++i) {
        lens[i] = i == 1 ? 32 : strlen(data[i] ? data[i] : "");
        total += 4 + lens[i];
    }
    if (total > MAX_KEY_BYTES)
        return cp_err_set(CP_FAIL_RUNTIME, "program cache: key of %zu bytes is too long", total);
    k->bytes = malloc(total);
    if (!k->bytes)
        return cp_err_set(CP_FAIL_RUNTIME, "program cache: out of memory");
    unsigned char *p = k->bytes;
    for (int i = 0; i < N_FIELDS; ++i) {
        put_u32(p, (uint32_t)lens[i]);
        if (lens[i])
            memcpy(p + 4, data[i], lens[i]);
        p += 4 + lens[i];
    }
    k->len = total;
    if (!cp_sha256(k->bytes, k->len, k->sha256)) {
        cp_cache_key_free(k);
        return cp_err_set(CP_FAIL_RUNTIME, "program cache: SHA-256 failed");
    }
    char hex[65];
    hex_of(k->sha256, 32, hex);
    snprintf(k->file, sizeof k->file, "%s.bin", hex);
    return CP_OK;
}

void cp_cache_key_free(struct cp_cache_key *k)
{
    free(k->bytes);
    k->bytes = NULL;
    k->len = 0;
}

/* A string property of a device or platform, malloc'd. */
static cl_int info_str(bool platform, void *obj, cl_uint param, char **out)
{
    size_t n = 0;
    cl_int rc = platform ? clGetPlatformInfo(obj, param, 0, NULL, &n)
                         : clGetDeviceInfo(obj, param, 0, NULL, &n);
    if (rc != CL_SUCCESS)
        return rc;
    *out = calloc(n + 1, 1);
    if (!*out)
        return CL_OUT_OF_HOST_MEMORY;
    return platform ? clGetPlatformInfo(obj, param, n, *out, NULL)
                    : clGetDeviceInfo(obj, param, n, *out, NULL);
}

int cp_cache_key_for(struct cp_cache_key *k, cl_device_id dev, const char *kernel,
                     const void *source, size_t source_len, const char *options, char *why,
                     size_t why_len)
{
    memset(k, 0, sizeof *k);
    struct cp_cache_fields f = {.kernel = kernel, .options = options};
    char *s[6] = {NULL};
    static const struct {
        bool platform;
        cl_uint param;
        const char *call;
    } props[6] = {
        {false, CL_DEVICE_NAME, "clGetDeviceInfo(CL_DEVICE_NAME)"},
        {false, CL_DEVICE_VENDOR, "clGetDeviceInfo(CL_DEVICE_VENDOR)"},
        {false, CL_DEVICE_VERSION, "clGetDeviceInfo(CL_DEVICE_VERSION)"},
        {false, CL_DRIVER_VERSION, "clGetDeviceInfo(CL_DRIVER_VERSION)"},
        {true, CL_PLATFORM_NAME, "clGetPlatformInfo(CL_PLATFORM_NAME)"},
        {true, CL_PLATFORM_VERSION, "clGetPlatformInfo(CL_PLATFORM_VERSION)"},
    };
    int st = CP_FAIL_RUNTIME;
    cl_platform_id plat = NULL;
    cl_int rc = clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    if (rc != CL_SUCCESS) {
        snprintf(why, why_len, "clGetDeviceInfo(CL_DEVICE_PLATFORM) failed: %s (%d)",
                 cp_cl_error_name(rc), rc);
        goto out;
    }
    for (int i = 0; i < 6; ++i) {
        rc = info_str(props[i].platform, props[i].platform ? (void *)plat : (void *)dev,
                      props[i].param, &s[i]);
        if (rc != CL_SUCCESS) {
            snprintf(why, why_len, "%s failed: %s (%d)", props[i].call, cp_cl_error_name(rc), rc);
            goto out;
        }
    }
    f.device = s[0];
    f.vendor = s[1];
    f.device_version = s[2];
    f.driver = s[3];
    f.platform = s[4];
    f.platform_version = s[5];
    if (!cp_sha256(source, source_len, f.source_sha256)) {
        snprintf(why, why_len, "SHA-256 of the source failed");
        goto out;
    }
    st = cp_cache_key_init(k, &f);
    if (st != CP_OK)
        snprintf(why, why_len, "%s", cp_err_msg());
out:
    for (int i = 0; i < 6; ++i)
        free(s[i]);
    return st;
}

/* ---- files ------------------------------------------------------------------------------ */

static bool is_hex64(const char *s)
{
    for (int i = 0; i < 64; ++i)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

/* Our names only, so that clear and eviction never touch a file that is not ours. */
static bool is_entry_name(const char *s)
{
    return strlen(s) == 68 && is_hex64(s) && strcmp(s + 64, ".bin") == 0;
}

static bool is_tmp_name(const char *s)
{
    size_t n = strlen(s);
    if (n <= 73 || !is_hex64(s) || strncmp(s + 64, ".bin.tmp.", 9) != 0)
        return false;
    return strspn(s + 73, "0123456789") == n - 73;
}

/* The parts of a file's bytes, once every check has passed. */
struct parsed {
    const unsigned char *key;
    size_t key_len;
    const unsigned char *payload;
    size_t payload_len;
    unsigned char key_sha256[32];
};

static bool parse_entry(const unsigned char *b, size_t n, struct parsed *p, char *why,
                        size_t why_len)
{
    if (n < CP_CACHE_HEADER) {
        snprintf(why, why_len, "truncated header (%zu bytes)", n);
        return false;
    }
    if (memcmp(b, magic, sizeof magic) != 0) {
        snprintf(why, why_len, "not a clparity cache file (bad magic)");
        return false;
    }
    uint32_t version = get_u32(b + 8);
    if (version != CP_CACHE_FORMAT) {
        snprintf(why, why_len, "format version %u, expected %u", version, CP_CACHE_FORMAT);
        return false;
    }
    uint64_t key_len = get_u32(b + 12), payload_len = get_u64(b + 48);
    if (key_len > MAX_KEY_BYTES || payload_len > MAX_FILE_BYTES ||
        CP_CACHE_HEADER + key_len + payload_len != n) {
        snprintf(why, why_len, "%s: %zu bytes where the header says %llu",
                 CP_CACHE_HEADER + key_len + payload_len > n ? "truncated" : "wrong length", n,
                 (unsigned long long)(CP_CACHE_HEADER + key_len + payload_len));
        return false;
    }
    p->key = b + CP_CACHE_HEADER;
    p->key_len = (size_t)key_len;
    p->payload = p->key + key_len;
    p->payload_len = (size_t)payload_len;
    memcpy(p->key_sha256, b + 16, 32);
    unsigned char sum[32];
    if (!cp_sha256(p->key, p->key_len, sum) || memcmp(sum, b + 16, 32) != 0) {
        snprintf(why, why_len, "key checksum mismatch");
        return false;
    }
    if (!cp_sha256(p->payload, p->payload_len, sum) || memcmp(sum, b + 56, 32) != 0) {
        snprintf(why, why_len, "payload checksum mismatch");
        return false;
    }
    return true;
}

/* Reads an open file whole (at most MAX_FILE_BYTES). */
static bool read_fd(int fd, unsigned char **buf, size_t *n, char *why, size_t why_len)
{
    struct stat sb;
    *buf = NULL;
    if (fstat(fd, &sb) != 0) {
        snprintf(why, why_len, "stat: %s", strerror(errno));
        return false;
    }
    if (!S_ISREG(sb.st_mode) || (unsigned long long)sb.st_size > MAX_FILE_BYTES) {
        snprintf(why, why_len, "not a regular file of a sane size");
        return false;
    }
    size_t want = (size_t)sb.st_size;
    *buf = malloc(want ? want : 1);
    if (!*buf) {
        snprintf(why, why_len, "out of memory reading %zu bytes", want);
        return false;
    }
    size_t got = 0;
    while (got < want) {
        ssize_t r = read(fd, *buf + got, want - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            snprintf(why, why_len, "read: %s", r < 0 ? strerror(errno) : "file shrank");
            free(*buf);
            *buf = NULL;
            return false;
        }
        got += (size_t)r;
    }
    *n = got;
    return true;
}

static bool entry_path(const char *file, char *path, size_t len, char *why, size_t why_len)
{
    char dir[4096];
    if (cp_cache_dir(dir, sizeof dir) != CP_OK) {
        snprintf(why, why_len, "%s", cp_err_msg());
        return false;
    }
    int n = snprintf(path, len, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= len) {
        snprintf(why, why_len, "path too long");
        return false;
    }
    return true;
}

bool cp_cache_load(const struct cp_cache_key *k, unsigned char **payload, size_t *len, char *why,
                   size_t why_len)
{
    *payload = NULL;
    *len = 0;
    char path[4200];
    if (!entry_path(k->file, path, sizeof path, why, why_len))
        return false;
    /* O_NONBLOCK: a FIFO under an entry's name must not hang the build; fstat rejects it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            snprintf(why, why_len, "no entry");
        else
            snprintf(why, why_len, "cannot open %s: %s", path, strerror(errno));
        return false;
    }
    bool ok = false;
    unsigned char *buf = NULL;
    size_t n = 0;
    struct parsed p;
    if (!read_fd(fd, &buf, &n, why, why_len) || !parse_entry(buf, n, &p, why, why_len))
        goto out;
    /* A valid file of another key: copied over this name, or a SHA-256 collision. */
    if (memcmp(p.key_sha256, k->sha256, 32) != 0 || p.key_len != k->len ||
        memcmp(p.key, k->bytes, k->len) != 0) {
        snprintf(why, why_len, "an entry of another key");
        goto out;
    }
    *payload = malloc(p.payload_len ? p.payload_len : 1);
    if (!*payload) {
        snprintf(why, why_len, "out of memory");
        goto out;
    }
    memcpy(*payload, p.payload, p.payload_len);
    *len = p.payload_len;
    /* Recently used: eviction goes by mtime. Failing (a read-only folder) costs nothing. */
    (void)futimens(fd, NULL);
    ok = true;
out:
    free(buf);
    close(fd);
    return ok;
}

/* mkdir -p, with 0700 as the XDG base directory specification asks for cache folders. */
bool cp_cache_make_dirs(const char *dir, char *why, size_t why_len)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
        snprintf(why, why_len, "path too long");
        return false;
    }
    for (char *s = p + 1;; ++s) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            snprintf(why, why_len, "cannot create %s: %s", p, strerror(errno));
            return false;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(why, why_len, "%s is not a folder", dir);
        return false;
    }
    return true;
}

struct file_info {
    char name[80];
    unsigned long long bytes;
    struct timespec mtime;
};

static int older_first(const void *a, const void *b)
{
    const struct file_info *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Our entries in dir (all but `skip`), oldest first. Stale temporary files are removed on the
 * way when remove_stale_tmp is set. */
static bool scan_entries(const char *dir, const char *skip, bool remove_stale_tmp,
                         struct file_info **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    DIR *d = opendir(dir);
    if (!d) /* a folder that cannot exist holds no entries */
        return errno == ENOENT || errno == ENOTDIR;
    struct file_info *v = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    time_t now = time(NULL);
    struct dirent *de;
    while ((de = readdir(d))) {
        bool entry = is_entry_name(de->d_name), tmp = !entry && is_tmp_name(de->d_name);
        if (!entry && !tmp)
            continue;
        if (skip && strcmp(de->d_name, skip) == 0)
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (tmp) {
            if (remove_stale_tmp && now - sb.st_mtim.tv_sec > STALE_TMP_SECONDS)
                (void)unlink(path);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            struct file_info *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                ok = false;
                break;
            }
            v = nv;
        }
        /* Entry names are 68 characters; the check also keeps gcc's -Wformat-truncation
         * (which fires in the sanitizer build) satisfied. */
        size_t len = strlen(de->d_name);
        if (len >= sizeof v[n].name)
            continue;
        memcpy(v[n].name, de->d_name, len + 1);
        v[n].bytes = (unsigned long long)sb.st_size;
        v[n].mtime = sb.st_mtim;
        n++;
    }
    closedir(d);
    if (!ok) {
        free(v);
        return false;
    }
    if (n)
        qsort(v, n, sizeof *v, older_first);
    *out = v;
    *n_out = n;
    return true;
}

/* Removes the least recently used entries until `need` more bytes fit under the cap. */
static void evict(const char *dir, const char *replacing, unsigned long long need,
                  unsigned long long cap)
{
    struct file_info *v;
    size_t n;
    if (!scan_entries(dir, replacing, true, &v, &n))
        return;
    unsigned long long total = 0;
    for (size_t i = 0; i < n; ++i)
        total += v[i].bytes;
    for (size_t i = 0; i < n && total + need > cap; ++i) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, v[i].name);
        /* Another process may have removed it first: the bytes are gone either way. */
        if (unlink(path) == 0 || errno == ENOENT)
            total -= v[i].bytes;
    }
    free(v);
}

static bool write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        len -= (size_t)w;
    }
    return true;
}

bool cp_cache_store(const struct cp_cache_key *k, const void *payload, size_t len, char *why,
                    size_t why_len)
{
    char dir[4096];
    if (cp_cache_dir(dir, sizeof dir) != CP_OK) {
        snprintf(why, why_len, "%s", cp_err_msg());
        return false;
    }
    unsigned long long need = CP_CACHE_HEADER + (unsigned long long)k->len + len;
    unsigned long long cap = cp_cache_max_bytes(NULL);
    if (need > cap) {
        snprintf(why, why_len, "the entry's %llu bytes exceed the cap of %llu bytes", need, cap);
        return false;
    }
    if (!cp_cache_make_dirs(dir, why, why_len))
        return false;
    evict(dir, k->file, need, cap);

    unsigned char head[CP_CACHE_HEADER];
    memcpy(head, magic, sizeof magic);
    put_u32(head + 8, CP_CACHE_FORMAT);
    put_u32(head + 12, (uint32_t)k->len);
    memcpy(head + 16, k->sha256, 32);
    put_u64(head + 48, (uint64_t)len);
    if (!cp_sha256(payload, len, head + 56)) {
        snprintf(why, why_len, "SHA-256 of the payload failed");
        return false;
    }
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", dir, k->file);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(why, why_len, "cannot write %s: %s", tmp, strerror(errno));
        return false;
    }
    bool ok = write_all(fd, head, sizeof head) && write_all(fd, k->bytes, k->len) &&
              write_all(fd, payload, len);
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    /* rename() replaces the entry at once: a reader sees the old file or the new one. */
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        (void)unlink(tmp);
        snprintf(why, why_len, "cannot write %s: %s", path, strerror(saved));
    }
    return ok;
}

bool cp_cache_writable(const char *dir, char *why, size_t len)
{
    /* access() answers yes to root everywhere (even in /proc), so try for real, leaving
     * nothing behind: a temporary file of ours in the folder, or when the folder does not
     * exist yet, a probe folder in the deepest one that does. */
    char p[4096], probe[4200];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
        snprintf(why, len, "path too long");
        return false;
    }
    for (bool leaf = true;; leaf = false) {
        struct stat sb;
        if (stat(p, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode)) {
                snprintf(why, len, "%s is not a folder", p);
                return false;
            }
            if (leaf) {
                snprintf(probe, sizeof probe, "%s/%064d.bin.tmp.%ld", p, 0, (long)getpid());
                int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
                if (fd < 0) {
                    snprintf(why, len, "cannot create a file in %s: %s", p, strerror(errno));
                    return false;
                }
                close(fd);
                (void)unlink(probe);
                return true;
            }
            snprintf(probe, sizeof probe, "%s/.clparity-probe.%ld", p, (long)getpid());
            if (mkdir(probe, 0700) != 0) {
                snprintf(why, len, "cannot create a folder in %s: %s", p, strerror(errno));
                return false;
            }
            (void)rmdir(probe);
            return true;
        }
        if (errno != ENOENT) {
            snprintf(why, len, "%s: %s", p, strerror(errno));
            return false;
        }
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) {
            snprintf(why, len, "no folder of %s exists", dir);
            return false;
        }
        *slash = '\0';
    }
}

/* ---- listing and clearing --------------------------------------------------------------- */

/* Copies key field i (a string) into buf, or "" when it is missing. */
static void key_field(const unsigned char *key, size_t len, int want, char *buf, size_t buf_len,
                      bool as_hex)
{
    buf[0] = '\0';
    size_t off = 0;
    for (int i = 0; i < N_FIELDS && off + 4 <= len; ++i) {
        size_t n = get_u32(key + off);
        if (n > len - off - 4)
            return;
        if (i == want) {
            if (as_hex) {
                if (n * 2 + 1 <= buf_len)
                    hex_of(key + off + 4, n, buf);
            } else {
                size_t c = n < buf_len - 1 ? n : buf_len - 1;
                memcpy(buf, key + off + 4, c);
                buf[c] = '\0';
            }
            return;
        }
        off += 4 + n;
    }
}

static void describe(const char *dir, cp_cache_entry *e, const struct file_info *fi)
{
    snprintf(e->file, sizeof e->file, "%s", fi->name);
    e->bytes = fi->bytes;
    e->mtime = fi->mtime.tv_sec;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, fi->name);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(e->problem, sizeof e->problem, "cannot open: %s", strerror(errno));
        return;
    }
    unsigned char *buf = NULL;
    size_t n = 0;
    struct parsed p;
    if (!read_fd(fd, &buf, &n, e->problem, sizeof e->problem) ||
        !parse_entry(buf, n, &p, e->problem, sizeof e->problem))
        goto out;
    key_field(p.key, p.key_len, 0, e->kernel, sizeof e->kernel, false);
    key_field(p.key, p.key_len, 1, e->source_sha256, sizeof e->source_sha256, true);
    key_field(p.key, p.key_len, 2, e->options, sizeof e->options, false);
    key_field(p.key, p.key_len, 3, e->device, sizeof e->device, false);
    key_field(p.key, p.key_len, 4, e->vendor, sizeof e->vendor, false);
    key_field(p.key, p.key_len, 6, e->driver, sizeof e->driver, false);
    key_field(p.key, p.key_len, 7, e->platform, sizeof e->platform, false);
    key_field(p.key, p.key_len, 8, e->platform_version, sizeof e->platform_version, false);
    char hex[65];
    hex_of(p.key_sha256, 32, hex);
    if (strncmp(fi->name, hex, 64) != 0) {
        snprintf(e->problem, sizeof e->problem, "an entry of another key");
        goto out;
    }
    e->valid = true;
out:
    free(buf);
    close(fd);
}

int cp_cache_list(const char *dir, cp_cache_listing *out)
{
    memset(out, 0, sizeof *out);
    struct file_info *v;
    size_t n;
    if (!scan_entries(dir, NULL, false, &v, &n))
        return cp_err_set(CP_FAIL_RUNTIME, "cannot read %s: %s", dir, strerror(errno));
    if (n) {
        out->v = calloc(n, sizeof *out->v);
        if (!out->v) {
            free(v);
            return cp_err_set(CP_FAIL_RUNTIME, "out of memory listing %s", dir);
        }
    }
    /* Newest first: the order in which eviction would keep them. */
    for (size_t i = 0; i < n; ++i) {
        describe(dir, &out->v[i], &v[n - 1 - i]);
        out->bytes += out->v[i].bytes;
    }
    out->n = n;
    free(v);
    return CP_OK;
}

void cp_cache_listing_free(cp_cache_listing *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

int cp_cache_clear(const char *dir, size_t *removed, unsigned long long *bytes)
{
    *removed = 0;
    *bytes = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT || errno == ENOTDIR)
            return CP_OK;
        return cp_err_set(CP_FAIL_RUNTIME, "cannot read %s: %s", dir, strerror(errno));
    }
    int st = CP_OK;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!is_entry_name(de->d_name) && !is_tmp_name(de->d_name))
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (unlink(path) != 0) {
            if (errno == ENOENT)
                continue;
            st = cp_err_set(CP_FAIL_RUNTIME, "cannot remove %s: %s", path, strerror(errno));
            break;
        }
        (*removed)++;
        *bytes += (unsigned long long)sb.st_size;
    }
    closedir(d);
    return st;
}
