/* OpenCL platforms and devices as the ICD loader lists them, plus the `host` pseudo-device. */
#ifndef CLPARITY_DEVICE_H
#define CLPARITY_DEVICE_H

#include "clparity/export.h"
#include "clparity/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

CP_API_BEGIN

enum cp_dev_kind { CP_DEV_OPENCL, CP_DEV_HOST };

typedef struct cp_device {
    enum cp_dev_kind kind;
    int plat_idx, dev_idx; /* clinfo's #P and #D; -1 for host */
    cl_platform_id platform_id;
    cl_device_id device_id;
    char platform[256];
    char platform_vendor[256];
    char platform_version[256];
    char name[256];
    char vendor[256];
    char driver[256];
    char version[256];
    char cl_c_version[256];
    char profile[64];
    cl_device_type type;
    cl_uint compute_units;
    cl_uint clock_mhz;
    cl_ulong global_mem;
    cl_ulong max_alloc;
    cl_device_fp_config fp32;
    bool simulator; /* Oclgrind: left out of the default selection */
    /* host only */
    char blas_config[256];
    char blas_core[64];
    int blas_threads;
} cp_device;

typedef struct cp_devlist {
    cp_device *v;
    size_t n;
    /* What is wrong with the OpenCL environment, "" when nothing: "no OpenCL platform found
     * (OCL_ICD_VENDORS=/x: no .icd file there)", an .icd file whose library cannot be loaded
     * (dlerror's text), a platform that reports no device and why (PoCL's cache folder). */
    char env_note[2048];
} cp_devlist;

/* Every device of every platform in clinfo's order, then `host`. No platform at all is not
 * an error: the list then holds only `host`, and env_note says why. A CLPARITY_* variable
 * that runtime/base/env.c's table does not accept is CP_FAIL_USAGE (cp_env_check_all). */
int cp_devlist_enumerate(cp_devlist *out);
void cp_devlist_free(cp_devlist *l);

/* "0:1 NVIDIA H100 80GB HBM3" or "host". */
void cp_device_label(const cp_device *d, char *buf, size_t len);
/* "p0d1" or "host": for file names. */
void cp_device_tag(const cp_device *d, char *buf, size_t len);

/* The fp config as words: "denorm inf-nan rte rtz rti fma correct-sqrt". */
void cp_fp_config_str(cl_device_fp_config c, char *buf, size_t len);
/* The device type bits as words: "CPU", "GPU ACCELERATOR". */
void cp_device_type_str(cl_device_type t, char *buf, size_t len);

/* The `host` row's warning: a generic OpenBLAS core on a CPU with AVX2 or AVX-512. Returns
 * NULL when there is nothing to say. */
const char *cp_host_blas_warning(const cp_device *host);

/* clinfo -l's shape with the properties of DESIGN.md, from one table. These two live in
 * runtime/jobs/device_report.c, above the engines: the host row says how they are set up. */
void cp_devlist_print(const cp_devlist *l, FILE *f);
/* The same table as a cJSON array (returned as void * to keep cJSON out of this header). */
void *cp_devlist_json(const cp_devlist *l);

/* MemAvailable from /proc/meminfo in bytes, or 0 when unknown. */
unsigned long long cp_host_mem_available(void);
/* The host CPU's model name from /proc/cpuinfo. */
void cp_host_cpu_name(char *buf, size_t len);

CP_API_END

#endif
