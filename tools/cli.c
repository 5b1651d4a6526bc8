/* realpath() is XSI. */
#define _XOPEN_SOURCE 700

#include "cli.h"
#include "progress.h"

#include "clparity/report.h"
#include "clparity/safetensors.h"
#include "clparity/select.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cli_common_help[] =
    "  --runs N         timed runs (default 10)\n"
    "  --warmup W       warm-up runs before them (default 2)\n"
    "  --json FILE      write the results as JSON ('-' for stdout)\n"
    "  --save DIR       write inputs, weights, every result (.npy) and index.json\n"
    "  --version        print the version and exit\n"
    "  -h, --help       print this help and exit\n";

int cli_fail(const char *cmd, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    progress_clear();
    fprintf(stderr, "clparity %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return status;
}

int cli_parse_long(const char *cmd, const char *opt, const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0')
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: '%s' is not an integer", opt, s);
    if (errno == ERANGE || v < min || v > max)
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: %s is out of range (%ld..%ld)", opt, s, min, max);
    *out = v;
    return CP_OK;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (s[0] == '-')
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: '%s' must not be negative", opt, s);
    unsigned long long v = strtoull(s, &end, 0);
    if (end == s || *end != '\0')
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: '%s' is not an integer", opt, s);
    if (errno == ERANGE)
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: %s is out of range (0..2^64-1)", opt, s);
    *out = (uint64_t)v;
    return CP_OK;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double min, double max,
                     double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0')
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: '%s' is not a number", opt, s);
    if (errno == ERANGE || !isfinite(v) || v < min || v > max)
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: %s is out of range (%g..%g)", opt, s, min, max);
    *out = v;
    return CP_OK;
}

int cli_select_devices(const char *cmd, char **sels, size_t nsel, cp_devlist *devs, bool **chosen)
{
    *chosen = NULL;
    int st = cp_devlist_enumerate(devs);
    if (st != CP_OK)
        return cli_fail(cmd, st, "%s", cp_err_msg());
    *chosen = calloc(devs->n, sizeof **chosen);
    if (!*chosen)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    st = cp_select(devs, (const char *const *)sels, nsel, getenv("CLPARITY_DEVICES"), *chosen);
    /* One line, which says what there is and the fix (not the whole device list). */
    return st == CP_OK ? CP_OK : cli_fail(cmd, st, "%s", cp_err_msg());
}

int cli_select_engines(const char *cmd, const char *list, const cp_devlist *devs,
                       const bool *chosen, bool *use)
{
    int st = cp_select_engines(list, devs, chosen, use);
    return st == CP_OK ? CP_OK : cli_fail(cmd, st, "%s", cp_err_msg());
}

/* An empty name: open("") is ENOENT, but dirname("") is ".", so a check of the folder alone
 * passes and the write fails at the end, after all the work. */
static int check_not_empty(const char *cmd, const char *opt, const char *path, bool out_file)
{
    if (path[0])
        return CP_OK;
    return cli_fail(cmd, CP_FAIL_USAGE, "%s: the path is empty (name a %s%s)", opt,
                    strcmp(opt, "--save") == 0 || strcmp(opt, "folder") == 0 ? "folder" : "file",
                    out_file ? ", or '-' for stdout" : "");
}

int cli_check_output_dir(const char *cmd, const char *dir)
{
    /* Nothing is made before the work: the save is written beside DIR and put in place whole
     * (runtime/files/savedir.c), so a run that fails or is killed leaves no DIR where none was. */
    struct stat sb;
    if (check_not_empty(cmd, "--save", dir, false) != CP_OK)
        return CP_FAIL_USAGE;
    if (stat(dir, &sb) != 0) {
        if (errno != ENOENT)
            return cli_fail(cmd, CP_FAIL_USAGE, "--save: cannot create %s: %s", dir,
                            strerror(errno));
        char *copy = strdup(dir);
        if (!copy)
            return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
        const char *parent = dirname(copy);
        int st = CP_OK;
        if (stat(parent, &sb) != 0)
            st = cli_fail(cmd, CP_FAIL_USAGE, "--save: cannot create %s: %s", dir, strerror(errno));
        else if (!S_ISDIR(sb.st_mode))
            st = cli_fail(cmd, CP_FAIL_USAGE, "--save: cannot create %s: %s", dir,
                          strerror(ENOTDIR));
        else if (access(parent, W_OK | X_OK) != 0)
            st = cli_fail(cmd, CP_FAIL_USAGE, "--save: cannot create %s: %s", dir, strerror(errno));
        free(copy);
        return st;
    }
    if (!S_ISDIR(sb.st_mode))
        return cli_fail(cmd, CP_FAIL_USAGE, "--save: %s exists and is not a directory (%s)", dir,
                        S_ISREG(sb.st_mode) ? "a file" : cp_file_kind(sb.st_mode));
    if (access(dir, W_OK | X_OK) != 0)
        return cli_fail(cmd, CP_FAIL_USAGE, "--save: %s is not writable: %s", dir, strerror(errno));
    int st = cp_save_check(dir); /* a folder that is no save is kept: refused */
    return st == CP_OK ? CP_OK : cli_fail(cmd, st, "%s", cp_err_msg());
}

/* '-' is stdout where the help says so: --json and --csv. Elsewhere (--out) it names a file. */
static bool is_stdout(const char *opt, const char *path)
{
    return strcmp(path, "-") == 0 && (strcmp(opt, "--json") == 0 || strcmp(opt, "--csv") == 0);
}

int cli_check_output_file(const char *cmd, const char *opt, const char *path)
{
    struct stat sb;
    if (is_stdout(opt, path))
        return CP_OK;
    if (check_not_empty(cmd, opt, path, true) != CP_OK)
        return CP_FAIL_USAGE;
    /* A symbolic link loop, a parent that is a file, a folder we may not search, a name too
     * long: the user's to fix, so status 2 now rather than 3 after the work. */
    if (stat(path, &sb) != 0 && errno != ENOENT)
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s", opt, path, strerror(errno));
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: %s is a directory", opt, path);
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "%s: %s is not a regular file (%s); name a file, or '-' for stdout", opt,
                        path, cp_file_kind(sb.st_mode));
    /* The file is written at the end, through a temporary name in its folder: check now,
     * before any work, that the folder exists and can be written. */
    char *copy = strdup(path);
    if (!copy)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    const char *dir = dirname(copy);
    int st = CP_OK;
    if (stat(dir, &sb) != 0)
        st = cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s", opt, path, strerror(errno));
    else if (!S_ISDIR(sb.st_mode))
        st = cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s", opt, path, strerror(ENOTDIR));
    else if (access(dir, W_OK | X_OK) != 0)
        st = cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s", opt, path, strerror(errno));
    free(copy);
    /* Only a file that clparity wrote is replaced (issue 32): told now, before any work, and
     * again by the writer. */
    if (st == CP_OK && (st = cp_output_check(opt, path)) != CP_OK)
        st = cli_fail(cmd, st, "%s", cp_err_msg());
    /* --csv's sidecar FILE.csv.json (tools/csv.c), beside a regular file or a new one. */
    if (st == CP_OK && strcmp(opt, "--csv") == 0 && (stat(path, &sb) != 0 || S_ISREG(sb.st_mode))) {
        char side[4096 + 8];
        if (snprintf(side, sizeof side, "%s.json", path) >= (int)sizeof side)
            st = cli_fail(cmd, CP_FAIL_USAGE, "%s: %s.json: %s", opt, path, strerror(ENAMETOOLONG));
        else if (stat(side, &sb) == 0 && !S_ISREG(sb.st_mode))
            st = cli_fail(cmd, CP_FAIL_USAGE, "%s: its provenance sidecar %s is %s", opt, side,
                          cp_file_kind(sb.st_mode));
        else if ((st = cp_output_check(opt, side)) != CP_OK)
            st = cli_fail(cmd, st, "%s", cp_err_msg());
    }
    return st;
}

