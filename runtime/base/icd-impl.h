/* Why OpenCL shows less than the machine has: the ICD files the loader skipped and PoCL's
 * cache folder. Internal to the library: device.c fills cp_devlist.env_note from these. */
#ifndef CLPARITY_ICD_IMPL_H
#define CLPARITY_ICD_IMPL_H

#include <stdbool.h>
#include <stddef.h>

/* Appends "; " and the formatted text to buf (or just the text when buf is empty). */
void cp_note_add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Reads the .icd files the ICD loader reads (OCL_ICD_FILENAMES, OCL_ICD_VENDORS as a folder,
 * an .icd file or a library, else OPENCL_VENDOR_PATH or /etc/OpenCL/vendors) and opens each
 * library the way the loader does. Adds to buf every problem found: no .icd file, an .icd file
 * that cannot be read or names a library that cannot be loaded (with dlerror's text) or that
 * is no ICD. With none_found (the loader gave no platform) and no problem found, says so. */
void cp_icd_check(char *buf, size_t len, bool none_found);

/* Whether PoCL cannot create its cache folder (POCL_CACHE_DIR, else XDG_CACHE_HOME/pocl/kcache,
 * else ~/.cache/pocl/kcache): PoCL then exposes no device. On true, why says what and how to
 * fix it. Nothing is created. */
bool cp_pocl_cache_problem(char *why, size_t len);

#endif
