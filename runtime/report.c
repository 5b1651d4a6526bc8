#include "clparity/report.h"

#include "clparity/device.h"
#include "clparity/error.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <openssl/evp.h>
#include <dirent.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char *argv_line;

const char *cp_version(void)
{
    return CLPARITY_VERSION;
}

extern const char clparity_git_hash_text[]; /* git_hash.c, written at build time */

const char *cp_git_hash(void)
{
    return clparity_git_hash_text;
}

void cp_provenance_set_argv(int argc, char *const *argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; ++i)
        len += strlen(argv[i]) + 1;
    free(argv_line);
    argv_line = calloc(len, 1);
    if (!argv_line)
        return;
    for (int i = 0; i < argc; ++i) {
        if (i)
            strcat(argv_line, " ");
        strcat(argv_line, argv[i]);
    }
}

static void add_icds(cJSON *prov)
{
    const char *dir = getenv("OCL_ICD_VENDORS");
    if (!dir || !dir[0])
        dir = "/etc/OpenCL/vendors";
    cJSON *icd = cJSON_AddObjectToObject(prov, "icd");
    if (!icd)
        return;
    cJSON_AddStringToObject(icd, "dir", dir);
    cJSON *files = cJSON_AddArrayToObject(icd, "files");
    DIR *d = opendir(dir);
    if (!d || !files) {
        if (d)
            closedir(d);
        return;
    }
    struct dirent *ent;
    while ((ent = readdir(d))) {
        size_t n = strlen(ent->d_name);
        if (n < 5 || strcmp(ent->d_name + n - 4, ".icd") != 0)
            continue;
        char path[4096], lib[1024] = "";
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(lib, sizeof lib, f))
                lib[0] = '\0';
            fclose(f);
        }
        lib[strcspn(lib, "\n")] = '\0';
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "file", ent->d_name);
        cJSON_AddStringToObject(o, "library", lib);
        cJSON_AddItemToArray(files, o);
    }
    closedir(d);
}

void *cp_provenance_json(const char *build_options)
{
    cJSON *p = cJSON_CreateObject();
    if (!p)
        return NULL;
    cJSON_AddStringToObject(p, "clparity_version", cp_version());
    cJSON_AddStringToObject(p, "git_hash", cp_git_hash());
    cJSON_AddStringToObject(p, "command", argv_line ? argv_line : "");
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(p, "date", date);
    char cpu[256];
    cp_host_cpu_name(cpu, sizeof cpu);
    cJSON_AddStringToObject(p, "host_cpu", cpu);
    add_icds(p);
    cJSON *env = cJSON_AddObjectToObject(p, "environment");
    static const char *const prefixes[] = {"OCL_ICD_VENDORS=", "POCL_", "OPENBLAS_", "CLPARITY_"};
    for (char **e = environ; env && e && *e; ++e)
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; ++i) {
            if (strncmp(*e, prefixes[i], strlen(prefixes[i])) != 0)
                continue;
            const char *eq = strchr(*e, '=');
            if (!eq)
                continue;
            char key[256];
            snprintf(key, sizeof key, "%.*s", (int)(eq - *e), *e);
            cJSON_AddStringToObject(env, key, eq + 1);
        }
    cJSON_AddStringToObject(p, "kernel_build_options", build_options ? build_options : "");
    return p;
}

char *cp_atomic_tmp_name(const char *path)
{
    struct stat sb;
    size_t plen = strlen(path) + 32;
    char *tmp = malloc(plen);
    if (!tmp)
        return NULL;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        snprintf(tmp, plen, "%s", path);
    else
        snprintf(tmp, plen, "%s.tmp.%ld", path, (long)getpid());
    return tmp;
}

/* The folder that holds path, synced after a rename into it (EINVAL: a file system that
 * cannot sync folders). */