int cli_check_store_dir(const char *cmd, const char *what, const char *dir)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: %s: %s", what, dir, strerror(ENAMETOOLONG));
    /* The nearest part of the path that exists: the folders below it are made at the end. */
    for (;;) {
        struct stat sb;
        if (stat(p, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode))
                return cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s is not a folder",
                                what, dir, p);
            if (access(p, W_OK | X_OK) != 0)
                return cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s: %s", what, dir, p,
                                strerror(errno));
            return CP_OK;
        }
        /* "." or "/" gone (a removed working folder) is as bad as any other errno */
        if (errno != ENOENT || strcmp(p, ".") == 0 || strcmp(p, "/") == 0)
            return cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s", what, dir,
                            strerror(errno));
        char *slash = strrchr(p, '/');
        if (!slash)
            snprintf(p, sizeof p, ".");
        else
            slash[slash == p] = '\0'; /* "/x" goes up to "/" */
    }
}

/* A path of cli_check_paths, resolved: whether it exists (and its identity), and its absolute
 * name (realpath of it, or of its folder joined with its name; NULL when neither resolves). */
struct resolved {
    const struct cli_path *p;
    bool exists;
    mode_t mode;
    dev_t dev;
    ino_t ino;
    char *abs;
};

static char *absolute_name(const char *path, bool exists)
{
    if (exists)
        return realpath(path, NULL);
    char *c1 = strdup(path), *c2 = strdup(path), *out = NULL, *dir = NULL;
    const char *parent = c1 ? dirname(c1) : NULL, *base = c2 ? basename(c2) : NULL;
    struct stat sb;
    /* A folder not made yet (--save D --json D/x.json): its own folder's name, and so on. */
    if (parent && base && strcmp(parent, path) != 0)
        dir = absolute_name(parent, stat(parent, &sb) == 0);
    if (dir && (out = malloc(strlen(dir) + strlen(base) + 2)) != NULL)
        sprintf(out, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", base);
    free(dir);
    free(c1);
    free(c2);
    return out;
}

static bool same_file(const struct resolved *a, const struct resolved *b)
{
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return !a->exists && !b->exists && a->abs && b->abs && strcmp(a->abs, b->abs) == 0;
}

/* Whether a lies inside the folder dir (at any depth). */
static bool inside(const struct resolved *a, const struct resolved *dir)
{
    if (!a->abs || !dir->abs)
        return false;
    size_t n = strlen(dir->abs);
    if (n == 1) /* "/" */
        return a->abs[1] != '\0';
    return strncmp(a->abs, dir->abs, n) == 0 && a->abs[n] == '/';
}

static bool is_output(const struct cli_path *p)
{
    return p->kind == CLI_OUT_FILE || p->kind == CLI_OUT_DIR || p->kind == CLI_OUT_SIDECAR;
}

/* Checks one path alone: inputs that exist must be regular files (folders for CLI_IN_DIR),
 * outputs as cli_check_output_file says, an output folder must be (or be creatable as) a
 * folder that can be written. */
static int check_alone(const char *cmd, const struct cli_path *p, const struct stat *sb,
                       bool exists)
{
    if (p->kind == CLI_IN_FILE && exists && !S_ISREG(sb->st_mode))
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: %s is not a regular file (%s)", p->opt, p->path,
                        cp_file_kind(sb->st_mode));
    if (p->kind == CLI_IN_DIR && exists && !S_ISDIR(sb->st_mode))
        return cli_fail(cmd, CP_FAIL_USAGE, "%s is not a folder (%s)", p->path,
                        S_ISREG(sb->st_mode) ? "a file" : cp_file_kind(sb->st_mode));
    if (p->kind == CLI_OUT_FILE)
        return cli_check_output_file(cmd, p->opt, p->path);
    if (p->kind != CLI_OUT_DIR)
        return CP_OK;
    if (exists && !S_ISDIR(sb->st_mode))
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: %s exists and is not a directory (%s)", p->opt,
                        p->path, S_ISREG(sb->st_mode) ? "a file" : cp_file_kind(sb->st_mode));
    if (exists && access(p->path, W_OK | X_OK) != 0)
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: %s is not writable: %s", p->opt, p->path,
                        strerror(errno));
    if (exists)
        return CP_OK;
    char *copy = strdup(p->path);
    if (!copy)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    struct stat pb;
    const char *dir = dirname(copy);
    int st = CP_OK;
    if (stat(dir, &pb) != 0)
        st = cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s", p->opt, p->path,
                      strerror(errno));
    else if (!S_ISDIR(pb.st_mode))
        st = cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s", p->opt, p->path,
                      strerror(ENOTDIR));
    else if (access(dir, W_OK | X_OK) != 0)
        st = cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s", p->opt, p->path,
                      strerror(errno));
    free(copy);
    return st;
}

