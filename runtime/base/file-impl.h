/* Opening an input file without blocking on it: open() of a FIFO that has no writer waits
 * forever, so every reader of a file named by the user opens it non-blocking, checks with
 * fstat that it is a regular file, and only then reads it. */
#ifndef CLPARITY_FILE_IMPL_H
#define CLPARITY_FILE_IMPL_H

#include "clparity/error.h"
#include "clparity/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <unistd.h>

/* The status of an input that cannot be opened: the user's to fix (status 2: no such file, a
 * symbolic link loop, a parent that is a file, no permission, a folder, a name too long), or
 * an I/O failure (3: EIO, ENOMEM, EMFILE...). */
static inline int cp_open_status(int err)
{
    return err == ENOENT || err == ELOOP || err == ENOTDIR || err == EACCES || err == EISDIR ||
                   err == ENAMETOOLONG
               ? CP_FAIL_USAGE
               : CP_FAIL_RUNTIME;
}

/* clparity's temporary names (runtime/base/file.c, cp_atomic_tmp_name): ".<base><tag><pid>",
 * tag ".clparity-tmp." (or a save's ".clparity-old."). Returns the pid where name is exactly
 * that, else -1. Only such names of a pid no longer running (cp_pid_alive) are ever removed
 * as leftovers: never a file of another pattern. */
#define CP_TMP_TAG ".clparity-tmp."
#define CP_OLD_TAG ".clparity-old."
long cp_leftover_pid(const char *name, const char *base, const char *tag);
/* A process of this pid exists (ours or another user's). */
bool cp_pid_alive(long pid);

/* cp_json_write for an entry of clparity's own cache folder (peak-<hash>.json), whose name is
 * clparity's: written over whatever is there, since a damaged entry must be replaced. */
int cp_json_write_entry(const char *path, const void *json);

/* Opens path for reading ("rb"). Returns the stream; or NULL with *mode = 0 and errno set
 * when it cannot be opened, or NULL with *mode = its st_mode when it is not a regular file. */
static inline FILE *cp_fopen_regular(const char *path, mode_t *mode)
{
    *mode = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        *mode = sb.st_mode;
        errno = EINVAL;
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

/* The whole of the regular file path, NUL-terminated, into *text (malloc'd; its length in
 * *len): 0, or an errno and *text NULL: ENOENT or ENOTDIR (none there), EINVAL (not a regular
 * file), EFBIG (more than max bytes), ENOMEM, EIO (a read failed), or open's own. For the
 * checks that tell clparity's files from the user's: those four first errnos mean "not one of
 * clparity's", the others "cannot tell". */
int cp_read_regular(const char *path, size_t max, char **text, size_t *len);

/* Whether cp_read_regular's errno e means that path holds no file of clparity's (rather than
 * that it could not be read to tell). */
static inline bool cp_read_says_none(int e)
{
    return e == ENOENT || e == ENOTDIR || e == EINVAL || e == EFBIG;
}

#endif
