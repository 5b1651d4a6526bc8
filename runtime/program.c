#include "program-impl.h"

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

int cp_program_build(cl_context ctx, cl_device_id dev, const char *name, const char *options,
                     cl_program *out)
{
    *out = NULL;
    char *override = NULL;
    const char *text = NULL;
    size_t len = 0;
    const char *dir = getenv("CLPARITY_KERNEL_DIR");
    if (dir && dir[0]) {
        int st = read_override(dir, name, &override, &len);
        if (st != CP_OK)
            return st;
        text = override;
    } else {
        for (size_t i = 0; i < cp_kernel_source_count; ++i)
            if (strcmp(cp_kernel_sources[i].name, name) == 0) {
                text = (const char *)cp_kernel_sources[i].data;
                len = cp_kernel_sources[i].len;
            }
        if (!text)
            return cp_err_set(CP_FAIL_RUNTIME, "no embedded kernel source named %s", name);
    }
    cl_int rc;
    int st = CP_OK;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &text, &len, &rc);
    if (rc != CL_SUCCESS) {
        st = cp_err_cl(rc, "clCreateProgramWithSource");
        goto out_free;
    }
    struct stderr_capture cap;
    capture_begin(&cap);
    rc = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    char *printed = capture_end(&cap);
    if (rc != CL_SUCCESS) {
        keep_log(prog, dev, printed ? printed : "");
        free(printed);
        st = cp_err_set(CP_FAIL_RUNTIME, "clBuildProgram failed for %s: %s (%d)%s", name,
                        cp_cl_error_name(rc), rc,
                        last_log && last_log[0] ? "; build log follows" : "");
        clReleaseProgram(prog);
        goto out_free;
    }
    free(printed);
    *out = prog;
out_free:
    free(override);
    return st;
}