/* Two paths against each other: an output may not be an input, another output, or lie inside
 * an output folder; an input may not lie inside an output folder (the run writes there); an
 * output inside an input folder may not be one of its files (one that exists, index.json or
 * a .npy). */
static int check_pair(const char *cmd, const struct resolved *a, const struct resolved *b)
{
    const struct cli_path *pa = a->p, *pb = b->p;
    if (!is_output(pa) && !is_output(pb))
        return CP_OK;
    if (!is_output(pa)) { /* the output first */
        const struct resolved *t = a;
        a = b;
        b = t;
        pa = a->p;
        pb = b->p;
    }
    if (same_file(a, b))
        return is_output(pb)
                   ? cli_fail(cmd, CP_FAIL_USAGE,
                              "%s %s and %s %s are the same file: each output needs a path of "
                              "its own",
                              pb->opt, pb->path, pa->opt, pa->path)
                   : cli_fail(cmd, CP_FAIL_USAGE,
                              "%s %s is also %s %s: the run would overwrite its input", pa->opt,
                              pa->path, pb->opt, pb->path);
    if (pb->kind == CLI_OUT_DIR && inside(a, b))
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "%s %s is inside %s %s, which the run writes: give it a path outside",
                        pa->opt, pa->path, pb->opt, pb->path);
    if (pa->kind == CLI_OUT_DIR && inside(b, a))
        return cli_fail(cmd, CP_FAIL_USAGE, "%s %s is inside %s %s, which the run writes: %s",
                        pb->opt, pb->path, pa->opt, pa->path,
                        is_output(pb) ? "give it a path outside"
                                      : "the run would overwrite its input");
    if (pb->kind == CLI_IN_DIR && inside(a, b) &&
        (a->exists || cli_ends_with(a->abs, "/index.json") || cli_ends_with(a->abs, ".npy")))
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "%s %s is inside %s, a folder that this command reads: give it a path "
                        "outside",
                        pa->opt, pa->path, pb->path);
    return CP_OK;
}

