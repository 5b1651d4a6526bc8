#include "clparity/env.h"
#include "program-impl.h"
#include "cache-impl.h"
#include "isolate-impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Thread_local char *last_log;

const char *cp_program_log(void)
{
    return last_log ? last_log : "";
}

/* The build log, or when the driver keeps it empty, what it printed on stderr instead. */
static void keep_log(cl_program prog, cl_device_id dev, const char *printed)
{
    free(last_log);
    last_log = NULL;
    size_t need = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &need) != CL_SUCCESS)
        need = 0;
    last_log = calloc(need + strlen(printed) + 1, 1);
    if (!last_log)
        return;
    if (need &&
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, need, last_log, NULL) != CL_SUCCESS)
        last_log[0] = '\0';
    if (strspn(last_log, " \t\r\n") == strlen(last_log))
        strcpy(last_log, printed);
}

/* Some drivers (PoCL) print compiler diagnostics straight to stderr during clBuildProgram,
 * ahead of the message that names the problem. They are captured here, and shown with the
 * build log when the build fails. */
struct stderr_capture {
    int saved_fd;
    FILE *tmp;
};

static void capture_begin(struct stderr_capture *c)
{
    fflush(stderr);
    c->tmp = tmpfile();
    c->saved_fd = c->tmp ? dup(STDERR_FILENO) : -1;
    if (c->saved_fd < 0 || dup2(fileno(c->tmp), STDERR_FILENO) < 0) {
        if (c->saved_fd >= 0)
            close(c->saved_fd);
        if (c->tmp)
            fclose(c->tmp);
        c->tmp = NULL;
        c->saved_fd = -1;
    }
}

/* Restores stderr; returns what was printed meanwhile (malloc'd, maybe ""), or NULL. */
static char *capture_end(struct stderr_capture *c)
{
    if (!c->tmp)
        return NULL;
    fflush(stderr);
    dup2(c->saved_fd, STDERR_FILENO);
    close(c->saved_fd);
    char *text = NULL;
    long n = ftell(c->tmp);
    if (n >= 0 && fseek(c->tmp, 0, SEEK_SET) == 0 && (text = calloc((size_t)n + 1, 1)))
        if (fread(text, 1, (size_t)n, c->tmp) != (size_t)n)
            text[0] = '\0';
    fclose(c->tmp);
    return text;
}

/* Reads $CLPARITY_KERNEL_DIR/<name> whole. */
static int read_override(const char *dir, const char *name, char **text, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return cp_err_set(CP_FAIL_USAGE, "CLPARITY_KERNEL_DIR: cannot open %s: %s", path,
                          strerror(errno));
    int st = CP_OK;
    if (fseek(f, 0, SEEK_END) != 0) {
        st = cp_err_set(CP_FAIL_RUNTIME, "cannot read %s: %s", path, strerror(errno));
        goto out_close;
    }
    long n = ftell(f);
    rewind(f);
    *text = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (!*text) {
        st = cp_err_set(CP_FAIL_RUNTIME, "out of memory reading %s", path);
        goto out_close;
    }
    *len = n > 0 ? fread(*text, 1, (size_t)n, f) : 0;
    if (n < 0 || *len != (size_t)n) {
        st = cp_err_set(CP_FAIL_RUNTIME, "cannot read %s", path);
        free(*text);
        *text = NULL;
    }
out_close:
    fclose(f);
    return st;
}

/* A kernel source by name: from CLPARITY_KERNEL_DIR when dir is set (*owned: to free), else
 * embedded in the binary. */
static int find_source(const char *dir, const char *name, const char **text, size_t *len,
                       char **owned)
{
    *owned = NULL;
    /* probe.cl holds the device checks of cl:own's probe (the loop check), not one of the
     * kernels that CLPARITY_KERNEL_DIR replaces: always the embedded copy */
    if (dir && dir[0] && strcmp(name, "probe.cl") != 0) {
        int st = read_override(dir, name, owned, len);
        *text = *owned;
        return st;
    }
    for (size_t i = 0; i < cp_kernel_source_count; ++i)
        if (strcmp(cp_kernel_sources[i].name, name) == 0) {
            *text = (const char *)cp_kernel_sources[i].data;
            *len = cp_kernel_sources[i].len;
            return CP_OK;
        }
    return cp_err_set(CP_FAIL_RUNTIME, "no embedded kernel source named %s", name);
}

/* The deepest chain of includes expanded (cr_f32.cl includes cr.cl, which includes
 * grid_sync.cl: 2); a deeper one is an error, as is a file that includes itself. */
#define INCLUDE_DEPTH 4

/* Copies text to *out (malloc'd) with each line `#include "NAME"` replaced by the source NAME,
 * its own includes expanded in turn (up to INCLUDE_DEPTH), so that kernels share code
 * (grid_sync.cl's device-wide barrier, in own_stream.cl and own_cpu.cl; cr.cl in cr_f32.cl)
 * while the binary carries no kernel files: the compiler, and the cache key, see one source. */
