/* clparity cache: list or clear the program-binary cache. */
#include "cli.h"
#include "cmds.h"
#include "opts.h"

#include "clparity/cache.h"
#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void cache_help(FILE *f)
{
    fprintf(f,
            "usage: clparity cache list [--json FILE]\n"
            "       clparity cache clear\n"
            "\n"
            "The program-binary cache keeps each OpenCL program's binary after its first build,\n"
            "so that later runs skip the compiler. It lives in $XDG_CACHE_HOME/clparity, or\n"
            "~/.cache/clparity when XDG_CACHE_HOME is unset or empty. An entry is keyed by the\n"
            "SHA-256 of the kernel source, the build options, the device's name, vendor and\n"
            "version, the driver version and the platform's name and version; a payload\n"
            "checksum guards it, and anything wrong with it means a build from source.\n"
            "\n"
            "  list          one line per program binary, newest first: the first 12 hex\n"
            "                digits of its name, size, kernel, device (cut at 40 characters)\n"
            "                and age since last stored or used; then every other file of the\n"
            "                folder (peak-*.json with its device and date, tune.json, files\n"
            "                left by interrupted writes), the total and the folder. Lines fit\n"
            "                100 columns\n"
            "    --json FILE   the same as JSON with every detail (full names, driver,\n"
            "                  platform, build options; '-' for stdout, the table then goes\n"
            "                  to stderr)\n"
            "  clear         remove clparity's program binaries (nothing else in the folder:\n"
            "                tune.json and the peak-*.json measurements stay; 'clparity tune'\n"
            "                and 'clparity peak' rewrite them) and report how many and the\n"
            "                bytes freed\n"
            "  --quiet       no progress line (as every command takes; cache shows none)\n"
            "  --version     print the version and exit\n"
            "  -h, --help    print this help and exit\n"
            "\n"
            "environment: CLPARITY_CACHE=off (or 0, no, false) turns the cache off;\n"
            "CLPARITY_CACHE_MAX_MB caps its size (default 256, fractions allowed; the least\n"
            "recently used entries go first).\n"
            "\n"
            "exit status: 0 success, 2 usage error, 3 I/O error\n");
}

static void fmt_age(double s, char *buf, size_t len)
{
    if (s < 0.0)
        s = 0.0;
    if (s < 120.0)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 7200.0)
        snprintf(buf, len, "%.0f min", s / 60.0);
    else if (s < 172800.0)
        snprintf(buf, len, "%.0f h", s / 3600.0);
    else
        snprintf(buf, len, "%.0f d", s / 86400.0);
}

/* Parses a subcommand's options: --help, --version, and --json when json is not NULL. Returns
 * -1 to go on, or an exit status. */
static void cache_help_stdout(void)
{
    cache_help(stdout);
}

static int set_json(void *ctx, enum opt_id id, const struct opt_value *v)
{
    if (id == OPT_JSON)
        *(const char **)ctx = v->s;
    return CP_OK;
}

/* Parses a subcommand's options: --help, --version, and --json when json is not NULL. Returns
 * -1 to go on, or an exit status. */
static int parse_sub(const char *cmd, int argc, char **argv, const char **json)
{
    static const struct opt_use with_json[] = {{.id = OPT_JSON}};
    bool handled;
    int st = opts_parse(cmd, argc, argv, with_json, json ? 1 : 0, set_json, NULL, json,
                        cache_help_stdout, &handled);
    return st != CP_OK || handled ? st : -1;
}

/* A file of the cache folder that is not a program binary: a peak, the tune table, a file
 * left by an interrupted write, or anything else. */
struct other {
    char file[256];
    const char *kind; /* "peak", "tune", "temporary", "other" */
    char what[160];   /* "peak of <device>, measured <date>" */
    unsigned long long bytes;
    time_t mtime;
};

struct other_list {
    struct other *v;
    size_t n;
};

static bool is_binary_name(const char *name)
{
    size_t n = strlen(name);
    if (n != 68 || strcmp(name + 64, ".bin") != 0)
        return false;
    for (size_t i = 0; i < 64; ++i)
        if (!strchr("0123456789abcdef", name[i]))
            return false;
    return true;
}

