/* NumPy .npy files: an atomic writer and a strict, bounds-checked reader. */
#include "clparity/npy.h"
#include "clparity/error.h"
#include "clparity/report.h"
#include "file-impl.h"
#include "npy-header-impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static void swap_bytes(void *buf, size_t count, size_t size)
{
    unsigned char *p = buf;

    for (size_t i = 0; i < count; i++, p += size) {
        for (size_t j = 0; j < size / 2; j++) {
            unsigned char t = p[j];

            p[j] = p[size - 1 - j];
            p[size - 1 - j] = t;
        }
    }
}

/* Records "<path>: <what>: <strerror>" for an I/O failure; errno must still be the culprit's. */
static int io_error(const char *path, const char *what)
{
    int e = errno ? errno : EIO; /* C leaves errno unset by a short fwrite; POSIX sets it */

    return cp_err_set(CP_FAIL_RUNTIME, "%s: %s: %s", path, what, strerror(e));
}

/* Writes count items of size bytes in file (little-endian) order, swapping if need be. */
static int write_le(FILE *f, const void *data, size_t count, size_t size)
{
    const unsigned char *p = data;
    unsigned char chunk[NPY_SWAP_CHUNK];
    size_t per = sizeof(chunk) / size;

    if (host_is_little_endian())
        return fwrite(p, size, count, f) == count ? 0 : -1;
    while (count > 0) {
        size_t n = count < per ? count : per;

        memcpy(chunk, p, n * size);
        swap_bytes(chunk, n, size);
        if (fwrite(chunk, size, n, f) != n)
            return -1;
        p += n * size;
        count -= n;
    }
    return 0;
}

int cp_npy_write(const char *path, enum cp_dtype t, int ndim, const size_t *shape, const void *data)
{
    char header[NPY_HEADER_CAP];
    size_t header_len, count, itemsize;
    char *tmp = NULL;
    FILE *f = NULL;
    int created = 0;
    int ret = CP_FAIL_RUNTIME;

    /* Bad arguments are the caller's bug, not an I/O failure: CP_FAIL_USAGE. */
    if (!path)
        return cp_err_set(CP_FAIL_USAGE, "cp_npy_write: no path");
    itemsize = cp_dtype_size(t);
    if (itemsize == 0)
        return cp_err_set(CP_FAIL_USAGE, "%s: invalid dtype %d", path, (int)t);
    if (ndim < 0 || ndim > CP_NPY_MAX_DIMS || (ndim > 0 && !shape))
        return cp_err_set(CP_FAIL_USAGE, "%s: invalid shape (ndim %d)", path, ndim);
    if (!shape_count(ndim, shape, itemsize, &count))
        return cp_err_set(CP_FAIL_USAGE, "%s: shape overflows size_t", path);
    if (count > 0 && !data)
        return cp_err_set(CP_FAIL_USAGE, "%s: no data", path);
    header_len = npy_format_header(header, sizeof(header), t, ndim, shape);
    if (header_len == 0)
        return cp_err_set(CP_FAIL_USAGE, "%s: header does not fit", path);

    if (cp_output_check(NULL, path) != CP_OK)
        return CP_FAIL_USAGE;
    tmp = cp_atomic_tmp_name(path);
    if (!tmp)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", path);

    errno = 0;
    f = fopen(tmp, "wb");
    if (!f) {
        ret = io_error(path, "cannot create temporary file");
        goto out;
    }
    created = 1;
    errno = 0;
    if (fwrite(header, 1, header_len, f) != header_len ||
        (count > 0 && write_le(f, data, count, itemsize) != 0) || fflush(f) != 0) {
        ret = io_error(path, "write failed");
        goto out;
    }
    /* fclose() can report a deferred write error (NFS, a full disk): it must be checked. */
    errno = 0;
    if (fclose(f) != 0) {
        f = NULL;
        ret = io_error(path, "write failed");
        goto out;
    }
    f = NULL;
    /* Readers see the old file or the whole new one, never a partial write. */
    created = 0;
    errno = cp_atomic_commit(tmp, path);
    if (errno != 0) {
        ret = io_error(path, "cannot sync or rename temporary file");
        goto out;
    }
    ret = CP_OK;
out:
    if (f)
        fclose(f);
    if (created)
        cp_atomic_abort(tmp, path);
    free(tmp);
    return ret;
}

