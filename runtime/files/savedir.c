/* --save folders written as a whole: the files go to a hidden temporary sibling
 * ".DIR.clparity-tmp.<pid>", every file and the folder are synced, and then the folder takes
 * DIR's place in one step (renameat2's RENAME_EXCHANGE on Linux; elsewhere, or where the file
 * system refuses it, DIR is renamed to ".DIR.clparity-old.<pid>" and the new folder to DIR).
 * At every instant DIR is the old folder or the new one, whole (in the fallback, between its
 * two renames, DIR is missing and both folders are whole beside it: the next save puts the old
 * one back first, clean_leftovers); a failure leaves the old one as it was.
 *
 * Only a folder that clparity wrote is replaced (issue 32): its index.json lists, under
 * "files", every other file of the folder with the FNV-1a 64 of its bytes, and each file must
 * be there with that hash. Anything else (a file not listed, one changed since, a subfolder,
 * an index.json that is not clparity's) is refused with CP_FAIL_USAGE naming the first such
 * file, before any work (cp_save_check), again before the temporary folder is made
 * (cp_save_begin), and again just before the swap (cp_save_commit). */
#define _GNU_SOURCE /* renameat2(); syscall(), SYS_renameat2 */
#include "clparity/report.h"

#include "clparity/error.h"
#include "clparity/metrics.h"
#include "testhook-impl.h" /* cp_test_hook */
#include "file-impl.h"     /* cp_fopen_regular */

#include <cjson/cJSON.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#ifndef CP_RENAME_EXCHANGE
#define CP_RENAME_EXCHANGE (1 << 1) /* <linux/fs.h>'s RENAME_EXCHANGE */
#endif

struct cp_save {
    char *target; /* DIR, absolute, symbolic links resolved */
    char *parent; /* the folder that holds it */
    char *base;   /* its last component */
    char *work;   /* where the files go: .DIR.clparity-tmp.<pid>, or DIR itself (hook
                     save-nonatomic) */
    bool in_place;
};

/* "<parent>/.<base><tag><our pid>", malloc'd: hidden, and of a pattern that no user's file is
 * likely to take, so that cleaning up leftovers (of dead pids only) touches nothing else. */
static char *sibling(const struct cp_save *s, const char *tag)
{
    size_t len = strlen(s->parent) + strlen(s->base) + strlen(tag) + 32;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s%s.%s%s%ld", s->parent, strcmp(s->parent, "/") == 0 ? "" : "/", s->base,
                 tag, (long)getpid());
    return p;
}

/* Removes path (a file, or a folder and all it holds, without following links). */
static int remove_tree_at(int dfd, const char *name, int depth)
{
    struct stat sb;
    if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(sb.st_mode))
        return unlinkat(dfd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
    if (depth > 16) {
        errno = ELOOP;
        return -1;
    }
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    int rc = 0, err = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (remove_tree_at(fd, e->d_name, depth + 1) != 0 && !err) {
            rc = -1;
            err = errno;
        }
    }
    closedir(d);
    if (unlinkat(dfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT && !err) {
        rc = -1;
        err = errno;
    }
    if (rc)
        errno = err;
    return rc;
}

static int remove_tree(const char *path)
{
    return remove_tree_at(AT_FDCWD, path, 0);
}

/* fsync() of a folder: its entries (the renames into it) reach the disk. A file system
 * that cannot sync folders (EINVAL) has nothing more to do. */
static int sync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return errno;
    int e = fsync(fd) == 0 || errno == EINVAL ? 0 : errno;
    close(fd);
    return e;
}

/* fsync() of every regular file in the folder, then of the folder. Returns 0 or errno. */
static int sync_tree(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return errno;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return e;
    }
    int err = 0;
    struct dirent *e;
    while (!err && (e = readdir(d)) != NULL) {
        struct stat sb;
        if (fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
            continue;
        int f = openat(fd, e->d_name, O_RDONLY);
        if (f < 0 || fsync(f) != 0)
            err = errno;
        if (f >= 0)
            close(f);
    }
    if (!err && fsync(fd) != 0 && errno != EINVAL)
        err = errno;
    closedir(d);
    return err;
}

/* What an earlier save to this place left when it was killed: ".DIR.clparity-tmp.<pid>" and
 * ".DIR.clparity-old.<pid>" of processes that no longer run (nothing else: names of another
 * pattern, and those of older clparity versions, "DIR.tmp.<pid>", are left alone). Where DIR itself
 * is missing (killed between the two renames of the fallback) or an empty folder, the old folder
 * goes back to DIR first. */
