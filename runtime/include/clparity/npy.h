/* NumPy .npy files (format 1.0): little-endian float32 / float64 / int32 / int64, C order. */
#ifndef CLPARITY_NPY_H
#define CLPARITY_NPY_H

#include "clparity/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

CP_API_BEGIN

enum cp_dtype { CP_F32, CP_F64, CP_I32, CP_I64 };

/* "<f4", "<f8", "<i4", "<i8". */
const char *cp_dtype_descr(enum cp_dtype t);
size_t cp_dtype_size(enum cp_dtype t);

#define CP_NPY_MAX_DIMS 8

typedef struct cp_npy {
    enum cp_dtype dtype;
    int ndim;
    size_t shape[CP_NPY_MAX_DIMS];
    size_t count; /* product of shape */
    void *data;   /* count elements, owned, in host byte order */
} cp_npy;

/* Writes an array atomically: to ".<name>.clparity-tmp.<pid>" beside it, fsync(), then
 * rename(). Returns CP_OK or CP_FAIL_RUNTIME (I/O) with cp_err_msg() naming the path; a bad
 * dtype, rank or shape, or an existing path that clparity did not write (cp_output_check), is
 * CP_FAIL_USAGE. */
int cp_npy_write(const char *path, enum cp_dtype t, int ndim, const size_t *shape,
                 const void *data);

/* Whether the first n bytes of a file of file_size bytes are a header that cp_npy_write writes
 * (byte for byte, for its dtype and shape) and the file's length is that array's: the test of
 * "clparity wrote this .npy" before --out replaces it. The format has no room for a mark, so
 * an array that NumPy's np.save wrote the same way (it writes the same bytes) passes too. */
bool cp_npy_header_is_own(const void *head, size_t n, unsigned long long file_size);

/* Reads a whole .npy file. Malformed input (bad magic, truncated, bad header, Fortran order,
 * an unsupported dtype, a shape that overflows size_t or disagrees with the file size) gives
 * CP_FAIL_USAGE and a message naming the file and the problem; I/O errors CP_FAIL_RUNTIME. */
int cp_npy_read(const char *path, cp_npy *out);
/* The same from memory (the fuzzer's entry point); `name` is used in messages. */
int cp_npy_parse(const void *buf, size_t len, const char *name, cp_npy *out);
void cp_npy_free(cp_npy *a);

CP_API_END

#endif
