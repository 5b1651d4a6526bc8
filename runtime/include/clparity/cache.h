/* The on-disk program-binary cache (DESIGN.md, Performance habits): where it lives, whether it
 * is on, its size cap, and the listing and clearing behind `clparity cache`. The lookups and
 * stores themselves are private to the runtime (cache-impl.h). */
#ifndef CLPARITY_CACHE_H
#define CLPARITY_CACHE_H

#include "clparity/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

CP_API_BEGIN

/* What the cache did for one program build. */
enum cp_cache_state {
    CP_CACHE_NONE = 0, /* no OpenCL program was built (host engines) */
    CP_CACHE_OFF,      /* CLPARITY_CACHE=off (or 0, no, false): not consulted */
    CP_CACHE_MISS,     /* built from source: no entry, a bad one, or the driver refused it */
    CP_CACHE_HIT,      /* created from the cached binary */
};

/* "off", "miss", "hit"; NULL for CP_CACHE_NONE. */
const char *cp_cache_state_name(enum cp_cache_state s);

/* False when CLPARITY_CACHE is "off", "0", "no" or "false" (any case). */
bool cp_cache_enabled(void);

/* $XDG_CACHE_HOME/clparity, or $HOME/.cache/clparity when XDG_CACHE_HOME is unset or empty.
 * CP_FAIL_USAGE when neither variable is set, CP_FAIL_RUNTIME when the path does not fit. */
int cp_cache_dir(char *buf, size_t len);

/* The size cap in bytes: CLPARITY_CACHE_MAX_MB (MiB, fractions allowed, 0 stores nothing), or
 * 256 MiB. An unparsable or negative value gives the default, and a false *valid. */
unsigned long long cp_cache_max_bytes(bool *valid);

/* One file of the cache folder. Fields that the header does not give are "". */
typedef struct cp_cache_entry {
    char file[80];            /* "<sha256 of the key>.bin" */
    unsigned long long bytes; /* the file's size */
    time_t mtime;             /* last stored or hit */
    bool valid;               /* header, key hash, length and payload checksum all agree */
    char problem[96];         /* why not valid */
    char kernel[64];          /* "block.cl" */
    char options[256];
    char device[256];
    char vendor[256];
    char driver[256];
    char platform[256];
    char platform_version[256];
    char source_sha256[65];
} cp_cache_entry;

typedef struct cp_cache_listing {
    cp_cache_entry *v;
    size_t n;
    unsigned long long bytes; /* the sum of v[].bytes */
} cp_cache_listing;

/* Every entry of dir (clparity's names only: <64 hex digits>.bin), newest first. A missing
 * folder is an empty listing, not an error. Each file is read to check its checksum. */
int cp_cache_list(const char *dir, cp_cache_listing *out);
void cp_cache_listing_free(cp_cache_listing *l);

/* Removes clparity's entries from dir (and the temporary files of interrupted writes), and
 * nothing else. A missing folder removes nothing. */
int cp_cache_clear(const char *dir, size_t *removed, unsigned long long *bytes);

/* Whether a new entry could be written in dir now; on false, why holds the reason. */
bool cp_cache_writable(const char *dir, char *why, size_t len);

CP_API_END

#endif