static int expand_includes(const char *dir, const char *text, size_t len, char **out,
                           size_t *out_len, int depth)
{
    static const char tag[] = "#include \"";
    FILE *f = open_memstream(out, out_len);
    if (!f)
        return cp_err_set(CP_FAIL_RUNTIME, "cannot expand kernel includes: %s", strerror(errno));
    int st = CP_OK;
    for (const char *p = text, *end = text + len; p < end && st == CP_OK;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *next = eol ? eol + 1 : end, *name = p + sizeof tag - 1, *close = NULL;
        if ((size_t)(next - p) > sizeof tag - 1 && memcmp(p, tag, sizeof tag - 1) == 0)
            close = memchr(name, '"', (size_t)(next - name));
        if (close) {
            char inc_name[128];
            snprintf(inc_name, sizeof inc_name, "%.*s", (int)(close - name), name);
            const char *inc = NULL;
            size_t inc_len = 0;
            char *owned = NULL;
            char *sub = NULL;
            size_t sub_len = 0;
            st = depth >= INCLUDE_DEPTH
                     ? cp_err_set(CP_FAIL_RUNTIME,
                                  "cannot expand kernel includes: %s is more than %d includes "
                                  "deep (an include of itself?)",
                                  inc_name, INCLUDE_DEPTH)
                     : find_source(dir, inc_name, &inc, &inc_len, &owned);
            if (st == CP_OK)
                st = expand_includes(dir, inc, inc_len, &sub, &sub_len, depth + 1);
            /* A write that fails (the stream is out of memory) must fail the build: a source
             * with a piece missing could compile into a kernel that computes something else. */
            if (st == CP_OK && (fwrite(sub, 1, sub_len, f) != sub_len || fputc('\n', f) == EOF))
                st = cp_err_set(CP_FAIL_RUNTIME, "cannot expand kernel includes: out of memory");
            free(sub);
            free(owned);
        } else if (fwrite(p, 1, (size_t)(next - p), f) != (size_t)(next - p)) {
            st = cp_err_set(CP_FAIL_RUNTIME, "cannot expand kernel includes: out of memory");
        }
        p = next;
    }
    if (fclose(f) != 0 && st == CP_OK)
        st = cp_err_set(CP_FAIL_RUNTIME, "cannot expand kernel includes: out of memory");
    if (st != CP_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

/* Builds an already created program, capturing what the driver prints. On failure the build
 * log (or, when the driver keeps it empty, what it printed) is kept for cp_program_log(). */
static cl_int build_captured(cl_program prog, cl_device_id dev, const char *options)
{
    struct stderr_capture cap = {-1, NULL};
    /* In a setup child the driver writes to stderr itself: where the compiler crashes, the
     * parent reads what it printed last there. */
    if (!cp_isolate_in_child())
        capture_begin(&cap);
    cl_int rc = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    char *printed = capture_end(&cap);
    if (rc != CL_SUCCESS)
        keep_log(prog, dev, printed ? printed : "");
    free(printed);
    return rc;
}

static int build_source(cl_context ctx, cl_device_id dev, const char *name, const char *options,
                        const char *text, size_t len, cl_program *out)
{
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &text, &len, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clCreateProgramWithSource");
    rc = build_captured(prog, dev, options);
    if (rc != CL_SUCCESS) {
        clReleaseProgram(prog);
        /* the log's first error in the message itself, so that a failed result's row says why
         * (PoCL 3.0 on a CPU its LLVM does not know: "error: unknown target CPU 'generic'") */
        const char *first = last_log ? strstr(last_log, "error: ") : NULL;
        int first_len = first ? (int)strcspn(first, "\r\n") : 0;
        return cp_err_set(CP_FAIL_RUNTIME, "clBuildProgram failed for %s: %s (%d)%s%.*s%s", name,
                          cp_cl_error_name(rc), rc, first ? ": " : "",
                          first_len > 160 ? 160 : first_len, first ? first : "",
                          last_log && last_log[0] ? "; build log follows" : "");
    }
    *out = prog;
    return CP_OK;
}

/* A program from a cached binary, built with the same options. Any failure is a reason to
 * build from source, not an error: the driver may have changed beneath an intact file. */
static bool build_binary(cl_context ctx, cl_device_id dev, const char *options,
                         const unsigned char *bin, size_t len, cl_program *out, char *why,
                         size_t why_len)
{
    cl_int rc, bin_status = CL_SUCCESS;
    cl_program prog = clCreateProgramWithBinary(ctx, 1, &dev, &len, &bin, &bin_status, &rc);
    if (rc != CL_SUCCESS) {
        snprintf(why, why_len, "clCreateProgramWithBinary refused the cached binary: %s (%d)",
                 cp_cl_error_name(rc), rc);
        return false;
    }
    rc = build_captured(prog, dev, options);
    if (rc != CL_SUCCESS) {
        snprintf(why, why_len, "clBuildProgram failed on the cached binary: %s (%d)",
                 cp_cl_error_name(rc), rc);
        clReleaseProgram(prog);
        /* The source build that follows decides what a failure's log is. */
        free(last_log);
        last_log = NULL;
        return false;
    }
    *out = prog;
    return true;
}

/* The binary of prog for dev (CL_PROGRAM_BINARIES), malloc'd. */
static bool program_binary(cl_program prog, cl_device_id dev, unsigned char **bin, size_t *len,
                           char *why, size_t why_len)
{
    *bin = NULL;
    bool ok = false;
    cl_uint n = 0;
    cl_device_id *devs = NULL;
    size_t *sizes = NULL;
    unsigned char **ptrs = NULL;
    const char *call = "clGetProgramInfo(CL_PROGRAM_NUM_DEVICES)";
    cl_int rc = clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, NULL);
    if (rc != CL_SUCCESS)
        goto out_cl;
    devs = calloc(n ? n : 1, sizeof *devs);
    sizes = calloc(n ? n : 1, sizeof *sizes);
    ptrs = calloc(n ? n : 1, sizeof *ptrs);
    if (!devs || !sizes || !ptrs) {
        snprintf(why, why_len, "out of memory");
        goto out;
    }
    call = "clGetProgramInfo(CL_PROGRAM_DEVICES)";
    rc = clGetProgramInfo(prog, CL_PROGRAM_DEVICES, n * sizeof *devs, devs, NULL);
    if (rc != CL_SUCCESS)
        goto out_cl;
    call = "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)";
    rc = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, n * sizeof *sizes, sizes, NULL);
    if (rc != CL_SUCCESS)
        goto out_cl;
    cl_uint i = 0;
    while (i < n && devs[i] != dev)
        i++;
    if (i == n || sizes[i] == 0) {
        snprintf(why, why_len, "the driver gives no program binary");
        goto out;
    }
    /* Only this device's slot gets memory; the driver skips NULL slots. */
    ptrs[i] = malloc(sizes[i]);
    if (!ptrs[i]) {
        snprintf(why, why_len, "out of memory for a %zu-byte binary", sizes[i]);
        goto out;
    }
    call = "clGetProgramInfo(CL_PROGRAM_BINARIES)";
    rc = clGetProgramInfo(prog, CL_PROGRAM_BINARIES, n * sizeof *ptrs, ptrs, NULL);
    if (rc != CL_SUCCESS) {
        free(ptrs[i]);
        goto out_cl;
    }
    *bin = ptrs[i];
    *len = sizes[i];
    ok = true;
    goto out;
out_cl:
    snprintf(why, why_len, "%s failed: %s (%d)", call, cp_cl_error_name(rc), rc);
out:
    free(devs);
    free(sizes);
    free(ptrs);
    return ok;
}

