/* Replacing only what clparity wrote (issue 32): whether an existing output file is one of
 * clparity's, and the mark that its plots carry so that they can be told apart.
 *
 * Every JSON output carries "provenance" with "clparity_version" (the peak cache carries
 * "clparity_version" at its top level, and the tune store is an object of {"params": ...}
 * entries); a CSV output starts with its header, and its sidecar FILE.csv.json (JSON, with
 * provenance) lists that header's columns (before issue 36 a CSV's first line was
 * "# provenance: {...}": such a file is still recognised); a plot carries a mark
 * that cp_plot_mark puts in (PNG: a tEXt chunk "Software" = "clparity ..."; SVG: a comment
 * "<!-- clparity ... -->"); a .npy file has exactly the header and length that cp_npy_write
 * gives its array. A file that is none of these is refused: cp_output_check says why. */
#define _GNU_SOURCE /* memmem */
#include "clparity/error.h"
#include "clparity/npy.h"
#include "clparity/report.h"
#include "testhook-impl.h" /* cp_test_hook */
#include "file-impl.h"     /* cp_fopen_regular */

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* JSON and CSV outputs are far smaller; a larger file is none of ours (a .npy is judged by its
 * header alone, whatever its size). */
#define OWN_READ_MAX (64u << 20)

static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
static const char png_key[] = "Software"; /* PNG's registered keyword for the program */
static const char mark_text[] = "clparity";
static const char svg_mark[] = "<!-- clparity ";

/* A JSON object written by clparity: provenance (every output), the peak cache's top-level
 * clparity_version, or the tune store (each member an object with "params"). */
static bool json_is_own(const char *text, size_t n)
{
    cJSON *j = cJSON_ParseWithLength(text, n);
    bool own = false;
    if (cJSON_IsObject(j)) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "provenance");
        own = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(p, "clparity_version")) ||
              cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "clparity_version"));
        if (!own) { /* the tune store (runtime/opencl/tune.c) */
            own = true;
            const cJSON *e;
            cJSON_ArrayForEach(e, j) own =
                own && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "params"));
        }
    }
    cJSON_Delete(j);
    return own;
}

/* A CSV of clparity's: its first line is "# provenance: " and the provenance JSON. */
static bool csv_is_own(const char *text, size_t n)
{
    static const char head[] = "# provenance: ";
    size_t k = sizeof head - 1;
    if (n <= k || memcmp(text, head, k) != 0)
        return false;
    const char *nl = memchr(text + k, '\n', n - k);
    if (!nl)
        return false;
    cJSON *p = cJSON_ParseWithLength(text + k, (size_t)(nl - text) - k);
    bool own = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(p, "clparity_version"));
    cJSON_Delete(p);
    return own;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* A PNG with a tEXt chunk "Software" whose text starts with "clparity". */
static bool png_is_own(const unsigned char *b, size_t n)
{
    size_t klen = sizeof png_key; /* the keyword and its NUL */
    for (size_t at = sizeof png_sig; at + 12 <= n;) {
        uint32_t len = be32(b + at);
        if (len > n - at - 12)
            return false;
        if (memcmp(b + at + 4, "tEXt", 4) == 0 && len >= klen + sizeof mark_text - 1 &&
            memcmp(b + at + 8, png_key, klen) == 0 &&
            memcmp(b + at + 8 + klen, mark_text, sizeof mark_text - 1) == 0)
            return true;
        if (memcmp(b + at + 4, "IEND", 4) == 0)
            return false;
        at += 12 + (size_t)len;
    }
    return false;
}

/* A CSV whose first line is the header that its sidecar path.json (a JSON of clparity's)
 * lists in "columns" (tools/csv.c). *err is set (an errno; ENOMEM when memory ran out) when
 * the sidecar exists but could not be read to tell. */
