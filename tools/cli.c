#include "cli.h"

#include "clparity/report.h"
#include "clparity/safetensors.h"
#include "clparity/select.h"

#include <cjson/cJSON.h>
#include <errno.h>
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
    if (st != CP_OK) {
        cli_fail(cmd, st, "%s", cp_err_msg());
        fprintf(stderr, "available devices:\n");
        cp_devlist_print(devs, stderr);
    }
    return st;
}

int cli_select_engines(const char *cmd, const char *list, const cp_devlist *devs,
                       const bool *chosen, bool *use)
{
    int st = cp_select_engines(list, devs, chosen, use);
    return st == CP_OK ? CP_OK : cli_fail(cmd, st, "%s", cp_err_msg());
}

int cli_check_output_dir(const char *cmd, const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "--save: cannot create %s: %s", dir, strerror(errno));
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return cli_fail(cmd, CP_FAIL_RUNTIME, "--save: %s is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "--save: %s is not writable: %s", dir,
                        strerror(errno));
    return CP_OK;
}

int cli_check_output_file(const char *cmd, const char *opt, const char *path)
{
    struct stat sb;
    if (strcmp(path, "-") == 0)
        return CP_OK;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return cli_fail(cmd, CP_FAIL_RUNTIME, "%s: %s is a directory", opt, path);
    /* The file is written at the end, through a temporary name in its folder: check now,
     * before any work, that the folder exists and can be written. */
    char *copy = strdup(path);
    if (!copy)
        return cli_fail(cmd, CP_FAIL_RUNTIME, "out of memory");
    const char *dir = dirname(copy);
    int st = CP_OK;
    if (stat(dir, &sb) != 0)
        st = cli_fail(cmd, CP_FAIL_RUNTIME, "%s: cannot create %s: %s", opt, path, strerror(errno));
    else if (!S_ISDIR(sb.st_mode))
        st = cli_fail(cmd, CP_FAIL_RUNTIME, "%s: cannot create %s: %s", opt, path,
                      strerror(ENOTDIR));
    else if (access(dir, W_OK | X_OK) != 0)
        st = cli_fail(cmd, CP_FAIL_RUNTIME, "%s: cannot create %s: %s", opt, path, strerror(errno));
    free(copy);
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
    } else if ((e = cp_atomic_commit(p->tmp, p->path)) != 0) {
        st = cli_fail(cmd, CP_FAIL_RUNTIME, "--plot: cannot write %s: %s", p->path, strerror(e));
    }
    free(p->tmp);
    return st;
}

int cli_read_text(const char *cmd, const char *path, char **out)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return cli_fail(cmd, CP_FAIL_USAGE, "cannot open %s: %s", path, strerror(errno));
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