static void sync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int cp_atomic_commit(const char *tmp, const char *path)
{
    if (strcmp(tmp, path) == 0)
        return 0;
    /* The bytes reach the disk before the name does: after a crash, path is the old file or
     * the whole new one, never a new name over missing data. */
    int fd = open(tmp, O_RDONLY);
    int e = fd < 0 ? errno : fsync(fd) == 0 ? 0 : errno;
    if (fd >= 0)
        close(fd);
    if (e == 0 && rename(tmp, path) == 0) {
        sync_parent(path);
        return 0;
    }
    if (e == 0)
        e = errno;
    remove(tmp);
    return e;
}

void cp_atomic_abort(const char *tmp, const char *path)
{
    if (strcmp(tmp, path) != 0)
        remove(tmp);
}

int cp_file_write_atomic(const char *path, const void *data, size_t len)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
            return cp_err_set(CP_FAIL_RUNTIME, "cannot write to stdout: %s", strerror(errno));
        return CP_OK;
    }
    char *tmp = cp_atomic_tmp_name(path);
    if (!tmp)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory writing %s", path);
    int st = CP_OK;
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        st = cp_err_set(CP_FAIL_RUNTIME, "cannot write %s: %s", path, strerror(errno));
        goto out_free;
    }
    bool ok = fwrite(data, 1, len, f) == len;
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        cp_atomic_abort(tmp, path);
        st = cp_err_set(CP_FAIL_RUNTIME, "cannot write %s: %s", path, strerror(saved));
    } else if ((saved = cp_atomic_commit(tmp, path)) != 0) {
        st = cp_err_set(CP_FAIL_RUNTIME, "cannot write %s: %s", path, strerror(saved));
    }
out_free:
    free(tmp);
    return st;
}

/* cJSON's Add functions drop an item silently when an allocation fails, so a document built
 * out of memory can lack keys or results and still print. Every allocation of cJSON comes
 * through json_malloc (the hooks are set before main), which counts the failures; once one has
 * failed, no JSON document of this process is written as if it were whole. */
static atomic_ulong json_oom;

static void *json_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        atomic_fetch_add(&json_oom, 1);
    return p;
}

__attribute__((constructor)) static void json_hooks(void)
{
    cJSON_Hooks h = {json_malloc, free};
    cJSON_InitHooks(&h);
}

bool cp_json_incomplete(void)
{
    return atomic_load(&json_oom) != 0;
}

const char *cp_file_kind(unsigned int mode)
{
    mode_t m = (mode_t)mode;
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISDIR(m)  ? "a directory"
                         : "not a regular file";
}

int cp_json_write(const char *path, const void *json)
{
    if (cp_json_incomplete())
        return cp_err_set(CP_FAIL_RUNTIME,
                          "out of memory while building the JSON for %s: not written", path);
    char *text = cJSON_Print((const cJSON *)json);
    if (!text)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory formatting JSON for %s", path);
    size_t n = strlen(text);
    text[n] = '\n'; /* cJSON's terminator becomes the final newline */
    int st = cp_file_write_atomic(path, text, n + 1);
    cJSON_free(text);
    return st;
}

void cp_json_add_num_or_null(void *obj, const char *key, double v)
{
    if (v < 0.0 || !isfinite(v))
        cJSON_AddNullToObject(obj, key);
    else
        cJSON_AddNumberToObject(obj, key, v);
}

void cp_fmt_bytes(unsigned long long b, bool small, char *buf, size_t len)
{
    if (b >= (1ULL << 30))
        snprintf(buf, len, "%.2f GiB", (double)b / (double)(1ULL << 30));
    else if (!small || b >= (1ULL << 20))
        snprintf(buf, len, "%.1f MiB", (double)b / (double)(1ULL << 20));
    else if (b >= 1024)
        snprintf(buf, len, "%.1f KiB", (double)b / 1024.0);
    else
        snprintf(buf, len, "%llu B", b);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

cp_stats cp_stats_of(double *v, size_t n)
{
    cp_stats s = {0.0, 0.0, 0.0};
    if (!n)
        return s;
    qsort(v, n, sizeof *v, cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    return s;
}

void cp_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    out[0] = '\0';
    if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL))
        return;
    for (unsigned int i = 0; i < n && i < 32; ++i)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}
