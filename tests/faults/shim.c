/* clang-format off */
/* Fault injection, SQLite's way: an LD_PRELOAD shim that makes the N-th call of one class
 * fail, for tests/faults/run.py. Only calls made by clparity's own code count: the caller's
 * return address must lie in the main executable (build/clparity, which links the runtime
 * statically) or, for the malloc class, in libcjson (cJSON allocates only for clparity). Calls
 * from PoCL, LLVM, OpenBLAS, CLBlast or glibc itself pass through untouched: those abort on
 * out-of-memory by design, and their behaviour is not ours to test.
 *
 *   CLPARITY_FAULT_CLASS   malloc      malloc, calloc, realloc, strdup, strndup, open_memstream
 *                                      (NULL, ENOMEM)
 *                          open        open, fopen, fopen64 (-1 / NULL, ENOSPC when creating,
 *                                      else EIO)
 *                          write       write, fwrite, and the fclose of a FILE opened for
 *                                      writing (the flush of its buffer): ENOSPC, a stream's
 *                                      error flag set
 *                          fsync       fsync, fdatasync: EIO
 *                          rename      rename: EIO
 *                          renameat2   renameat2 (--save's RENAME_EXCHANGE): EIO
 *                          stdout      printf, vprintf, fprintf and vfprintf on stdout, puts,
 *                                      fputs, fputc, putc and putchar on stdout: nothing
 *                                      written, stdout's error flag set, ENOSPC
 *                          fflush      fflush of any stream: its buffer lost, its error flag
 *                                      set, ENOSPC (fflush(NULL): stdout's)
 *                          cl-buffer   clCreateBuffer: CL_MEM_OBJECT_ALLOCATION_FAILURE
 *                          cl-enqueue  every clEnqueue* clparity calls: CL_OUT_OF_RESOURCES
 *                          cl-build    clBuildProgram: CL_BUILD_PROGRAM_FAILURE
 *                          cl-finish   clFinish: CL_OUT_OF_RESOURCES
 *   CLPARITY_FAULT_N       the call that fails (1, 2, ...); 0 or unset: count only
 *   CLPARITY_FAULT_REPORT  at exit, "<class> <calls> <injected 0|1>\n" is written there
 *   CLPARITY_FAULT_TRACE   1: the failed call's return address (offset in the executable, for
 *                          addr2line -e build/clparity) and the stack go to stderr
 *   CLPARITY_FAULT_PLANT   truncate-rename: every rename of ours that succeeds then truncates
 *                          the file to half its size (a planted bug: run.py must catch it)
 *
 * The shim acts only in a process whose executable is named clparity, so that a compiler or
 * linker that a runtime starts with the same environment is left alone. */
/* clang-format on */
#define _GNU_SOURCE
#include <CL/cl.h>
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum fault_class {
    FC_NONE,
    FC_MALLOC,
    FC_OPEN,
    FC_WRITE,
    FC_FSYNC,
    FC_RENAME,
    FC_CL_BUFFER,
    FC_CL_ENQUEUE,
    FC_CL_BUILD,
    FC_CL_FINISH,
    FC_RENAMEAT2,
    FC_STDOUT,
    FC_FFLUSH,
    FC_COUNT,
};

static const char *const class_names[] = {
    [FC_NONE] = "none",           [FC_MALLOC] = "malloc",         [FC_OPEN] = "open",
    [FC_WRITE] = "write",         [FC_FSYNC] = "fsync",           [FC_RENAME] = "rename",
    [FC_CL_BUFFER] = "cl-buffer", [FC_CL_ENQUEUE] = "cl-enqueue", [FC_CL_BUILD] = "cl-build",
    [FC_CL_FINISH] = "cl-finish", [FC_RENAMEAT2] = "renameat2",   [FC_STDOUT] = "stdout",
    [FC_FFLUSH] = "fflush",
};

/* Address ranges of the code whose calls count. */
struct range {
    uintptr_t lo, hi;
};
static struct range exe_ranges[8], cjson_ranges[8];
static int n_exe, n_cjson;
static uintptr_t exe_base;