static void clean_leftovers(const struct cp_save *s)
{
    DIR *d = opendir(s->parent);
    if (!d)
        return;
    struct dirent *e;
    char path[PATH_MAX + 256];
    while ((e = readdir(d)) != NULL) {
        long pid = cp_leftover_pid(e->d_name, s->base, CP_TMP_TAG);
        bool old = false;
        if (pid < 0) {
            pid = cp_leftover_pid(e->d_name, s->base, CP_OLD_TAG);
            old = pid >= 0;
        }
        if (pid < 0 || pid == (long)getpid() || cp_pid_alive(pid))
            continue;
        snprintf(path, sizeof path, "%s/%s", s->parent, e->d_name);
        struct stat sb;
        /* DIR missing, or the empty folder that the command's early check made since: */
        bool gone =
            old && (lstat(s->target, &sb) != 0 ? errno == ENOENT
                                               : S_ISDIR(sb.st_mode) && rmdir(s->target) == 0);
        if (gone && rename(path, s->target) == 0)
            continue; /* DIR is back as it was before the interrupted save */
        remove_tree(path);
    }
    closedir(d);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a folder but "." and "..", sorted (so that "the first foreign file" is the
 * same on every run); NULL with errno set when it cannot be read. */
static char **list_names(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 16;
    char **v = malloc(cap * sizeof *v);
    struct dirent *e;
    while (v && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (*n == cap) {
            char **w = realloc(v, (cap *= 2) * sizeof *v);
            if (!w)
                break;
            v = w;
        }
        if (!(v[*n] = strdup(e->d_name)))
            break;
        ++*n;
    }
    bool oom = !v || e != NULL;
    closedir(d);
    if (oom) {
        for (size_t i = 0; v && i < *n; ++i)
            free(v[i]);
        free(v);
        errno = ENOMEM;
        return NULL;
    }
    qsort(v, *n, sizeof *v, cmp_names);
    return v;
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        free(v[i]);
    free(v);
}

/* FNV-1a 64 of a regular file's bytes (not following a link). Returns 0 or errno. */
static int hash_file_at(int dfd, const char *name, uint64_t *h)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno;
    unsigned char buf[1 << 14];
    *h = CP_FNV1A_INIT;
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0)
        *h = cp_hash_fnv1a_more(*h, buf, (size_t)got);
    int e = got < 0 ? errno : 0;
    close(fd);
    return e;
}

/* index.json of a folder, parsed; NULL when it is no regular file or no JSON object, and then
 * *err is 0, or an errno when it could not be read to tell (ENOMEM: memory ran out, in cJSON's
 * parse too, which cannot tell that from a file that is no JSON). */
static cJSON *read_index(const char *dir, int *err)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/index.json", dir);
    char *text;
    size_t len;
    /* A save's index.json is a few KiB per result; 64 MiB is far above any of ours. */
    int e = cp_read_regular(path, (64u << 20) - 1, &text, &len);
    *err = cp_read_says_none(e) ? 0 : e;
    cJSON *j = text ? cJSON_ParseWithLength(text, len) : NULL;
    if (text && !j && cp_json_incomplete())
        *err = ENOMEM;
    free(text);
    if (j && !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        j = NULL;
    }
    return j;
}

/* Whether an index.json is clparity's: schema 1, a version, provenance naming clparity's
 * version (what cp_job_save, train and compare --mpi write). */
static bool index_is_ours(const cJSON *idx)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(idx, "schema");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(idx, "version");
    const cJSON *prov = cJSON_GetObjectItemCaseSensitive(idx, "provenance");
    return cJSON_IsNumber(schema) && schema->valuedouble == 1.0 && cJSON_IsString(version) &&
           version->valuestring[0] &&
           cJSON_IsString(cJSON_GetObjectItemCaseSensitive(prov, "clparity_version"));
}

/* Why a file of the folder is not one of the save that idx describes; NULL when it is. */
static const char *foreign_why(int dfd, const char *name, const cJSON *files)
{
    struct stat sb;
    if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return NULL; /* gone since the listing: nothing to lose */
    if (S_ISDIR(sb.st_mode))
        return "is a folder (a save holds none)";
    if (!S_ISREG(sb.st_mode))
        return "is not a regular file";
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(files, name);
    if (!cJSON_IsString(want))
        return "is not listed in its index.json";
    uint64_t h = 0;
    char hex[32];
    if (hash_file_at(dfd, name, &h) != 0)
        return "cannot be read to check its hash";
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    return strcmp(hex, want->valuestring) == 0 ? NULL
                                               : "was changed since clparity wrote it (its "
                                                 "hash differs from index.json's)";
}