/* ---- builds held back until their probe passed ------------------------------------------ */

struct held {
    struct cp_cache_key key;
    unsigned char *bin;
    size_t len;
    int depth; /* the hold it belongs to */
};
static _Thread_local struct held *held;
static _Thread_local size_t n_held;
static _Thread_local int hold_depth;

/* Keeps (key, bin) aside under the current hold; takes both (the key is moved). */
static bool hold_push(struct cp_cache_key *key, unsigned char *bin, size_t len, char *why,
                      size_t why_len)
{
    struct held *more = realloc(held, (n_held + 1) * sizeof *held);
    if (!more) {
        free(bin);
        snprintf(why, why_len, "out of memory");
        return false;
    }
    held = more;
    held[n_held++] = (struct held){*key, bin, len, hold_depth};
    memset(key, 0, sizeof *key);
    return true;
}

void cp_program_cache_hold(bool on)
{
    hold_depth += on ? 1 : (hold_depth > 0 ? -1 : 0);
}

void cp_program_cache_release(bool keep)
{
    size_t kept = 0;
    for (size_t i = 0; i < n_held; ++i) {
        struct held *h = &held[i];
        if (h->depth <= hold_depth) { /* an outer hold's */
            held[kept++] = *h;
            continue;
        }
        if (keep && hold_depth > 0) { /* now the outer hold's, until it is released */
            h->depth = hold_depth;
            held[kept++] = *h;
            continue;
        }
        char why[256];
        if (keep) /* not stored: built again next time */
            (void)cp_cache_store(&h->key, h->bin, h->len, why, sizeof why);
        cp_cache_key_free(&h->key);
        free(h->bin);
    }
    n_held = kept;
    if (!n_held) {
        free(held);
        held = NULL;
    }
}