static int active = -1; /* -1: not set up yet */
static enum fault_class fclass;
static long fail_at;
static bool plant_truncate;
static atomic_long calls;
static atomic_int injected;
static pid_t owner_pid;
static _Thread_local int in_shim;

/* malloc before dlsym has found the real one (dlsym may allocate): a small static arena. */
static _Alignas(16) unsigned char boot_arena[1 << 16];
static size_t boot_used;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

static void *next_sym(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

/* A function pointer from dlsym's void * without the cast -Wpedantic forbids. */
#define LOAD(var, name)                                                                            \
    do {                                                                                           \
        if (!var) {                                                                                \
            void *p_ = next_sym(name);                                                             \
            memcpy(&var, &p_, sizeof p_);                                                          \
        }                                                                                          \
    } while (0)

static void load_alloc(void)
{
    static _Thread_local int loading;
    if (real_malloc || loading)
        return;
    loading = 1;
    LOAD(real_calloc, "calloc");
    LOAD(real_realloc, "realloc");
    LOAD(real_free, "free");
    LOAD(real_malloc, "malloc");
    loading = 0;
}

static bool in_boot(const void *p)
{
    return (const unsigned char *)p >= boot_arena &&
           (const unsigned char *)p < boot_arena + sizeof boot_arena;
}

static void *boot_alloc(size_t n)
{
    size_t at = (boot_used + 15) & ~(size_t)15;
    if (at + n > sizeof boot_arena)
        return NULL;
    boot_used = at + n;
    return boot_arena + at;
}

static int add_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    bool exe = info->dlpi_name == NULL || info->dlpi_name[0] == '\0';
    bool cjson = !exe && strstr(info->dlpi_name, "libcjson") != NULL;
    if (!exe && !cjson)
        return 0;
    if (exe)
        exe_base = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        struct range r = {info->dlpi_addr + ph->p_vaddr,
                          info->dlpi_addr + ph->p_vaddr + ph->p_memsz};
        if (exe && n_exe < 8)
            exe_ranges[n_exe++] = r;
        else if (cjson && n_cjson < 8)
            cjson_ranges[n_cjson++] = r;
    }
    return 0;
}

static bool exe_is_clparity(void)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *base = strrchr(buf, '/');
    base = base ? base + 1 : buf;
    return strcmp(base, "clparity") == 0;
}

static void setup(void)
{
    if (active >= 0)
        return;
    in_shim++;
    active = 0;
    const char *c = getenv("CLPARITY_FAULT_CLASS");
    if (c && exe_is_clparity()) {
        for (int k = FC_MALLOC; k < FC_COUNT; ++k)
            if (strcmp(c, class_names[k]) == 0)
                fclass = (enum fault_class)k;
        const char *n = getenv("CLPARITY_FAULT_N");
        fail_at = n ? strtol(n, NULL, 10) : 0;
        const char *p = getenv("CLPARITY_FAULT_PLANT");
        plant_truncate = p && strcmp(p, "truncate-rename") == 0;
        owner_pid = getpid();
        dl_iterate_phdr(add_ranges, NULL);
        active = fclass != FC_NONE || plant_truncate;
    }
    in_shim--;
}

__attribute__((constructor)) static void shim_init(void)
{
    load_alloc();
    setup();
}

static bool in_ranges(const struct range *r, int n, uintptr_t a)
{
    for (int i = 0; i < n; ++i)
        if (a >= r[i].lo && a < r[i].hi)
            return true;
    return false;
}