/*
 * Reads exactly n bytes. A short read is CP_FAIL_RUNTIME for an I/O error and CP_OK with
 * *got < n at end of file, which the caller reports as malformed.
 */
static int read_bytes(FILE *f, const char *path, void *buf, size_t n, size_t *got)
{
    errno = 0;
    *got = fread(buf, 1, n, f);
    if (*got < n && ferror(f))
        return io_error(path, "read failed");
    return CP_OK;
}

/* Reads a .npy from a stream; when `regular`, `size` is the stream's length and lets a lying
 * header be refused before anything is allocated. */
static int npy_read_stream(FILE *f, const char *path, int regular, uintmax_t size, cp_npy *out)
{
    unsigned char pre[12];
    size_t got, len_bytes, hlen, data_off, itemsize, nbytes;
    char *hdr = NULL;
    cp_npy a;
    int ret;

    memset(&a, 0, sizeof(a));
    ret = read_bytes(f, path, pre, 8, &got);
    if (ret != CP_OK)
        goto out;
    if (got < NPY_MAGIC_LEN || memcmp(pre, npy_magic, NPY_MAGIC_LEN) != 0) {
        ret = cp_err_set(CP_FAIL_USAGE, "%s: not a .npy file (bad magic)", path);
        goto out;
    }
    if (got < 8) {
        ret = cp_err_set(CP_FAIL_USAGE, "%s: truncated header (file ends in the preamble)", path);
        goto out;
    }
    /* 2.0 only widens the header length to 32 bits; 3.0 only allows UTF-8 in the header. */
    if (pre[7] == 0 && pre[6] == 1) {
        len_bytes = 2;
    } else if (pre[7] == 0 && (pre[6] == 2 || pre[6] == 3)) {
        len_bytes = 4;
    } else {
        ret = cp_err_set(CP_FAIL_USAGE, "%s: unsupported format version %u.%u", path,
                         (unsigned)pre[6], (unsigned)pre[7]);
        goto out;
    }
    ret = read_bytes(f, path, pre + 8, len_bytes, &got);
    if (ret != CP_OK)
        goto out;
    if (got < len_bytes) {
        ret = cp_err_set(CP_FAIL_USAGE, "%s: truncated header (file ends in the preamble)", path);
        goto out;
    }
    hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (len_bytes == 4)
        hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    data_off = 8 + len_bytes + hlen;
    if (hlen > NPY_MAX_HEADER) {
        ret = cp_err_set(CP_FAIL_USAGE, "%s: header length %zu is too large", path, hlen);
        goto out;
    }
    if (regular && size < data_off) {
        ret = cp_err_set(CP_FAIL_USAGE,
                         "%s: truncated header: header length %zu but only %ju bytes follow "
                         "the preamble",
                         path, hlen, size > 8 + len_bytes ? size - (8 + len_bytes) : 0);
        goto out;
    }
    hdr = malloc(hlen + 1);
    if (!hdr) {
        ret = cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory", path);
        goto out;
    }
    ret = read_bytes(f, path, hdr, hlen, &got);
    if (ret != CP_OK)
        goto out;
    if (got < hlen) {
        ret = cp_err_set(CP_FAIL_USAGE,
                         "%s: truncated header: header length %zu but only %zu bytes follow "
                         "the preamble",
                         path, hlen, got);
        goto out;
    }
    hdr[hlen] = '\0';

    ret = cp_npy_header_parse(path, hdr, hlen, &a);
    if (ret != CP_OK)
        goto out;
    itemsize = cp_dtype_size(a.dtype);
    if (!shape_count(a.ndim, a.shape, itemsize, &a.count)) {
        ret = cp_err_set(CP_FAIL_USAGE, "%s: shape overflows size_t", path);
        goto out;
    }
    nbytes = a.count * itemsize;
    /* Checked before allocating, so that a lying header cannot ask for terabytes. */
    if (regular) {
        uintmax_t avail = size - data_off;

        if (avail < nbytes) {
            ret = cp_err_set(CP_FAIL_USAGE, "%s: truncated: expected %zu data bytes, found %ju",
                             path, nbytes, avail);
            goto out;
        }
        if (avail > nbytes) {
            ret =
                cp_err_set(CP_FAIL_USAGE, "%s: trailing bytes: expected %zu data bytes, found %ju",
                           path, nbytes, avail);
            goto out;
        }
    }
    /* Never NULL on success, so that callers may memcpy from an empty array. */
    a.data = malloc(nbytes > 0 ? nbytes : 1);
    if (!a.data) {
        ret = cp_err_set(CP_FAIL_RUNTIME, "%s: out of memory for %zu data bytes", path, nbytes);
        goto out;
    }
    ret = read_bytes(f, path, a.data, nbytes, &got);
    if (ret != CP_OK)
        goto out;
    if (got < nbytes) {
        ret = cp_err_set(CP_FAIL_USAGE, "%s: truncated: expected %zu data bytes, found %zu", path,
                         nbytes, got);
        goto out;
    }
    /* A pipe, or a file that grew since fstat(). */
    errno = 0;
    if (fgetc(f) != EOF) {
        ret = cp_err_set(CP_FAIL_USAGE, "%s: trailing bytes: expected %zu data bytes, found more",
                         path, nbytes);
        goto out;
    }
    if (ferror(f)) {
        ret = io_error(path, "read failed");
        goto out;
    }
    if (!host_is_little_endian())
        swap_bytes(a.data, a.count, itemsize);

    *out = a;
    a.data = NULL;
    ret = CP_OK;
out:
    free(a.data);
    free(hdr);
    return ret;
}