/* A folder that a save may replace as a whole: missing, empty, or a save of clparity's
 * whose files are all listed, with their hashes, in its index.json (see the top). */
static int check_replaceable(const char *dir, const char *shown)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return errno == ENOENT ? CP_OK
                               : cp_err_set(CP_FAIL_RUNTIME, "--save: cannot read %s: %s", shown,
                                            strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return cp_err_set(CP_FAIL_USAGE, "--save: %s is not a directory", shown);
    if (cp_test_hook("guard-off")) /* the fault loop's planted defect: no guard at all */
        return CP_OK;
    size_t n;
    char **names = list_names(dir, &n);
    if (!names)
        return cp_err_set(errno == ENOMEM ? CP_FAIL_RUNTIME : CP_FAIL_USAGE,
                          "--save: cannot read %s: %s", shown, strerror(errno));
    bool has_index = false;
    for (size_t i = 0; i < n; ++i)
        has_index = has_index || strcmp(names[i], "index.json") == 0;
    int err = 0;
    cJSON *idx = has_index ? read_index(dir, &err) : NULL;
    if (err) {
        free_names(names, n);
        return cp_err_set(err == ENOMEM ? CP_FAIL_RUNTIME : CP_FAIL_USAGE,
                          "--save: cannot read %s/index.json to tell whether it is a save of "
                          "clparity's: %s",
                          shown, strerror(err));
    }
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(idx, "files");
    const char *bad = NULL, *why = NULL;
    if (n > 0 && !has_index) {
        bad = names[0];
        why = "is not clparity's: the folder has no index.json";
    } else if (n > 0 && (!idx || !index_is_ours(idx))) {
        bad = "index.json";
        why = "is not clparity's (no schema 1, version and provenance)";
    } else if (n > 0 && !cJSON_IsObject(files)) {
        /* A save of clparity before issue 32 lists no hashes of its files: nothing tells that
         * the folder still holds only them, so it is refused like any other folder. */
        bad = strcmp(names[0], "index.json") != 0 || n == 1 ? names[0] : names[1];
        why = "cannot be told from a file of clparity's: index.json lists no file hashes (a "
              "save of an older clparity)";
    }
    int dfd = bad ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!bad && n > 0 && dfd < 0) {
        int e = errno;
        cJSON_Delete(idx);
        free_names(names, n);
        return cp_err_set(CP_FAIL_USAGE, "--save: cannot read %s: %s", shown, strerror(e));
    }
    for (size_t i = 0; !bad && i < n; ++i)
        if (strcmp(names[i], "index.json") != 0 && (why = foreign_why(dfd, names[i], files)))
            bad = names[i];
    if (dfd >= 0)
        close(dfd);
    int st = CP_OK;
    if (bad)
        st = cp_err_set(CP_FAIL_USAGE,
                        "--save: %s cannot be replaced: %s %s; a save replaces the whole folder: "
                        "name a new or empty folder, or move %s out",
                        shown, bad, why, bad);
    cJSON_Delete(idx);
    free_names(names, n);
    return st;
}

/* Adds "files" to the index.json of the folder just written: every other file in it with the
 * FNV-1a 64 of its bytes, which check_replaceable reads before a later save replaces it. */
