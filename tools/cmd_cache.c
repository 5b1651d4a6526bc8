/* clparity cache: list or clear the program-binary cache. */
#include "cli.h"
#include "cmds.h"
#include "opts.h"

#include "clparity/cache.h"
#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
            "  list          one line per entry (file, size, device, driver, build options,\n"
            "                age since last stored or used), newest first, then the total and\n"
            "                the folder\n"
            "    --json FILE   the same as JSON ('-' for stdout; the table then goes to stderr)\n"
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

static cJSON *listing_json(const char *dir, const cp_cache_listing *l, bool writable,
                           unsigned long long cap, time_t now)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "command", "cache list");
    cJSON_AddItemToObject(root, "provenance", cp_provenance_json(""));
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
        cJSON_AddItemToArray(arr, o);
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
    /* Columns as wide as their longest value, so that options with spaces stay readable. */
    int wdev = (int)strlen("device"), wdrv = (int)strlen("driver"), wopt = (int)strlen("options");
    for (size_t i = 0; i < l.n; ++i) {
        const cp_cache_entry *e = &l.v[i];
        int d = e->valid ? (int)strlen(e->device) : (int)strlen(e->problem) + 10;
        wdev = d > wdev ? d : wdev;
        wdrv = (int)strlen(e->driver) > wdrv ? (int)strlen(e->driver) : wdrv;
        wopt = (int)strlen(e->options) > wopt ? (int)strlen(e->options) : wopt;
    }
    wdev = wdev > 48 ? 48 : wdev;
    if (l.n)
        fprintf(out, "%-68s %10s  %-*s  %-*s  %-*s  %s\n", "file", "size", wdev, "device", wdrv,
                "driver", wopt, "options", "age");
    for (size_t i = 0; i < l.n; ++i) {
        const cp_cache_entry *e = &l.v[i];
        char size[32], age[32], dev[300];
        cp_fmt_bytes(e->bytes, true, size, sizeof size);
        fmt_age(difftime(now, e->mtime), age, sizeof age);
        if (e->valid)
            snprintf(dev, sizeof dev, "%s", e->device);
        else
            snprintf(dev, sizeof dev, "(invalid: %s)", e->problem);
        fprintf(out, "%-68s %10s  %-*.*s  %-*s  %-*s  %s\n", e->file, size, wdev, wdev, dev, wdrv,
                e->valid ? e->driver : "-", wopt, e->valid ? e->options : "-", age);
    }
    char total[32], capb[32];
    cp_fmt_bytes(l.bytes, true, total, sizeof total);
    cp_fmt_bytes(cap, true, capb, sizeof capb);
    fprintf(out, "total: %zu entr%s, %s (cap %s)\n", l.n, l.n == 1 ? "y" : "ies", total, capb);
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
    fflush(out);

    st = CP_OK;
    if (json) {
        cJSON *root = listing_json(dir, &l, writable, cap, now);
        st = cli_write_json("cache list", "--json", json, root);
    }
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
    cli_fail("cache", CP_FAIL_USAGE, "unknown subcommand '%s' (list or clear)", sub);
    cache_help(stderr);
    return CP_FAIL_USAGE;
}