static void free_sidecars(struct cli_path *a, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (a[i].kind == CLI_OUT_SIDECAR)
            free((char *)a[i].path);
    free(a);
}

/* --csv FILE also writes FILE.json, its provenance sidecar (tools/csv.c): a path of its own in
 * the checks against the others (--csv r.csv --json r.csv.json would write one over the other). */
static int with_sidecars(const char *cmd, const struct cli_path *paths, size_t n,
                         struct cli_path **all, size_t *nall)
{
    struct cli_path *a = calloc(2 * n + 1, sizeof *a);
    if (!a)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        a[k++] = paths[i];
        const struct cli_path *p = &paths[i];
        if (p->kind != CLI_OUT_FILE || !p->path || strcmp(p->opt, "--csv") != 0 ||
            is_stdout(p->opt, p->path))
            continue;
        char *side = malloc(strlen(p->path) + sizeof ".json");
        if (!side) {
            free_sidecars(a, k);
            return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
        }
        sprintf(side, "%s.json", p->path);
        a[k++] = (struct cli_path){
            .opt = "--csv's provenance sidecar", .path = side, .kind = CLI_OUT_SIDECAR};
    }
    *all = a;
    *nall = k;
    return CP_OK;
}

int cli_check_paths(const char *cmd, const struct cli_path *given, size_t ngiven)
{
    struct cli_path *paths = NULL;
    size_t n = 0;
    int st = with_sidecars(cmd, given, ngiven, &paths, &n);
    if (st != CP_OK)
        return st;
    struct resolved *r = calloc(n + 1, sizeof *r);
    if (!r) {
        free_sidecars(paths, n);
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; st == CP_OK && i < n; ++i) {
        const struct cli_path *p = &paths[i];
        if (!p->path || (p->kind == CLI_OUT_FILE && is_stdout(p->opt, p->path)))
            continue;
        if ((st = check_not_empty(cmd, p->opt, p->path, p->kind == CLI_OUT_FILE)) != CP_OK)
            break;
        struct stat sb;
        bool exists = stat(p->path, &sb) == 0;
        if (!exists && (errno != ENOENT || !is_output(p))) {
            /* An input must be there, and a loop, a parent that is a file, a folder we may not
             * search or a name too long is the user's to fix (status 2), for an output too. */
            st = is_output(p) ? cli_fail(cmd, CP_FAIL_USAGE, "%s: cannot create %s: %s", p->opt,
                                         p->path, strerror(errno))
                              : cli_fail(cmd, CP_FAIL_USAGE, "%s %s: cannot open: %s", p->opt,
                                         p->path, strerror(errno));
            break;
        }
        r[k].p = p;
        r[k].exists = exists;
        r[k].mode = exists ? sb.st_mode : 0;
        r[k].dev = exists ? sb.st_dev : 0;
        r[k].ino = exists ? sb.st_ino : 0;
        r[k].abs = absolute_name(p->path, exists);
        ++k;
    }
    /* The clashes first: they name both options, where a lone check would name one. */
    for (size_t i = 0; st == CP_OK && i < k; ++i)
        for (size_t j = i + 1; st == CP_OK && j < k; ++j)
            st = check_pair(cmd, &r[i], &r[j]);
    for (size_t i = 0; st == CP_OK && i < k; ++i) {
        struct stat sb = {.st_mode = r[i].mode};
        st = check_alone(cmd, r[i].p, &sb, r[i].exists);
        /* Issue 32, item 1 ("replace only what clparity wrote"): the check that an output that
         * exists (r[i].exists, is_output) is clparity's own goes here, before any work, as
         * cp_save_check does for --save in cli_check_output_dir. */
    }
    for (size_t i = 0; i < k; ++i)
        free(r[i].abs);
    free(r);
    free_sidecars(paths, n);
    return st;
}

