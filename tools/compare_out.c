/* clparity compare's output that one machine (tools/cmd_compare.c) and --mpi
 * (tools/compare_mpi.c) share: the devices' FP lines and compare's keys in --json. Both call
 * it; it calls neither (issue 33: cmd_compare.c and compare_mpi.c called each other). */
#include "compare_cli.h"

#include "run_job.h"

#include "clparity/compare.h"

#include <cjson/cJSON.h>
#include <stdio.h>

void compare_print_devices(FILE *f, const struct job *j, const char *prefix)
{
    const cp_devlist *devs = cp_job_devices(j->cj);
    for (size_t i = 0; i < devs->n; ++i) {
        const cp_device *d = &devs->v[i];
        if (!cp_job_device_selected(j->cj, i) || d->kind != CP_DEV_OPENCL)
            continue;
        char fp[256];
        cp_fp_config_str(d->fp32, fp, sizeof fp);
        fprintf(f, "%sdevice %d:%d %s (%s, driver %s): %s, fp32: %s%s\n", prefix, d->plat_idx,
                d->dev_idx, d->name, d->platform, d->driver, d->profile, fp,
                cp_device_exact_capable(d) ? "" : "  ! exactness not guaranteed");
    }
}

bool compare_add_json(void *root, const struct job *j, void *ctx)
{
    cJSON *cj = cp_comparison_json(ctx);
    if (!cj)
        return false;
    cJSON_AddStringToObject(root, "expect",
                            j->o.expect < 0 ? "none" : cp_preset_name((enum cp_preset)j->o.expect));
    cJSON_AddBoolToObject(root, "equal_nan", j->o.equal_nan);
    cp_json_add(root, "comparison", cj);
    return true;
}