static int add_manifest(const char *dir)
{
    int err;
    cJSON *idx = read_index(dir, &err);
    if (!idx)
        return cp_err_set(CP_FAIL_RUNTIME, "--save: cannot read back %s/index.json%s%s", dir,
                          err ? ": " : "", err ? strerror(err) : "");
    size_t n;
    char **names = list_names(dir, &n);
    int dfd = names ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    cJSON *files = cJSON_CreateObject();
    int e = !names || dfd < 0 ? errno : files ? 0 : ENOMEM;
    for (size_t i = 0; !e && i < n; ++i) {
        uint64_t h = 0;
        char hex[32];
        if (strcmp(names[i], "index.json") == 0)
            continue;
        if ((e = hash_file_at(dfd, names[i], &h)) != 0)
            break;
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
        if (!cJSON_AddStringToObject(files, names[i], hex))
            e = ENOMEM;
    }
    if (dfd >= 0)
        close(dfd);
    if (names)
        free_names(names, n);
    int st = CP_OK;
    if (!e) {
        cJSON_DeleteItemFromObjectCaseSensitive(idx, "files");
        cp_json_add(idx, "files", files);
        files = NULL;
        char path[PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/index.json", dir);
        st = cp_json_write(path, idx);
    } else {
        st = cp_err_set(CP_FAIL_RUNTIME, "--save: cannot list the files of %s: %s", dir,
                        strerror(e));
    }
    cJSON_Delete(files);
    cJSON_Delete(idx);
    return st;
}

int cp_save_check(const char *dir)
{
    return check_replaceable(dir, dir);
}

static void cp_save_free(cp_save *s)
{
    if (!s)
        return;
    free(s->target);
    free(s->parent);
    free(s->base);
    if (s->work != s->target)
        free(s->work);
    free(s);
}

/* DIR as an absolute path with links resolved (its parent's, where DIR does not exist yet),
 * split into parent and last component. */
static int resolve(cp_save *s, const char *dir)
{
    size_t n = strlen(dir);
    char *copy = malloc(n + 2);
    if (!copy)
        return cp_err_set(CP_FAIL_RUNTIME, "--save: out of memory");
    memcpy(copy, dir, n + 1);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
    char *real = realpath(copy, NULL);
    if (!real && errno == ENOENT) {
        char *slash = strrchr(copy, '/');
        const char *base = slash ? slash + 1 : copy;
        char *pr = NULL;
        if (!slash)
            pr = realpath(".", NULL);
        else if (slash == copy)
            pr = realpath("/", NULL);
        else {
            *slash = '\0';
            pr = realpath(copy, NULL);
        }
        if (pr && strcmp(base, ".") != 0 && strcmp(base, "..") != 0 && base[0]) {
            size_t len = strlen(pr) + strlen(base) + 2;
            real = malloc(len);
            if (real)
                snprintf(real, len, "%s%s%s", pr, strcmp(pr, "/") == 0 ? "" : "/", base);
        }
        free(pr);
    }
    free(copy);
    if (!real)
        return cp_err_set(CP_FAIL_RUNTIME, "--save: cannot resolve %s: %s", dir, strerror(errno));
    char *slash = strrchr(real, '/');
    if (!slash || !slash[1]) {
        free(real);
        return cp_err_set(CP_FAIL_USAGE, "--save: %s cannot be replaced (a root folder)", dir);
    }
    s->target = real;
    s->base = strdup(slash + 1);
    s->parent = slash == real ? strdup("/") : strndup(real, (size_t)(slash - real));
    if (!s->base || !s->parent)
        return cp_err_set(CP_FAIL_RUNTIME, "--save: out of memory");
    return CP_OK;
}

int cp_save_begin(const char *dir, cp_save **out)
{
    *out = NULL;
    cp_save *s = calloc(1, sizeof *s);
    if (!s)
        return cp_err_set(CP_FAIL_RUNTIME, "--save: out of memory");
    int st = resolve(s, dir);
    if (st == CP_OK)
        st = check_replaceable(s->target, dir);
    if (st != CP_OK) {
        cp_save_free(s);
        return st;
    }
    if (cp_test_hook("save-nonatomic")) { /* the tests' planted fault: write into DIR itself */
        s->work = s->target;
        s->in_place = true;
        if (mkdir(s->work, 0777) != 0 && errno != EEXIST) {
            st = cp_err_set(CP_FAIL_RUNTIME, "--save: cannot create %s: %s", dir, strerror(errno));
            cp_save_free(s);
            return st;
        }
        *out = s;
        return CP_OK;
    }
    clean_leftovers(s);
    s->work = sibling(s, CP_TMP_TAG);
    if (!s->work) {
        cp_save_free(s);
        return cp_err_set(CP_FAIL_RUNTIME, "--save: out of memory");
    }
    remove_tree(s->work); /* an earlier save of this process that failed half-way */
    if (mkdir(s->work, 0777) != 0) {
        st = cp_err_set(CP_FAIL_RUNTIME, "--save: cannot create %s: %s", s->work, strerror(errno));
        cp_save_free(s);
        return st;
    }
    struct stat sb;
    if (stat(s->target, &sb) == 0) /* the new folder keeps the old one's permissions */
        chmod(s->work, sb.st_mode & 07777);
    *out = s;
    return CP_OK;
}

const char *cp_save_dir(const cp_save *s)
{
    return s->work;
}

int cp_save_abort(cp_save *s, int st)
{
    if (!s)
        return st;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", cp_err_msg());
    if (!s->in_place) {
        remove_tree(s->work);
        st = cp_err_set(st, "%s; %s is left as it was", msg, s->target);
    }
    cp_save_free(s);
    return st;
}

/* glibc's renameat2() where it has one (2.28 on), not the raw system call: the same call, and
 * one that tests/faults/shim.c can fail, as it fails every other call of a save. */
static int exchange(const char *a, const char *b)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 28))
    if (!cp_test_hook("save-no-exchange") && !cp_test_hook("save-kill-between-renames"))
        return renameat2(AT_FDCWD, a, AT_FDCWD, b, CP_RENAME_EXCHANGE) == 0 ? 0 : errno;