int cli_write_json(const char *cmd, const char *opt, const char *path, void *root)
{
    if (!root)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory building JSON");
    int st = cp_json_write(path, root);
    cJSON_Delete(root);
    if (st != CP_OK)
        cli_fail(cmd, st, "%s%s%s", opt ? opt : "", opt ? ": " : "", cp_err_msg());
    return st;
}

void cli_print_version(void)
{
    printf("clparity %s (git %s)\n", cp_version(), cp_git_hash());
}

void cli_print_build_log(void)
{
    const char *log = cp_program_log();
    if (log[0])
        fprintf(stderr, "--- build log ---\n%s%s--- end of build log ---\n", log,
                log[strlen(log) - 1] == '\n' ? "" : "\n");
}

bool cli_gnuplot_in_path(void)
{
    const char *path = getenv("PATH");
    if (!path || !path[0])
        return false;
    char *copy = strdup(path), *save = NULL;
    bool found = false;
    for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char p[4200];
        struct stat sb;
        snprintf(p, sizeof p, "%s/gnuplot", dir[0] ? dir : ".");
        found = stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && access(p, X_OK) == 0;
    }
    free(copy);
    return found;
}

int cli_check_plot(const char *cmd, const char *plot)
{
    if (plot && check_not_empty(cmd, "--plot", plot, false) != CP_OK)
        return CP_FAIL_USAGE;
    if (plot && !cli_ends_with(plot, ".png") && !cli_ends_with(plot, ".svg"))
        return cli_fail(cmd, CP_FAIL_USAGE, "--plot: '%s' must end in .png or .svg", plot);
    if (plot && !cli_gnuplot_in_path())
        return cli_fail(cmd, CP_FAIL_USAGE,
                        "--plot: gnuplot is not in PATH (install gnuplot-nox, or leave out "
                        "--plot); nothing was run");
    return CP_OK;
}