/* What a peak-*.json holds: its device (the key's third line) and date, or why it is not read. */
static void describe_peak(const char *path, char *what, size_t len)
{
    char *text = NULL;
    FILE *f = fopen(path, "rb");
    if (f) {
        text = calloc(1, 65537);
        if (text)
            text[fread(text, 1, 65536, f)] = '\0';
        fclose(f);
    }
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(root, "key");
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(root, "measured_at");
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsString(key)) {
        snprintf(what, len, "peak: unreadable (measured again when needed)");
    } else {
        /* "method N\nhost\n<cpu>..." or "method N\nopencl\n<device>\n...". */
        const char *p = strchr(key->valuestring, '\n');
        const char *kind = p ? p + 1 : "";
        const char *name = strchr(kind, '\n');
        name = name ? name + 1 : "";
        int nlen = (int)strcspn(name, "\n");
        bool host = strncmp(kind, "host\n", 5) == 0;
        /* "2026-11-26T05:06:00Z" as "2026-11-26 05:06". */
        char date[32] = "no date";
        if (cJSON_IsString(at) && strlen(at->valuestring) >= 16)
            snprintf(date, sizeof date, "%.10s %.5s", at->valuestring, at->valuestring + 11);
        bool old = cJSON_IsNumber(schema) && schema->valuedouble < 2;
        int room = old ? 8 : 24; /* the device's name, cut to fit 100 columns */
        snprintf(what, len, "peak: %s%.*s, %s%s", host ? "host " : "", nlen > room ? room : nlen,
                 name, date, old ? ", old: no spread" : "");
    }
    cJSON_Delete(root);
}

/* Every regular file of dir that is not a program binary, by name. A missing folder has none,
 * and so has one below a plain file (ENOTDIR), as cp_cache_list sees it. */
static int others_list(const char *dir, struct other_list *out)
{
    out->v = NULL;
    out->n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT || errno == ENOTDIR
                   ? CP_OK
                   : cp_err_set(CP_FAIL_RUNTIME, "cannot list %s: %s", dir, strerror(errno));
    size_t cap = 0;
    int st = CP_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || strcmp(e->d_name, "..") == 0))
            continue;
        if (is_binary_name(e->d_name))
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (out->n == cap) {
            cap = cap ? 2 * cap : 8;
            struct other *v = realloc(out->v, cap * sizeof *v);
            if (!v) {
                st = cp_err_set(CP_FAIL_RUNTIME, "out of memory");
                break;
            }
            out->v = v;
        }
        struct other *o = &out->v[out->n++];
        snprintf(o->file, sizeof o->file, "%s", e->d_name);
        o->bytes = (unsigned long long)sb.st_size;
        o->mtime = sb.st_mtime;
        size_t n = strlen(e->d_name);
        if (strstr(e->d_name, ".clparity-tmp.") || strstr(e->d_name, ".tmp.")) {
            o->kind = "temporary";
            snprintf(o->what, sizeof o->what, "left by an interrupted write");
        } else if (strncmp(e->d_name, "peak-", 5) == 0 && n > 10 &&
                   strcmp(e->d_name + n - 5, ".json") == 0) {
            o->kind = "peak";
            describe_peak(path, o->what, sizeof o->what);
        } else if (strcmp(e->d_name, "tune.json") == 0) {
            o->kind = "tune";
            snprintf(o->what, sizeof o->what, "cl:own's tuned settings (clparity tune)");
        } else {
            o->kind = "other";
            snprintf(o->what, sizeof o->what, "not clparity's");
        }
    }
    closedir(d);
    return st;
}

static int other_cmp(const void *a, const void *b)
{
    return strcmp(((const struct other *)a)->file, ((const struct other *)b)->file);
}