static bool csv_sidecar_is_own(const char *path, const char *text, size_t n, int *err)
{
    size_t pl = strlen(path), line = 0;
    char *side = malloc(pl + sizeof ".json");
    if (!side) {
        *err = ENOMEM;
        return false;
    }
    memcpy(side, path, pl);
    memcpy(side + pl, ".json", sizeof ".json");
    char *buf;
    size_t k;
    int e = cp_read_regular(side, (1 << 20) - 1, &buf, &k); /* a sidecar is a few KiB */
    free(side);
    *err = cp_read_says_none(e) ? 0 : e;
    bool own = buf && json_is_own(buf, k);
    cJSON *j = own ? cJSON_ParseWithLength(buf, k) : NULL;
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(j, "columns"), *c;
    own = own && cJSON_IsArray(cols) && cJSON_GetArraySize(cols) > 0;
    while (line < n && text[line] != '\n')
        ++line;
    size_t at = 0;
    cJSON_ArrayForEach(c, cols)
    {
        size_t cl = cJSON_IsString(c) ? strlen(c->valuestring) : 0;
        own = own && cl > 0 && at + cl <= line && memcmp(text + at, c->valuestring, cl) == 0 &&
              (at + cl == line ? c->next == NULL : text[at + cl] == ',');
        at += cl + 1;
    }
    cJSON_Delete(j);
    free(buf);
    return own;
}

/* What a file holds, for the message: its kind and why it is not ours; NULL when it is ours. */
static const char *why_foreign(const char *b, size_t n)
{
    size_t i = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
        ++i;
    if (n >= sizeof png_sig && memcmp(b, png_sig, sizeof png_sig) == 0)
        return png_is_own((const unsigned char *)b, n) ? NULL : "a PNG without clparity's mark";
    if (i < n && b[i] == '<')
        return memmem(b, n < 4096 ? n : 4096, svg_mark, sizeof svg_mark - 1)
                   ? NULL
                   : "an SVG or XML file without clparity's mark";
    if (i < n && (b[i] == '{' || b[i] == '['))
        return json_is_own(b + i, n - i) ? NULL : "JSON without clparity's provenance";
    if (i < n && b[i] == '#')
        return csv_is_own(b, n) ? NULL : "text without clparity's provenance line";
    return "neither JSON, CSV, .npy nor a plot of clparity's";
}

int cp_output_check(const char *opt, const char *path)
{
    const char *o = opt ? opt : "", *sep = opt ? ": " : "";
    struct stat sb;
    /* Nothing to lose: stdout, a missing or empty file. A FIFO, a device or /dev/null is
     * written, not replaced (cp_atomic_tmp_name); a folder is refused by the writer. */
    if (!path || strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        sb.st_size == 0 || cp_test_hook("guard-off"))
        return CP_OK;
    mode_t mode;
    FILE *f = cp_fopen_regular(path, &mode);
    if (!f)
        return cp_err_set(CP_FAIL_USAGE,
                          "%s%s%s exists and cannot be read to tell whether "
                          "clparity wrote it (%s): clparity replaces only files it "
                          "wrote; remove it or name another",
                          o, sep, path, strerror(errno));
    char head[4096];
    size_t n = fread(head, 1, sizeof head, f);
    const char *why = NULL;
    char *all = NULL;
    int err = 0; /* the sidecar's read */
    if (n >= 6 && memcmp(head, "\x93NUMPY", 6) == 0) {
        if (!cp_npy_header_is_own(head, n, (unsigned long long)sb.st_size))
            why = "an .npy file whose header or length is not one that clparity writes";
    } else if ((unsigned long long)sb.st_size > OWN_READ_MAX) {
        why = "larger than any JSON, CSV or plot of clparity's";
    } else if ((all = malloc((size_t)sb.st_size + 1)) == NULL) {
        fclose(f);
        return cp_err_set(CP_FAIL_RUNTIME, "%s%sout of memory reading %s", o, sep, path);
    } else {
        memcpy(all, head, n);
        n += fread(all + n, 1, (size_t)sb.st_size - n, f);
        why = why_foreign(all, n);
        if (why && csv_sidecar_is_own(path, all, n, &err))
            why = NULL;
    }
    free(all);
    fclose(f);
    if (!why)
        return CP_OK;
    /* cJSON cannot tell a parse that ran out of memory from a file that is not JSON: a failed
     * allocation (json_malloc counts it) makes "not clparity's" unknown, not a verdict. */
    if (err == ENOMEM || cp_json_incomplete())
        return cp_err_set(CP_FAIL_RUNTIME,
                          "%s%sout of memory reading %s to tell whether clparity wrote it", o, sep,
                          path);
    if (err)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "%s%s%s exists and its sidecar %s.json cannot be read to tell whether "
                          "clparity wrote it (%s)",
                          o, sep, path, path, strerror(err));
    return cp_err_set(CP_FAIL_USAGE,
                      "%s%s%s exists and clparity did not write it (%s): clparity replaces only "
                      "files it wrote; remove it or name another",
                      o, sep, path, why);
}

