/* clparity's files at the lowest level, below every reader and writer (npy, safetensors, owned,
 * savedir, tune, report): the temporary names of its atomic writes and their commit, the kind of
 * a file that is not a regular one, the JSON documents' memory accounting and small JSON
 * helpers, and SHA-256. It calls nothing of clparity's but the error module. */
#include "clparity/report.h"
#include "clparity/error.h"
#include "file-impl.h" /* cp_leftover_pid */

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A process of this pid exists (ours or another user's). */
bool cp_pid_alive(long pid)
{
    if (pid <= 0 || pid > INT_MAX)
        return false;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

long cp_leftover_pid(const char *name, const char *base, const char *tag)
{
    size_t nb = strlen(base), nt = strlen(tag);
    if (name[0] != '.' || strncmp(name + 1, base, nb) != 0 || strncmp(name + 1 + nb, tag, nt) != 0)
        return -1;
    const char *p = name + 1 + nb + nt;
    if (!*p || strlen(p) > 9)
        return -1;
    for (const char *c = p; *c; ++c)
        if (*c < '0' || *c > '9')
            return -1;
    return strtol(p, NULL, 10);
}

/* Removes the temporary files that killed writers of path left: ".<name>.clparity-tmp.<pid>"
 * beside it, regular files of pids no longer running. */
static void remove_leftovers(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
             slash ? path : ".");
    const char *base = slash ? slash + 1 : path;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = cp_leftover_pid(e->d_name, base, CP_TMP_TAG);
        struct stat sb;
        if (pid < 0 || pid == (long)getpid() || cp_pid_alive(pid) ||
            fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
            continue;
        (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

char *cp_atomic_tmp_name(const char *path)
{
    struct stat sb;
    size_t plen = strlen(path) + 48;
    char *tmp = malloc(plen);
    if (!tmp)
        return NULL;
    /* Hidden, in path's folder (a rename stays on one file system), and of a pattern no
     * user's file is likely to take: ".<name>.clparity-tmp.<pid>". */
    const char *slash = strrchr(path, '/');
    int dl = slash ? (int)(slash - path) + 1 : 0;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        snprintf(tmp, plen, "%s", path);
    } else {
        remove_leftovers(path);
        snprintf(tmp, plen, "%.*s.%s" CP_TMP_TAG "%ld", dl, path, path + dl, (long)getpid());
    }
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

int cp_read_regular(const char *path, size_t max, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    mode_t mode;
    FILE *f = cp_fopen_regular(path, &mode);
    if (!f)
        return mode ? EINVAL : errno;
    struct stat sb;
    int e = fstat(fileno(f), &sb) != 0 ? errno : (unsigned long long)sb.st_size > max ? EFBIG : 0;
    char *t = e ? NULL : malloc((size_t)sb.st_size + 1);
    if (!e && !t)
        e = ENOMEM;
    size_t n = t ? fread(t, 1, (size_t)sb.st_size, f) : 0; /* less if it shrank meanwhile */
    if (t && ferror(f))
        e = EIO;
    fclose(f);
    if (e) {
        free(t);
        return e;
    }
    t[n] = '\0';
    *text = t;
    *len = n;
    return 0;
}

void cp_atomic_abort(const char *tmp, const char *path)
{
    if (strcmp(tmp, path) != 0)
        remove(tmp);
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

/* cJSON prints a number that is not an int with "%1.15g" and keeps it where reading it back
 * gives a value within DBL_EPSILON relative (not the same double): 17.5 % of random doubles came
 * out one or two ulps off (78309.92237586058 as 78309.9223758606). Each such number of the tree
 * becomes a raw item with the fewest digits (15, 16 or 17) that read back as the same double;
 * every other number prints as before. False when out of memory (json_oom counts it). */
static bool exact_numbers(cJSON *j)
{
    for (cJSON *c = j; c; c = c->next) {
        if (c->child && !exact_numbers(c->child))
            return false;
        double d = c->valuedouble;
        if (!cJSON_IsNumber(c) || !isfinite(d) || d == (double)c->valueint)
            continue;
        char b[40];
        for (int digits = 15; digits <= 17; ++digits) {
            snprintf(b, sizeof b, "%1.*g", digits, d);
            if (strtod(b, NULL) == d)
                break;
        }
        char *raw = cJSON_malloc(strlen(b) + 1);
        if (!raw)
            return false;
        strcpy(raw, b);
        c->type = cJSON_Raw;
        c->valuestring = raw;
    }
    return true;
}

char *cp_json_print(const void *json, bool formatted)
{
    cJSON *copy = cJSON_Duplicate((const cJSON *)json, true);
    char *text = NULL;
    if (copy && exact_numbers(copy))
        text = formatted ? cJSON_Print(copy) : cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
    return text;
}

int cp_json_text(void *json, char **out)
{
    *out = NULL;
    char *text = json ? cp_json_print(json, false) : NULL;
    const char *src = json ? text : "null";
    if (src && !cp_json_incomplete())
        *out = strdup(src); /* malloc'd, for cp_free, whatever allocator cJSON uses */
    cJSON_free(text);
    cJSON_Delete((cJSON *)json);
    if (!*out)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory formatting JSON");
    return CP_OK;
}

void cp_json_add_num_or_null(void *obj, const char *key, double v)
{
    if (v < 0.0 || !isfinite(v))
        cJSON_AddNullToObject(obj, key);
    else
        cJSON_AddNumberToObject(obj, key, v);
}

bool cp_json_add(void *obj, const char *key, void *item)
{
    if (cJSON_AddItemToObject(obj, key, item))
        return true;
    cJSON_Delete(item);
    return false;
}

void cp_json_add_or_null(void *obj, const char *key, void *item)
{
    if (item)
        cp_json_add(obj, key, item);
    else
        cJSON_AddNullToObject(obj, key);
}

bool cp_json_push(void *arr, void *item)
{
    if (cJSON_AddItemToArray(arr, item))
        return true;
    cJSON_Delete(item);
    return false;
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
