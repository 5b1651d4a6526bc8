/* Private: the .npy header (npy_header.c): its format as the writer (npy.c) writes it, the
 * check of owned.c that a file is one that the writer wrote, its parser, which the reader
 * (npy.c) calls, and the byte order that both read by. */
#ifndef CLPARITY_NPY_HEADER_IMPL_H
#define CLPARITY_NPY_HEADER_IMPL_H

#include "clparity/npy.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The file is little-endian; cp_npy data is in host order. A constant on every compiler. */
static inline int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;

    memcpy(&first, &one, 1);
    return first == 1;
}

enum {
    NPY_MAGIC_LEN = 6,
    NPY_ALIGN = 64,           /* numpy's ARRAY_ALIGN: the data starts on a 64-byte boundary */
    NPY_GROWTH_DIGITS = 21,   /* numpy's GROWTH_AXIS_MAX_DIGITS, see npy_format_header() */
    NPY_HEADER_CAP = 1024,    /* far above the ~350 bytes of an 8-d header with 20-digit dims */
    NPY_MAX_HEADER = 1 << 20, /* a version 2.0 header may claim 4 GiB; nothing real is this big */
    NPY_SWAP_CHUNK = 4096,
};

static const unsigned char npy_magic[NPY_MAGIC_LEN] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/*
 * The number of elements of a shape. Fails when the product of the non-zero dimensions times
 * the item size overflows size_t, even if another dimension is 0: numpy refuses such shapes
 * too, and code computing strides from the other dimensions would overflow on them.
 */
static inline int shape_count(int ndim, const size_t *shape, size_t itemsize, size_t *count)
{
    size_t n = 1, bytes = itemsize;
    int zero = 0;

    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0) {
            zero = 1;
            continue;
        }
        if (bytes > SIZE_MAX / shape[i])
            return 0;
        bytes *= shape[i];
        n *= shape[i]; /* no overflow: n <= bytes */
    }
    *count = zero ? 0 : n;
    return 1;
}

/* The preamble and header that numpy's np.save() writes for an array of t of this shape
 * (npy_header.c): its length, 0 where buf is too small. */
size_t npy_format_header(char *buf, size_t cap, enum cp_dtype t, int ndim, const size_t *shape);

/* The header's dict (its len bytes at hdr, of the file path): a's dtype, ndim and shape, or
 * CP_FAIL_USAGE with the header's fault named. */
int cp_npy_header_parse(const char *path, const char *hdr, size_t len, cp_npy *a);

#endif