static cJSON *listing_json(const char *dir, const cp_cache_listing *l, bool writable,
                           unsigned long long cap, time_t now)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "command", "cache list");
    cp_json_add(root, "provenance", cp_provenance_json(""));
    cJSON_AddStringToObject(root, "folder", dir);
    cJSON_AddBoolToObject(root, "enabled", cp_cache_enabled());
    cJSON_AddBoolToObject(root, "writable", writable);
    cJSON_AddNumberToObject(root, "cap_bytes", (double)cap);
    cJSON_AddNumberToObject(root, "total_bytes", (double)l->bytes);
    cJSON *arr = cJSON_AddArrayToObject(root, "entries");
    for (size_t i = 0; arr && i < l->n; ++i) {
        const cp_cache_entry *e = &l->v[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "file", e->file);
        cJSON_AddNumberToObject(o, "bytes", (double)e->bytes);
        cJSON_AddNumberToObject(o, "age_s", difftime(now, e->mtime));
        cJSON_AddBoolToObject(o, "valid", e->valid);
        if (e->valid)
            cJSON_AddNullToObject(o, "problem");
        else
            cJSON_AddStringToObject(o, "problem", e->problem);
        cJSON_AddStringToObject(o, "kernel", e->kernel);
        cJSON_AddStringToObject(o, "source_sha256", e->source_sha256);
        cJSON_AddStringToObject(o, "options", e->options);
        cJSON_AddStringToObject(o, "device", e->device);
        cJSON_AddStringToObject(o, "vendor", e->vendor);
        cJSON_AddStringToObject(o, "driver", e->driver);
        cJSON_AddStringToObject(o, "platform", e->platform);
        cJSON_AddStringToObject(o, "platform_version", e->platform_version);
        cp_json_push(arr, o);
    }
    return root;
}

static int cache_list(int argc, char **argv)
{
    const char *json = NULL;
    int st = parse_sub("cache list", argc, argv, &json);
    if (st >= 0)
        return st;
    if (json && (st = cli_check_output_file("cache list", "--json", json)) != CP_OK)
        return st;
    char dir[4096];
    if ((st = cp_cache_dir(dir, sizeof dir)) != CP_OK)
        return cli_fail("cache list", st, "%s", cp_err_msg());
    cp_cache_listing l;
    if ((st = cp_cache_list(dir, &l)) != CP_OK)
        return cli_fail("cache list", st, "%s", cp_err_msg());
    char why[512];
    bool writable = cp_cache_writable(dir, why, sizeof why);
    bool cap_valid;
    unsigned long long cap = cp_cache_max_bytes(&cap_valid);
    time_t now = time(NULL);

    /* The table goes to stderr when the JSON takes stdout. */
    FILE *out = json && strcmp(json, "-") == 0 ? stderr : stdout;
    /* 100 columns: a short name, the kernel and the device; the rest is in --json. */
    if (l.n)
        fprintf(out, "%-12s %10s  %-18s %-40s %8s\n", "binary", "size", "kernel", "device", "age");
    for (size_t i = 0; i < l.n; ++i) {
        const cp_cache_entry *e = &l.v[i];
        char size[32], age[32], dev[300];
        cp_fmt_bytes(e->bytes, true, size, sizeof size);
        fmt_age(difftime(now, e->mtime), age, sizeof age);
        if (e->valid)
            snprintf(dev, sizeof dev, "%s", e->device);
        else
            snprintf(dev, sizeof dev, "(invalid: %s)", e->problem);
        fprintf(out, "%-12.12s %10s  %-18.18s %-40.40s %8s\n", e->file, size,
                e->valid ? e->kernel : "-", dev, age);
    }
    struct other_list others = {0};
    st = others_list(dir, &others);
    if (st == CP_OK && others.n)
        qsort(others.v, others.n, sizeof *others.v, other_cmp);
    if (st != CP_OK) {
        free(others.v);
        cp_cache_listing_free(&l);
        return cli_fail("cache list", st, "%s", cp_err_msg());
    }
    if (others.n)
        fprintf(out, "%s%-28s %10s  %-48s %8s\n", l.n ? "\n" : "", "other file", "size", "what",
                "age");
    for (size_t i = 0; i < others.n; ++i) {
        const struct other *o = &others.v[i];
        char size[32], age[32];
        cp_fmt_bytes(o->bytes, true, size, sizeof size);
        fmt_age(difftime(now, o->mtime), age, sizeof age);
        fprintf(out, "%-28.28s %10s  %-48.48s %8s\n", o->file, size, o->what, age);
    }
    char total[32], capb[32];
    cp_fmt_bytes(l.bytes, true, total, sizeof total);
    cp_fmt_bytes(cap, true, capb, sizeof capb);
    fprintf(out, "total: %zu program binar%s, %s (cap %s); %zu other file%s\n", l.n,
            l.n == 1 ? "y" : "ies", total, capb, others.n, others.n == 1 ? "" : "s");
    fprintf(out, "folder: %s\n", dir);
    if (!cp_cache_enabled())
        fprintf(out,
                "note: the cache is off (CLPARITY_CACHE=%s): builds neither read nor "
                "write it\n",
                getenv("CLPARITY_CACHE"));
    if (!writable)
        fprintf(out, "note: the folder is not writable (%s): new entries are not stored\n", why);
    if (!cap_valid)
        fprintf(out,
                "note: CLPARITY_CACHE_MAX_MB='%s' is not a number >= 0: the default cap "
                "applies\n",
                getenv("CLPARITY_CACHE_MAX_MB"));
    cli_flush(out);

    st = CP_OK;
    if (json) {
        cJSON *root = listing_json(dir, &l, writable, cap, now);
        cJSON *arr = root ? cJSON_AddArrayToObject(root, "other_files") : NULL;
        for (size_t i = 0; arr && i < others.n; ++i) {
            cJSON *o = cJSON_CreateObject();
            if (!o)
                break;
            cJSON_AddStringToObject(o, "file", others.v[i].file);
            cJSON_AddStringToObject(o, "kind", others.v[i].kind);
            cJSON_AddNumberToObject(o, "bytes", (double)others.v[i].bytes);
            cJSON_AddNumberToObject(o, "age_s", difftime(now, others.v[i].mtime));
            cJSON_AddStringToObject(o, "what", others.v[i].what);
            cp_json_push(arr, o);
        }
        st = cli_write_json("cache list", "--json", json, root);
    }
    free(others.v);
    cp_cache_listing_free(&l);
    return st;
}