/* Whether this call, of class k from return address ra, is the one to fail. */
static bool should_fail(enum fault_class k, const void *ra)
{
    if (active != 1 || in_shim || k != fclass || getpid() != owner_pid)
        return false;
    uintptr_t a = (uintptr_t)ra;
    if (!in_ranges(exe_ranges, n_exe, a) &&
        !(k == FC_MALLOC && in_ranges(cjson_ranges, n_cjson, a)))
        return false;
    long n = atomic_fetch_add(&calls, 1) + 1;
    if (fail_at > 0 && n == fail_at) {
        atomic_store(&injected, 1);
        /* CLPARITY_FAULT_TRACE=1: where the failed call came from, for addr2line -e clparity. */
        const char *t = getenv("CLPARITY_FAULT_TRACE");
        if (t && t[0] == '1') {
            char line[96];
            int len = snprintf(line, sizeof line, "fault: %s call %ld fails, caller +0x%lx\n",
                               class_names[k], n, (unsigned long)(a - exe_base));
            if (syscall(SYS_write, 2, line, (size_t)len) != len)
                (void)0;
            /* The stack, for a call that came through a library (cJSON): backtrace's first
             * call may allocate, which in_shim lets through. */
            void *frames[24];
            in_shim++;
            int nf = backtrace(frames, 24);
            backtrace_symbols_fd(frames, nf, 2);
            in_shim--;
        }
        return true;
    }
    return false;
}