bool cli_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

void cli_gp_quoted(FILE *f, const char *v)
{
    fputc('"', f);
    for (const char *c = v; *c; ++c) {
        if (*c == '"' || *c == '\\')
            fputc('\\', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

int cli_load_model(const char *cmd, const char *path, const cp_arch_opts *arch, cp_model *m,
                   const char **arch_from, char sha[65])
{
    int st = cp_model_load(path, arch, m, arch_from, sha);
    return st == CP_OK ? CP_OK : cli_fail(cmd, st, "%s", cp_err_msg());
}

int cli_plot_open(const char *cmd, const char *path, struct cli_plot *p)
{
    p->path = path;
    if (cp_output_check("--plot", path) != CP_OK)
        return cli_fail(cmd, CP_FAIL_USAGE, "%s", cp_err_msg());
    p->tmp = cp_atomic_tmp_name(path);
    if (!p->tmp)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    fflush(NULL);
    p->gp = popen("gnuplot", "w");
    if (!p->gp) {
        int st = cli_fail(cmd, CP_FAIL_RUNTIME, "--plot: cannot run gnuplot: %s", strerror(errno));
        free(p->tmp);
        return st;
    }
    fprintf(p->gp, "set terminal %s size 1000,650 font 'sans,10'\n",
            cli_ends_with(path, ".svg") ? "svg dynamic" : "pngcairo");
    fprintf(p->gp, "set termoption noenhanced\nset output ");
    cli_gp_quoted(p->gp, p->tmp);
    fprintf(p->gp, "\n");
    return CP_OK;
}

int cli_plot_close(const char *cmd, struct cli_plot *p)
{
    fprintf(p->gp, "\nset output\n");
    int rc = pclose(p->gp);
    int st = CP_OK, e;
    if (rc != 0) {
        cp_atomic_abort(p->tmp, p->path);
        st = cli_fail(cmd, CP_FAIL_RUNTIME, "--plot: gnuplot failed (status %d)", rc);
    } else if (strcmp(p->tmp, p->path) != 0 &&
               ((st = cp_plot_mark(p->tmp)) != CP_OK ||
                (st = cp_output_check("--plot", p->path)) != CP_OK)) {
        /* the mark lets a later run replace it; the target is checked again at the rename */
        cp_atomic_abort(p->tmp, p->path);
        st = cli_fail(cmd, st, "%s", cp_err_msg());
    } else if ((e = cp_atomic_commit(p->tmp, p->path)) != 0) {
        st = cli_fail(cmd, CP_FAIL_RUNTIME, "--plot: cannot write %s: %s", p->path, strerror(e));
    }
    free(p->tmp);
    return st;
}

int cli_read_text(const char *cmd, const char *path, char **out)
{
    /* Opened non-blocking: open() of a FIFO without a writer would wait forever. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb = {0};
    if (fd < 0)
        return cli_fail(cmd, CP_FAIL_USAGE, "cannot open %s: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return cli_fail(cmd, CP_FAIL_USAGE, "%s: not a regular file (%s)", path,
                        cp_file_kind(sb.st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        close(fd);
        return cli_fail(cmd, CP_FAIL_RUNTIME, "cannot open %s: %s", path, strerror(errno));
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, fp);
        if (len < cap - 1)
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = ferror(fp);
    fclose(fp);
    if (!buf || err) {
        free(buf);
        return cli_fail(cmd, CP_FAIL_RUNTIME, "cannot read %s", path);
    }
    buf[len] = '\0';
    *out = buf;
    return CP_OK;
}

/* The errno of the first failed flush of stdout: glibc drops the buffer of a failed write and
 * keeps only the error flag, so the exit check would otherwise not know the cause. */
static int stdout_errno;

void cli_flush(FILE *f)
{
    if (fflush(f) != 0 && f == stdout && stdout_errno == 0)
        stdout_errno = errno;
}

int cli_stdout_errno(void)
{
    return stdout_errno;
}