#elif defined(__linux__) && defined(SYS_renameat2)
    if (!cp_test_hook("save-no-exchange") && !cp_test_hook("save-kill-between-renames"))
        return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, CP_RENAME_EXCHANGE) == 0 ? 0
                                                                                         : errno;
#else
    (void)a;
    (void)b;
#endif
    return ENOSYS;
}

/* The errors of a kernel or file system without RENAME_EXCHANGE. */
static bool exchange_unsupported(int e)
{
#if defined(ENOTSUP) && defined(EOPNOTSUPP) && ENOTSUP != EOPNOTSUPP
    if (e == ENOTSUP)
        return true;
#endif
    return e == ENOSYS || e == EINVAL || e == EOPNOTSUPP;
}

int cp_save_commit(cp_save *s)
{
    int st = add_manifest(s->work);
    if (st != CP_OK)
        return cp_save_abort(s, st);
    int e = sync_tree(s->work);
    if (s->in_place) {
        cp_save_free(s);
        return e ? cp_err_set(CP_FAIL_RUNTIME, "--save: cannot sync: %s", strerror(e)) : CP_OK;
    }
    if (cp_test_hook("save-late-file")) { /* the tests' user, who drops a file into DIR now */
        char late[PATH_MAX + 16];
        snprintf(late, sizeof late, "%s/late.txt", s->target);
        FILE *f = fopen(late, "wx");
        if (f)
            fclose(f);
    }
    /* The folder may have changed while the files were written: checked again at the swap. */
    if (!e && (st = check_replaceable(s->target, s->target)) != CP_OK)
        return cp_save_abort(s, st);
    const char *what = "sync";
    struct stat sb;
    if (!e && lstat(s->target, &sb) != 0) { /* no DIR: the new folder is simply renamed */
        what = "rename";
        e = rename(s->work, s->target) == 0 ? 0 : errno;
    } else if (!e) {
        e = exchange(s->work, s->target);
        /* The fault loop's planted defect (tests/faults/run.py --plant): a failed swap taken for
         * a done one, so that the old folder stays and the run says it saved. */
        if (e != 0 && !exchange_unsupported(e) && cp_test_hook("save-ignore-exchange-error"))
            e = 0;
        if (e == 0) {
            remove_tree(s->work); /* now the old folder */
        } else if (exchange_unsupported(e)) {
            /* Two renames: a crash between them leaves no DIR but .DIR.clparity-old.<pid>
             * (the old folder, whole) and .DIR.clparity-tmp.<pid> (the new one, whole); the
             * next save to this place puts the old one back before it starts. */
            char *old = sibling(s, CP_OLD_TAG);
            what = "rename";
            if (!old) {
                e = ENOMEM;
            } else if (rename(s->target, old) != 0) {
                e = errno;
            } else {
                if (cp_test_hook("save-kill-between-renames"))
                    raise(SIGKILL);
                if (rename(s->work, s->target) != 0) {
                    e = errno;
                    rename(old, s->target); /* the old one back */
                } else {
                    e = 0;
                    remove_tree(old);
                }
            }
            free(old);
        } else {
            what = "exchange";
        }
    }
    if (e) {
        remove_tree(s->work);
        st =
            cp_err_set(CP_FAIL_RUNTIME, "--save: cannot %s %s into place: %s; %s is left as it was",
                       what, s->work, strerror(e), s->target);
    } else if ((e = sync_dir(s->parent)) != 0) {
        st = cp_err_set(CP_FAIL_RUNTIME, "--save: %s saved, but syncing %s failed: %s", s->target,
                        s->parent, strerror(e));
    }
    cp_save_free(s);
    return st;
}
