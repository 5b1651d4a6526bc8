/* --save folders written as a whole: the files go to a temporary sibling "DIR.tmp.<pid>",
 * every file and the folder are synced, and then the folder takes DIR's place in one step
 * (renameat2's RENAME_EXCHANGE on Linux; elsewhere, or where the file system refuses it,
 * DIR is renamed to "DIR.old.<pid>" and the new folder to DIR). At every instant DIR is the
 * old folder or the new one, whole; a failure leaves the old one as it was. */
#define _GNU_SOURCE /* renameat2(); syscall(), SYS_renameat2 */
#include "clparity/report.h"

#include "clparity/error.h"
#include "engine-impl.h" /* cp_test_hook */

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
    char *work;   /* where the files go: DIR.tmp.<pid>, or DIR itself (hook save-nonatomic) */
    bool in_place;
};

/* "<path>.<tag>.<our pid>", malloc'd. */
static char *sibling(const char *path, const char *tag)
{
    size_t len = strlen(path) + strlen(tag) + 32;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%s.%s.%ld", path, tag, (long)getpid());
    return s;
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

/* A process of this pid exists (ours or another user's). */
static bool pid_alive(long pid)
{
    if (pid <= 0 || pid > INT_MAX)
        return false;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* name is "<base><tag><digits>": returns the pid, else -1. */
static long leftover_pid(const char *name, const char *base, const char *tag)
{
    size_t nb = strlen(base), nt = strlen(tag);
    if (strncmp(name, base, nb) != 0 || strncmp(name + nb, tag, nt) != 0)
        return -1;
    const char *p = name + nb + nt;
    if (!*p || strlen(p) > 9)
        return -1;
    for (const char *c = p; *c; ++c)
        if (*c < '0' || *c > '9')
            return -1;
    return strtol(p, NULL, 10);
}

/* What an earlier save to this place left when it was killed: "DIR.tmp.<pid>" and
 * "DIR.old.<pid>" of processes that no longer run. Where DIR itself is missing (killed
 * between the two renames of the fallback) or an empty folder, the old folder goes back to
 * DIR first. */
static void clean_leftovers(const struct cp_save *s)
{
    DIR *d = opendir(s->parent);
    if (!d)
        return;
    struct dirent *e;
    char path[PATH_MAX + 256];
    while ((e = readdir(d)) != NULL) {
        long pid = leftover_pid(e->d_name, s->base, ".tmp.");
        bool old = false;
        if (pid < 0) {
            pid = leftover_pid(e->d_name, s->base, ".old.");
            old = pid >= 0;
        }
        if (pid < 0 || pid == (long)getpid() || pid_alive(pid))
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

/* A folder that a save may replace as a whole: missing, empty (but for "*.tmp.<pid>" files),
 * or one that holds index.json, and no subfolder. */
static int check_replaceable(const char *dir, const char *shown)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return errno == ENOENT ? CP_OK
                               : cp_err_set(CP_FAIL_RUNTIME, "--save: cannot read %s: %s", shown,
                                            strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return cp_err_set(CP_FAIL_RUNTIME, "--save: %s is not a directory", shown);
    DIR *d = opendir(dir);
    if (!d)
        return cp_err_set(CP_FAIL_RUNTIME, "--save: cannot read %s: %s", shown, strerror(errno));
    bool index = false, other = false;
    char sub[NAME_MAX + 1] = "";
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat fb;
        if (fstatat(dirfd(d), e->d_name, &fb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(fb.st_mode)) {
            snprintf(sub, sizeof sub, "%s", e->d_name);
            break;
        }
        if (strcmp(e->d_name, "index.json") == 0)
            index = true;
        else if (!strstr(e->d_name, ".tmp."))
            other = true;
    }
    closedir(d);
    if (sub[0])
        return cp_err_set(CP_FAIL_USAGE,
                          "--save: %s holds a folder (%s): not a clparity save folder, and a save "
                          "replaces the whole folder; name a new or empty one",
                          shown, sub);
    if (other && !index)
        return cp_err_set(CP_FAIL_USAGE,
                          "--save: %s holds files but no index.json: not a clparity save folder, "
                          "and a save replaces the whole folder; name a new or empty one",
                          shown);
    return CP_OK;
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
    s->work = sibling(s->target, "tmp");
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
    int e = sync_tree(s->work);
    if (s->in_place) {
        cp_save_free(s);
        return e ? cp_err_set(CP_FAIL_RUNTIME, "--save: cannot sync: %s", strerror(e)) : CP_OK;
    }
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
            /* Two renames: a crash between them leaves no DIR but DIR.old.<pid> (the old
             * folder, whole) and DIR.tmp.<pid> (the new one, whole); the next save to this
             * place puts the old one back before it starts. */
            char *old = sibling(s->target, "old");
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
    int st = CP_OK;
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