static int cache_clear(int argc, char **argv)
{
    int st = parse_sub("cache clear", argc, argv, NULL);
    if (st >= 0)
        return st;
    char dir[4096];
    if ((st = cp_cache_dir(dir, sizeof dir)) != CP_OK)
        return cli_fail("cache clear", st, "%s", cp_err_msg());
    size_t removed;
    unsigned long long bytes;
    st = cp_cache_clear(dir, &removed, &bytes);
    char freed[32];
    cp_fmt_bytes(bytes, true, freed, sizeof freed);
    if (st != CP_OK)
        return cli_fail("cache clear", st, "%s (after removing %zu entries, %s)", cp_err_msg(),
                        removed, freed);
    printf("removed %zu entr%s, %s (%llu bytes) freed, from %s\n", removed,
           removed == 1 ? "y" : "ies", freed, bytes, dir);
    return CP_OK;
}

int cmd_cache(int argc, char **argv)
{
    if (argc < 2) {
        cli_fail("cache", CP_FAIL_USAGE, "no subcommand given (list or clear)");
        cache_help(stderr);
        return CP_FAIL_USAGE;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0) {
        cache_help(stdout);
        return CP_OK;
    }
    if (strcmp(sub, "--version") == 0) {
        cli_print_version();
        return CP_OK;
    }
    if (strcmp(sub, "list") == 0)
        return cache_list(argc - 1, argv + 1);
    if (strcmp(sub, "clear") == 0)
        return cache_clear(argc - 1, argv + 1);
    char near[96];
    opts_nearest_word(sub, "list,clear", near, sizeof near);
    return cli_fail("cache", CP_FAIL_USAGE, "unknown subcommand '%s'%s (list or clear)", sub, near);
}