__attribute__((destructor)) static void shim_report(void)
{
    if (active != 1 || getpid() != owner_pid)
        return;
    const char *path = getenv("CLPARITY_FAULT_REPORT");
    if (!path)
        return;
    char line[128];
    int len = snprintf(line, sizeof line, "%s %ld %d\n", class_names[fclass], atomic_load(&calls),
                       atomic_load(&injected));
    /* Raw system calls: the interposed open and write must not count these. */
    int fd =
        (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (syscall(SYS_write, fd, line, (size_t)len) != len)
        (void)0;
    syscall(SYS_close, fd);
}

/* ---- malloc ------------------------------------------------------------------------------ */

void *malloc(size_t n)
{
    load_alloc();
    if (!real_malloc)
        return boot_alloc(n);
    if (active == 1 && should_fail(FC_MALLOC, __builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return real_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    load_alloc();
    if (!real_calloc) {
        if (size && n > SIZE_MAX / size)
            return NULL;
        return boot_alloc(n * size); /* the arena is zeroed and never reused */
    }
    if (active == 1 && should_fail(FC_MALLOC, __builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return real_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    load_alloc();
    if (in_boot(p)) {
        void *q = malloc(n);
        if (q)
            memcpy(q, p, n < sizeof boot_arena ? n : sizeof boot_arena);
        return q;
    }
    if (!real_realloc)
        return NULL;
    if (active == 1 && should_fail(FC_MALLOC, __builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return real_realloc(p, n);
}

void free(void *p)
{
    if (!p || in_boot(p))
        return;
    load_alloc();
    if (real_free)
        real_free(p);
}

char *strdup(const char *s)
{
    if (active == 1 && should_fail(FC_MALLOC, __builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

char *strndup(const char *s, size_t max)
{
    if (active == 1 && should_fail(FC_MALLOC, __builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    size_t n = strnlen(s, max);
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* A stream into memory allocates its buffer: a malloc-class point. */
FILE *open_memstream(char **buf, size_t *len)
{
    static FILE *(*real)(char **, size_t *);
    LOAD(real, "open_memstream");
    if (active == 1 && should_fail(FC_MALLOC, __builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return real(buf, len);
}

/* ---- files ------------------------------------------------------------------------------- */

/* The FILEs of ours opened for writing, whose fclose flushes (a write point). */
static FILE *writing[64];

static void writing_set(FILE *f, bool on)
{
    for (int i = 0; i < 64; ++i) {
        if (on && !writing[i]) {
            writing[i] = f;
            return;
        }
        if (!on && writing[i] == f) {
            writing[i] = NULL;
            return;
        }
    }
}

static bool is_writing(FILE *f)
{
    for (int i = 0; i < 64; ++i)
        if (writing[i] == f)
            return true;
    return false;
}

int open(const char *path, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    LOAD(real, "open");
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (active == 1 && should_fail(FC_OPEN, __builtin_return_address(0))) {
        errno = (flags & O_CREAT) ? ENOSPC : EIO;
        return -1;
    }
    return real(path, flags, mode);
}

static FILE *do_fopen(FILE *(*real)(const char *, const char *), const char *path, const char *mode,
                      const void *ra)
{
    bool w = strpbrk(mode, "wa+") != NULL;
    if (active == 1 && should_fail(FC_OPEN, ra)) {
        errno = w ? ENOSPC : EIO;
        return NULL;
    }
    FILE *f = real(path, mode);
    if (f && w && active == 1)
        writing_set(f, true);
    return f;
}

FILE *fopen(const char *path, const char *mode)
{
    static FILE *(*real)(const char *, const char *);
    LOAD(real, "fopen");
    return do_fopen(real, path, mode, __builtin_return_address(0));
}

FILE *fopen64(const char *path, const char *mode)
{
    static FILE *(*real)(const char *, const char *);
    LOAD(real, "fopen64");
    return do_fopen(real, path, mode, __builtin_return_address(0));
}

/* A stream whose write failed, as glibc leaves it: the error flag set (ferror), errno ENOSPC.
 * glibc's struct is public (<bits/types/struct_FILE.h>); no standard call sets the flag. */
static void stream_fail(FILE *f)
{
    if (f)
        f->_flags |= _IO_ERR_SEEN;
    errno = ENOSPC;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*real)(int, const void *, size_t);
    LOAD(real, "write");
    if (active == 1 && should_fail(FC_WRITE, __builtin_return_address(0))) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, buf, n);
}

size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    static size_t (*real)(const void *, size_t, size_t, FILE *);
    LOAD(real, "fwrite");
    if (active == 1 && should_fail(FC_WRITE, __builtin_return_address(0))) {
        stream_fail(f);
        return 0;
    }
    return real(p, size, n, f);
}

int fclose(FILE *f)
{
    static int (*real)(FILE *);
    LOAD(real, "fclose");
    if (active == 1 && f && is_writing(f)) {
        writing_set(f, false);
        if (should_fail(FC_WRITE, __builtin_return_address(0))) {
            /* The buffer is lost as a full disk would lose it; the FILE is closed all the same. */
            real(f);
            errno = ENOSPC;
            return EOF;
        }
    }
    return real(f);
}

/* fflush: a full disk loses what the buffer held (glibc empties it after a failed write) and
 * sets the error flag. fflush(NULL), every stream: stdout's fails, the others are flushed. */
int fflush(FILE *f)
{
    static int (*real)(FILE *);
    LOAD(real, "fflush");
    if (active == 1 && should_fail(FC_FFLUSH, __builtin_return_address(0))) {
        FILE *lost = f ? f : stdout;
        __fpurge(lost);
        if (!f)
            real(NULL);
        stream_fail(lost);
        return EOF;
    }
    return real(f);
}

/* ---- the printf family on stdout (the report) --------------------------------------------- */
/* The failed call writes nothing and leaves stdout as a failed write does (stream_fail). Calls
 * on other streams (stderr, files) pass through uncounted. */

static bool stdout_fails(FILE *f, const void *ra)
{
    if (active != 1 || f != stdout || !should_fail(FC_STDOUT, ra))
        return false;
    stream_fail(f);
    return true;
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
    static int (*real)(FILE *, const char *, va_list);
    LOAD(real, "vfprintf");
    if (stdout_fails(f, __builtin_return_address(0)))
        return -1;
    return real(f, fmt, ap);
}

int fprintf(FILE *f, const char *fmt, ...)
{
    static int (*real)(FILE *, const char *, va_list);
    LOAD(real, "vfprintf");
    if (stdout_fails(f, __builtin_return_address(0)))
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int r = real(f, fmt, ap);
    va_end(ap);
    return r;
}

int vprintf(const char *fmt, va_list ap)
{
    static int (*real)(FILE *, const char *, va_list);
    LOAD(real, "vfprintf");
    if (stdout_fails(stdout, __builtin_return_address(0)))
        return -1;
    return real(stdout, fmt, ap);
}

int printf(const char *fmt, ...)
{
    static int (*real)(FILE *, const char *, va_list);
    LOAD(real, "vfprintf");
    if (stdout_fails(stdout, __builtin_return_address(0)))
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int r = real(stdout, fmt, ap);
    va_end(ap);
    return r;
}

int puts(const char *str)
{
    static int (*real)(const char *);
    LOAD(real, "puts");
    if (stdout_fails(stdout, __builtin_return_address(0)))
        return EOF;
    return real(str);
}

int fputs(const char *str, FILE *f)
{
    static int (*real)(const char *, FILE *);
    LOAD(real, "fputs");
    if (stdout_fails(f, __builtin_return_address(0)))
        return EOF;
    return real(str, f);
}

int fputc(int c, FILE *f)
{
    static int (*real)(int, FILE *);
    LOAD(real, "fputc");
    if (stdout_fails(f, __builtin_return_address(0)))
        return EOF;
    return real(c, f);
}

int putc(int c, FILE *f)
{
    static int (*real)(int, FILE *);
    LOAD(real, "putc");
    if (stdout_fails(f, __builtin_return_address(0)))
        return EOF;
    return real(c, f);
}

int putchar(int c)
{
    static int (*real)(int);
    LOAD(real, "putchar");
    if (stdout_fails(stdout, __builtin_return_address(0)))
        return EOF;
    return real(c);
}

int fsync(int fd)
{
    static int (*real)(int);
    LOAD(real, "fsync");
    if (active == 1 && should_fail(FC_FSYNC, __builtin_return_address(0))) {
        errno = EIO;
        return -1;
    }
    return real(fd);
}

int fdatasync(int fd)
{
    static int (*real)(int);
    LOAD(real, "fdatasync");
    if (active == 1 && should_fail(FC_FSYNC, __builtin_return_address(0))) {
        errno = EIO;
        return -1;
    }
    return real(fd);
}

int rename(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    LOAD(real, "rename");
    const void *ra = __builtin_return_address(0);
    if (active == 1 && should_fail(FC_RENAME, ra)) {
        errno = EIO;
        return -1;
    }
    int r = real(from, to);
    if (r == 0 && plant_truncate && in_ranges(exe_ranges, n_exe, (uintptr_t)ra)) {
        struct stat sb;
        if (stat(to, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 1)
            (void)truncate(to, sb.st_size / 2);
    }
    return r;
}

/* --save's swap of two folders (runtime/files/savedir.c, RENAME_EXCHANGE). */
int renameat2(int from_dir, const char *from, int to_dir, const char *to, unsigned int flags)
{
    static int (*real)(int, const char *, int, const char *, unsigned int);
    LOAD(real, "renameat2");
    if (active == 1 && should_fail(FC_RENAMEAT2, __builtin_return_address(0))) {
        errno = EIO;
        return -1;
    }
    return real(from_dir, from, to_dir, to, flags);
}

/* ---- OpenCL ------------------------------------------------------------------------------ */

cl_mem clCreateBuffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host, cl_int *err)
{
    static cl_mem (*real)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
    LOAD(real, "clCreateBuffer");
    if (active == 1 && should_fail(FC_CL_BUFFER, __builtin_return_address(0))) {
        if (err)
            *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    return real(ctx, flags, size, host, err);
}

cl_int clBuildProgram(cl_program prog, cl_uint n, const cl_device_id *devs, const char *opts,
                      void(CL_CALLBACK *notify)(cl_program, void *), void *data)
{
    static cl_int (*real)(cl_program, cl_uint, const cl_device_id *, const char *,
                          void(CL_CALLBACK *)(cl_program, void *), void *);
    LOAD(real, "clBuildProgram");
    if (active == 1 && should_fail(FC_CL_BUILD, __builtin_return_address(0)))
        return CL_BUILD_PROGRAM_FAILURE;
    return real(prog, n, devs, opts, notify, data);
}

cl_int clFinish(cl_command_queue q)
{
    static cl_int (*real)(cl_command_queue);
    LOAD(real, "clFinish");
    if (active == 1 && should_fail(FC_CL_FINISH, __builtin_return_address(0)))
        return CL_OUT_OF_RESOURCES;
    return real(q);
}

#define ENQ_FAIL() (active == 1 && should_fail(FC_CL_ENQUEUE, __builtin_return_address(0)))

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                              const size_t *gws, const size_t *lws, cl_uint nw, const cl_event *wl,
                              cl_event *ev)
{
    static cl_int (*real)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                          const size_t *, cl_uint, const cl_event *, cl_event *);
    LOAD(real, "clEnqueueNDRangeKernel");
    if (ENQ_FAIL())
        return CL_OUT_OF_RESOURCES;
    return real(q, k, dim, off, gws, lws, nw, wl, ev);
}

cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off, size_t size,
                           void *p, cl_uint nw, const cl_event *wl, cl_event *ev)
{
    static cl_int (*real)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
                          const cl_event *, cl_event *);
    LOAD(real, "clEnqueueReadBuffer");
    if (ENQ_FAIL())
        return CL_OUT_OF_RESOURCES;
    return real(q, b, blocking, off, size, p, nw, wl, ev);
}

cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off, size_t size,
                            const void *p, cl_uint nw, const cl_event *wl, cl_event *ev)
{
    static cl_int (*real)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint,
                          const cl_event *, cl_event *);
    LOAD(real, "clEnqueueWriteBuffer");
    if (ENQ_FAIL())
        return CL_OUT_OF_RESOURCES;
    return real(q, b, blocking, off, size, p, nw, wl, ev);
}

cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t so, size_t dof,
                           size_t size, cl_uint nw, const cl_event *wl, cl_event *ev)
{
    static cl_int (*real)(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint,
                          const cl_event *, cl_event *);
    LOAD(real, "clEnqueueCopyBuffer");
    if (ENQ_FAIL())
        return CL_OUT_OF_RESOURCES;
    return real(q, src, dst, so, dof, size, nw, wl, ev);
}

cl_int clEnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst, const size_t *so,
                               const size_t *dof, const size_t *region, size_t srp, size_t ssp,
                               size_t drp, size_t dsp, cl_uint nw, const cl_event *wl, cl_event *ev)
{
    static cl_int (*real)(cl_command_queue, cl_mem, cl_mem, const size_t *, const size_t *,
                          const size_t *, size_t, size_t, size_t, size_t, cl_uint, const cl_event *,
                          cl_event *);
    LOAD(real, "clEnqueueCopyBufferRect");
    if (ENQ_FAIL())
        return CL_OUT_OF_RESOURCES;
    return real(q, src, dst, so, dof, region, srp, ssp, drp, dsp, nw, wl, ev);
}

cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void *pat, size_t psize, size_t off,
                           size_t size, cl_uint nw, const cl_event *wl, cl_event *ev)
{
    static cl_int (*real)(cl_command_queue, cl_mem, const void *, size_t, size_t, size_t, cl_uint,
                          const cl_event *, cl_event *);
    LOAD(real, "clEnqueueFillBuffer");
    if (ENQ_FAIL())
        return CL_OUT_OF_RESOURCES;
    return real(q, b, pat, psize, off, size, nw, wl, ev);
}

void *clEnqueueMapBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, cl_map_flags flags,
                         size_t off, size_t size, cl_uint nw, const cl_event *wl, cl_event *ev,
                         cl_int *err)
{
    static void *(*real)(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint,
                         const cl_event *, cl_event *, cl_int *);
    LOAD(real, "clEnqueueMapBuffer");
    if (ENQ_FAIL()) {
        if (err)
            *err = CL_OUT_OF_RESOURCES;
        return NULL;
    }
    return real(q, b, blocking, flags, off, size, nw, wl, ev, err);
}

cl_int clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *p, cl_uint nw,
                               const cl_event *wl, cl_event *ev)
{
    static cl_int (*real)(cl_command_queue, cl_mem, void *, cl_uint, const cl_event *, cl_event *);
    LOAD(real, "clEnqueueUnmapMemObject");
    if (ENQ_FAIL())
        return CL_OUT_OF_RESOURCES;
    return real(q, m, p, nw, wl, ev);
}
