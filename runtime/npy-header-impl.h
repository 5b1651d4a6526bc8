/* Private: the .npy header's parser (npy_header.c), which the reader (npy.c) calls, and the
 * byte order that both read by. */
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

/* The header's dict (its len bytes at hdr, of the file path): a's dtype, ndim and shape, or
 * CP_FAIL_USAGE with the header's fault named. */
int cp_npy_header_parse(const char *path, const char *hdr, size_t len, cp_npy *a);

#endif
