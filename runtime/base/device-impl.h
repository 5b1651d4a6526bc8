/* Private: the table of device properties that device.c queries and device_report.c prints. */
#ifndef CLPARITY_DEVICE_IMPL_H
#define CLPARITY_DEVICE_IMPL_H

#include "clparity/device.h"

#include <stddef.h>

/* One table drives the queries, the text output and the JSON output (clinfo's way). */
enum prop_kind { P_STR, P_TYPE, P_UINT, P_MHZ, P_BYTES, P_FP };

struct prop {
    cl_device_info param;
    const char *key;   /* JSON key */
    const char *label; /* text label */
    enum prop_kind kind;
    size_t off;
    size_t size;
};

extern const struct prop dev_props[];
extern const size_t dev_props_n;

#endif
