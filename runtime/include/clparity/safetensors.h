/* safetensors files: an 8-byte little-endian header length N, N bytes of JSON, then the
 * tensors' raw little-endian bytes. The JSON maps each tensor's name to {"dtype", "shape",
 * "data_offsets": [begin, end]} (offsets into the data, in bytes), plus an optional
 * "__metadata__" object of strings. The header goes through cJSON; every number that
 * becomes a size must be an exact integer below 2^53 (cJSON holds numbers as doubles). */
#ifndef CLPARITY_SAFETENSORS_H
#define CLPARITY_SAFETENSORS_H

#include "clparity/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

CP_API_BEGIN

enum cp_st_dtype {
    CP_ST_BOOL,
    CP_ST_U8,
    CP_ST_I8,
    CP_ST_F8_E5M2,
    CP_ST_F8_E4M3,
    CP_ST_I16,
    CP_ST_U16,
    CP_ST_F16,
    CP_ST_BF16,
    CP_ST_I32,
    CP_ST_U32,
    CP_ST_F32,
    CP_ST_F64,
    CP_ST_I64,
    CP_ST_U64,
};

/* "F32", ...; the size of one element in bytes. */
const char *cp_st_dtype_name(enum cp_st_dtype t);
size_t cp_st_dtype_size(enum cp_st_dtype t);

#define CP_ST_MAX_DIMS 8
/* The largest header accepted, as in the reference implementation (100 MB). */
#define CP_ST_MAX_HEADER 100000000u

typedef struct cp_st_tensor {
    char *name;
    enum cp_st_dtype dtype;
    int ndim;
    size_t shape[CP_ST_MAX_DIMS];
    size_t count;      /* product of shape */
    size_t begin, end; /* byte offsets into the data section */
} cp_st_tensor;

typedef struct cp_st_file {
    char *name;                /* the path, for messages */
    unsigned char *owned;      /* the whole file when read by cp_st_read */
    const unsigned char *data; /* the data section */
    size_t data_size;
    size_t file_size;
    cp_st_tensor *t; /* in the header's order */
    size_t n;
    char *arch; /* __metadata__["clparity.arch"], or NULL */
} cp_st_file;

/* Parses a whole file held in memory (not copied: buf must outlive f). `name` is used in
 * messages. Malformed input gives CP_FAIL_USAGE and a message "NAME: problem"; out of
 * memory CP_FAIL_RUNTIME. Checked: truncation, a header length beyond the file, bad JSON,
 * an unknown dtype, a shape or offsets that are not exact non-negative integers below 2^53,
 * a rank above CP_ST_MAX_DIMS, dimensions whose product overflows size_t, offsets out of
 * range or overlapping, a gap or trailing bytes in the data, a mismatch between shape and
 * size, duplicate names, and metadata that is not an object of strings. */
int cp_st_parse(const void *buf, size_t size, const char *name, cp_st_file *f);

/* Reads and parses a file; I/O errors are CP_FAIL_RUNTIME. */
int cp_st_read(const char *path, cp_st_file *f);

const cp_st_tensor *cp_st_find(const cp_st_file *f, const char *name);

/* Copies a float32 tensor into dst (count floats, host byte order). A tensor of another
 * dtype is CP_FAIL_USAGE: "NAME: tensor 'x' is F16, where F32 is needed". */
int cp_st_get_f32(const cp_st_file *f, const cp_st_tensor *t, float *dst);

void cp_st_free(cp_st_file *f);

CP_API_END

#endif