int cp_program_build(cl_context ctx, cl_device_id dev, const char *name, const char *options,
                     cl_program *out)
{
    return cp_program_build_ex(ctx, dev, name, options, out, NULL);
}

int cp_program_source(const char *name, char **text, size_t *len)
{
    char *override = NULL;
    const char *raw = NULL, *dir;
    *text = NULL;
    int st = cp_env_get("CLPARITY_KERNEL_DIR", &dir);
    if (st == CP_OK)
        st = find_source(dir, name, &raw, len, &override);
    if (st == CP_OK)
        st = expand_includes(dir, raw, *len, text, len, 0);
    free(override);
    return st;
}

int cp_program_keep(char *options, size_t len, const char *const *names, size_t n)
{
    size_t at = strlen(options);
    int w = snprintf(options + at, len - at, " -DCP_KERNELS");
    for (size_t i = 0; i < n && w >= 0 && (size_t)w < len - at; ++i) {
        at += (size_t)w;
        w = names[i] ? snprintf(options + at, len - at, " -DCP_K_%s", names[i]) : 0;
    }
    if (w < 0 || (size_t)w >= len - at)
        return cp_err_set(CP_FAIL_RUNTIME,
                          "internal: the build options that keep %s's kernels exceed %zu bytes",
                          n && names[0] ? names[0] : "a program", len);
    return CP_OK;
}

int cp_program_build_ex(cl_context ctx, cl_device_id dev, const char *name, const char *options,
                        cl_program *out, struct cp_build_cache *bc)
{
    struct cp_build_cache local = {0};
    if (!bc)
        bc = &local;
    bc->state = CP_CACHE_OFF;
    bc->note[0] = '\0';
    *out = NULL;
    char *expanded = NULL;
    size_t len = 0;
    int fst = cp_program_source(name, &expanded, &len);
    if (fst != CP_OK)
        return fst;
    const char *text = expanded;

    /* The key hashes the bytes actually built, so an edited CLPARITY_KERNEL_DIR copy misses. */
    struct cp_cache_key key = {0};
    bool keyed = false;
    char lookup[256] = "no entry", why[256] = "";
    if (cp_cache_enabled()) {
        bc->state = CP_CACHE_MISS;
        keyed =
            cp_cache_key_for(&key, dev, name, text, len, options, lookup, sizeof lookup) == CP_OK;
        if (!keyed)
            snprintf(bc->note, sizeof bc->note, "cache not consulted: %s", lookup);
        unsigned char *bin = NULL;
        size_t bin_len = 0;
        if (keyed && cp_cache_load(&key, &bin, &bin_len, lookup, sizeof lookup) &&
            build_binary(ctx, dev, options, bin, bin_len, out, lookup, sizeof lookup))
            bc->state = CP_CACHE_HIT;
        free(bin);
    }
    int st = CP_OK;
    if (bc->state == CP_CACHE_HIT)
        goto out;
    if (!cp_isolate_may_compile(name)) {
        st = CP_FAIL_RUNTIME;
        goto out;
    }
    if (bc->path)
        cp_isolate_test_crash(bc->path);
    st = build_source(ctx, dev, name, options, text, len, out);
    if (st != CP_OK || !keyed)
        goto out;
    unsigned char *bin = NULL;
    size_t bin_len = 0;
    bool stored = program_binary(*out, dev, &bin, &bin_len, why, sizeof why);
    if (stored && hold_depth > 0) {
        stored = hold_push(&key, bin, bin_len, why, sizeof why);
        bin = NULL; /* the held entry owns it */
    } else if (stored) {
        stored = cp_cache_store(&key, bin, bin_len, why, sizeof why);
    }
    free(bin);
    /* An absent entry, then stored, is the ordinary miss; anything else is worth a note. */
    bool absent = strcmp(lookup, "no entry") == 0;
    if (stored && !absent)
        snprintf(bc->note, sizeof bc->note, "bad entry replaced: %s", lookup);
    else if (!stored)
        snprintf(bc->note, sizeof bc->note, "%s%snot stored: %s", absent ? "" : lookup,
                 absent ? "" : "; ", why);
out:
    cp_cache_key_free(&key);
    free(expanded);
    return st;
}

int cp_cl_open(const cp_device *dev, cl_command_queue_properties props, cl_context *ctx,
               cl_command_queue *q)
{
    cl_int rc;
    cl_context_properties cprops[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform_id,
                                      0};
    *ctx = clCreateContext(cprops, 1, &dev->device_id, NULL, NULL, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clCreateContext");
    *q = clCreateCommandQueue(*ctx, dev->device_id, props, &rc);
    if (rc != CL_SUCCESS)
        return cp_err_cl(rc, "clCreateCommandQueue");
    return CP_OK;
}
