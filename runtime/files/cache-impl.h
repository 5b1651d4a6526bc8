/* Private: lookups and stores of the program-binary cache.
 *
 * A file <dir>/<hex>.bin, where <hex> is the SHA-256 of the key, holds (little-endian):
 *
 *   offset  size  field
 *        0     8  magic "CLPCACHE"
 *        8     4  format version (CP_CACHE_FORMAT)
 *       12     4  K, the key's length
 *       16    32  SHA-256 of the key
 *       48     8  N, the payload's length
 *       56    32  SHA-256 of the payload
 *       88     K  the key: its fields, each a 4-byte length and the bytes
 *     88+K     N  the payload: the program binary of CL_PROGRAM_BINARIES for one device
 *
 * The file must be exactly 88 + K + N bytes. Anything that does not agree (size, magic,
 * version, key, either checksum) is a miss, and the entry is rewritten after the build. */
#ifndef CLPARITY_CACHE_IMPL_H
#define CLPARITY_CACHE_IMPL_H

#include "clparity/cache.h"
#include "clparity/error.h"

#include <stddef.h>

#define CP_CACHE_FORMAT 1u
#define CP_CACHE_HEADER 88u

/* The fields of a key, in the order they are hashed. */
struct cp_cache_fields {
    const char *kernel; /* "block.cl" */
    unsigned char source_sha256[32];
    const char *options;
    const char *device, *vendor, *device_version, *driver, *platform, *platform_version;
};

struct cp_cache_key {
    unsigned char *bytes; /* the serialised fields */
    size_t len;
    unsigned char sha256[32];
    char file[80]; /* "<hex>.bin" */
};

/* Serialises and hashes the fields. CP_FAIL_RUNTIME when out of memory. */
int cp_cache_key_init(struct cp_cache_key *k, const struct cp_cache_fields *f);
/* The key of one build: the source's SHA-256, the options, and the device's and platform's
 * strings queried from dev. On failure why names the OpenCL call. */
int cp_cache_key_for(struct cp_cache_key *k, cl_device_id dev, const char *kernel,
                     const void *source, size_t source_len, const char *options, char *why,
                     size_t why_len);
void cp_cache_key_free(struct cp_cache_key *k);

/* Reads the entry of key k. Returns true with a malloc'd payload when the file exists and
 * every check passes, and marks it recently used; false otherwise, with the reason in why
 * ("no entry", "truncated", "payload checksum mismatch", ...). */
bool cp_cache_load(const struct cp_cache_key *k, unsigned char **payload, size_t *len, char *why,
                   size_t why_len);

/* Writes the entry of key k atomically, first evicting the least recently used entries as
 * far as the size cap needs. Returns false with the reason in why when nothing was stored
 * (an unwritable folder, an entry larger than the cap). Never fatal: the caller has its
 * program either way. */
bool cp_cache_store(const struct cp_cache_key *k, const void *payload, size_t len, char *why,
                    size_t why_len);

/* The SHA-256 of data; false only when OpenSSL fails. */
bool cp_sha256(const void *data, size_t len, unsigned char out[32]);

/* mkdir -p with mode 0700; false with the reason in why. */
bool cp_cache_make_dirs(const char *dir, char *why, size_t why_len);

#endif