int cp_npy_read(const char *path, cp_npy *out)
{
    struct stat st;
    if (!out)
        return cp_err_set(CP_FAIL_USAGE, "cp_npy_read: no output");
    memset(out, 0, sizeof(*out));
    if (!path)
        return cp_err_set(CP_FAIL_USAGE, "cp_npy_read: no path");
    errno = 0;
    mode_t mode;
    FILE *f = cp_fopen_regular(path, &mode); /* a FIFO would block open(), and never end */
    if (!f && mode)
        return cp_err_set(CP_FAIL_USAGE, "%s: not a regular file (%s)", path, cp_file_kind(mode));
    if (!f)
        return cp_err_set(cp_open_status(errno), "%s: cannot open: %s", path, strerror(errno));
    errno = 0;
    int ret;
    if (fstat(fileno(f), &st) != 0)
        ret = io_error(path, "cannot stat");
    else
        ret = npy_read_stream(f, path, 1, (uintmax_t)st.st_size, out);
    fclose(f);
    return ret;
}

int cp_npy_parse(const void *buf, size_t len, const char *name, cp_npy *out)
{
    memset(out, 0, sizeof(*out));
    if (len == 0) /* fmemopen refuses an empty buffer */
        return cp_err_set(CP_FAIL_USAGE, "%s: not a .npy file (bad magic)", name);
    FILE *f = fmemopen((void *)buf, len, "rb");
    if (!f)
        return cp_err_set(CP_FAIL_RUNTIME, "%s: fmemopen failed: %s", name, strerror(errno));
    int ret = npy_read_stream(f, name, 1, (uintmax_t)len, out);
    fclose(f);
    return ret;
}

void cp_npy_free(cp_npy *a)
{
    if (!a)
        return;
    free(a->data);
    memset(a, 0, sizeof(*a));
}
