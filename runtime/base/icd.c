/* Why the ICD loader found no platform, or fewer than there are. ocl-icd and the Khronos
 * loader skip an .icd file whose library cannot be loaded without a word, and PoCL exposes no
 * device when it cannot create its cache folder, again without a word to the program. So the
 * files are read here as the loader reads them, each library is opened as the loader opens it
 * (dlopen, RTLD_LAZY | RTLD_LOCAL: already loaded, it only gains a reference), and dlerror's
 * text is kept. */
#include "icd-impl.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cp_note_add(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 3 >= len)
        return;
    if (used) {
        memcpy(buf + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

struct scan {
    char *buf;
    size_t len;
    int loadable; /* libraries that load and are ICDs */
};

/* from: who names the library ("/etc/OpenCL/vendors/x.icd", "OCL_ICD_FILENAMES"). */
static void try_lib(struct scan *s, const char *from, const char *lib)
{
    dlerror();
    void *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        cp_note_add(s->buf, s->len, "%s names %s, which cannot be loaded: %s", from, lib,
                    e ? e : "dlopen failed");
        return;
    }
    /* The loader finds clIcdGetPlatformIDsKHR through clGetExtensionFunctionAddress. */
    if (!dlsym(h, "clGetExtensionFunctionAddress") && !dlsym(h, "clIcdGetPlatformIDsKHR"))
        cp_note_add(s->buf, s->len,
                    "%s names %s, which is no OpenCL ICD (no clGetExtensionFunctionAddress)", from,
                    lib);
    else
        s->loadable++;
    dlclose(h);
}

/* An .icd file holds one line: the library's name or path. */
static void read_icd(struct scan *s, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cp_note_add(s->buf, s->len, "cannot read %s: %s", path, strerror(errno));
        return;
    }
    char line[4096] = "";
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    fclose(f);
    char *a = line;
    while (*a == ' ' || *a == '\t')
        a++;
    size_t n = strcspn(a, "\r\n");
    while (n && (a[n - 1] == ' ' || a[n - 1] == '\t'))
        n--;
    a[n] = '\0';
    if (!*a)
        cp_note_add(s->buf, s->len, "%s is empty: it names no library", path);
    else
        try_lib(s, path, a);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

static int is_icd(const struct dirent *e)
{
    return ends_with(e->d_name, ".icd");
}

/* label: how the folder was chosen ("OCL_ICD_VENDORS=/x" or "/etc/OpenCL/vendors"). */
static void scan_dir(struct scan *s, const char *dir, const char *label)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, is_icd, alphasort);
    if (n < 0) {
        cp_note_add(s->buf, s->len, "%s: cannot read the folder: %s", label, strerror(errno));
        return;
    }
    if (n == 0)
        cp_note_add(s->buf, s->len, "%s: no .icd file there", label);
    for (int i = 0; i < n; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/",
                 names[i]->d_name);
        read_icd(s, path);
        free(names[i]);
    }
    free(names);
}

void cp_icd_check(char *buf, size_t len, bool none_found)
{
    struct scan s = {buf, len, 0};
    size_t before = strlen(buf);
    const char *vdir = getenv("OPENCL_VENDOR_PATH");
    if (!vdir || !*vdir)
        vdir = "/etc/OpenCL/vendors";
    const char *files = getenv("OCL_ICD_FILENAMES");
    if (files && *files) {
        char *copy = strdup(files), *save = NULL;
        for (char *t = copy ? strtok_r(copy, ":", &save) : NULL; t; t = strtok_r(NULL, ":", &save))
            try_lib(&s, "OCL_ICD_FILENAMES", t);
        free(copy);
    }
    const char *v = getenv("OCL_ICD_VENDORS");
    char label[4200];
    struct stat sb;
    if (v && *v) {
        snprintf(label, sizeof label, "OCL_ICD_VENDORS=%s", v);
        if (stat(v, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            scan_dir(&s, v, label);
        } else if (ends_with(v, ".icd")) {
            /* ocl-icd: a bare name is looked for in the vendors folder first. */
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", vdir, v);
            read_icd(&s, !strchr(v, '/') && access(path, R_OK) == 0 ? path : v);
        } else if (strchr(v, '/') && stat(v, &sb) != 0) {
            cp_note_add(buf, len, "%s: %s", label, strerror(errno));
        } else {
            try_lib(&s, "OCL_ICD_VENDORS", v); /* the library itself */
        }
    } else {
        scan_dir(&s, vdir, vdir);
    }
    if (none_found && strlen(buf) == before)
        cp_note_add(buf, len, "%d ICD librar%s loaded, but none reports a platform", s.loadable,
                    s.loadable == 1 ? "y" : "ies");
}

/* Whether mkdir -p of path would fail: the deepest part that exists must be a folder that can
 * be written (the whole path, if it exists). why gets the reason. */
static bool cannot_make(const char *path, char *why, size_t len)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (;;) {
        struct stat sb;
        if (stat(p, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode)) {
                snprintf(why, len, "%s is not a folder", p);
                return true;
            }
            if (access(p, W_OK | X_OK) != 0) {
                snprintf(why, len, "%s cannot be written: %s", p, strerror(errno));
                return true;
            }
            return false;
        }
        if (errno != ENOENT && errno != ENOTDIR) {
            snprintf(why, len, "%s: %s", p, strerror(errno));
            return true;
        }
        char *slash = strrchr(p, '/');
        if (!slash)
            return false; /* a relative path: the working folder is checked no further */
        if (slash == p) {
            if (!p[1])
                return false;
            p[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
}

bool cp_pocl_cache_problem(char *why, size_t len)
{
    char dir[4096];
    const char *from, *e = getenv("POCL_CACHE_DIR");
    const char *kc = getenv("POCL_KERNEL_CACHE");
    const char *sub = kc && strcmp(kc, "0") == 0 ? "pocl/uncached" : "pocl/kcache";
    if (e) {
        snprintf(dir, sizeof dir, "%s", e);
        from = "POCL_CACHE_DIR";
    } else if ((e = getenv("XDG_CACHE_HOME")) && *e) {
        snprintf(dir, sizeof dir, "%s/%s", e, sub);
        from = "XDG_CACHE_HOME";
    } else if ((e = getenv("HOME"))) {
        snprintf(dir, sizeof dir, "%s/.cache/%s", e, sub);
        from = "HOME";
    } else {
        snprintf(dir, sizeof dir, "/tmp/%s", sub);
        from = "neither XDG_CACHE_HOME nor HOME is set";
    }
    char bad[4200];
    if (!cannot_make(dir, bad, sizeof bad))
        return false;
    snprintf(why, len,
             "PoCL cannot create its cache folder %s (from %s): %s; set POCL_CACHE_DIR to a "
             "writable folder%s",
             dir, from, bad,
             strcmp(from, "XDG_CACHE_HOME") == 0 ? ", or fix XDG_CACHE_HOME"
             : strcmp(from, "HOME") == 0         ? ", or fix HOME"
                                                 : "");
    return true;
}