/* CRC-32 (ISO 3309, PNG's), bit by bit: a plot's one chunk does not need a table. */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

int cp_plot_mark(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cp_err_set(CP_FAIL_RUNTIME, "--plot: cannot read %s: %s", path, strerror(errno));
    struct stat sb;
    unsigned char *b = NULL;
    size_t n = 0;
    if (fstat(fileno(f), &sb) == 0 && sb.st_size > 0 && sb.st_size < (off_t)OWN_READ_MAX &&
        (b = malloc((size_t)sb.st_size)) != NULL)
        n = fread(b, 1, (size_t)sb.st_size, f);
    fclose(f);
    if (!b || n != (size_t)sb.st_size) {
        free(b);
        return cp_err_set(CP_FAIL_RUNTIME, "--plot: cannot read %s back", path);
    }
    char text[64];
    snprintf(text, sizeof text, "%s %s", mark_text, cp_version());
    size_t tl = strlen(text);
    unsigned char chunk[128];
    size_t cl = 0, at = 0;
    if (n > 33 && memcmp(b, png_sig, sizeof png_sig) == 0) {
        /* tEXt right after IHDR (always the first chunk: 8 + 4 + 4 + 13 + 4 bytes). */
        uint32_t len = (uint32_t)(sizeof png_key + tl);
        put_be32(chunk, len);
        memcpy(chunk + 4, "tEXt", 4);
        memcpy(chunk + 8, png_key, sizeof png_key);
        memcpy(chunk + 8 + sizeof png_key, text, tl);
        put_be32(chunk + 8 + len, crc32_of(chunk + 4, 4 + len));
        cl = 12 + len;
        at = 33;
    } else {
        /* SVG: the comment after the XML declaration (a comment may not come before it). */
        cl = (size_t)snprintf((char *)chunk, sizeof chunk, "%s%s -->\n", svg_mark, cp_version());
        const unsigned char *nl = n > 5 && memcmp(b, "<?xml", 5) == 0 ? memchr(b, '\n', n) : NULL;
        at = nl ? (size_t)(nl - b) + 1 : 0;
    }
    f = fopen(path, "wb");
    bool ok = f && fwrite(b, 1, at, f) == at && fwrite(chunk, 1, cl, f) == cl &&
              fwrite(b + at, 1, n - at, f) == n - at;
    int e = errno;
    if (f && fclose(f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    free(b);
    return ok ? CP_OK
              : cp_err_set(CP_FAIL_RUNTIME, "--plot: cannot write %s: %s", path, strerror(e));
}

const char *cp_version(void)
{
    return CLPARITY_VERSION;
}

/* guarded: only over a file of clparity's (cp_output_check); an entry of clparity's own cache
 * folder is replaced whatever it holds (a damaged one must be). */
static int write_atomic(const char *path, const void *data, size_t len, bool guarded)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
            int st = cp_err_set(CP_FAIL_RUNTIME, "cannot write to stdout: %s", strerror(errno));
            clearerr(stdout); /* named here: clparity's exit check (tools/main.c) need not */
            return st;
        }
        return CP_OK;
    }
    int st = guarded ? cp_output_check(NULL, path) : CP_OK;
    if (st != CP_OK)
        return st;
    char *tmp = cp_atomic_tmp_name(path);
    if (!tmp)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory writing %s", path);
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

int cp_file_write_atomic(const char *path, const void *data, size_t len)
{
    return write_atomic(path, data, len, true);
}

static int json_write(const char *path, const void *json, bool guarded)
{
    if (cp_json_incomplete())
        return cp_err_set(CP_FAIL_RUNTIME,
                          "out of memory while building the JSON for %s: not written", path);
    char *text = cp_json_print(json, true);
    if (!text)
        return cp_err_set(CP_FAIL_RUNTIME, "out of memory formatting JSON for %s", path);
    size_t n = strlen(text);
    text[n] = '\n'; /* cJSON's terminator becomes the final newline */
    int st = write_atomic(path, text, n + 1, guarded);
    cJSON_free(text);
    return st;
}

int cp_json_write(const char *path, const void *json)
{
    return json_write(path, json, true);
}

int cp_json_write_entry(const char *path, const void *json)
{
    return json_write(path, json, false);
}
