/* How adam and adamw divide and take square roots on an OpenCL device (clparity/train.h):
 * CLPARITY_TRAIN_DIVSQRT, the device's own correctly rounded ones, double or float, and
 * train.cl's build options of each way (which clparity ulp builds too). */
#include "clparity/env.h"
#include "clparity/train.h"

#include "engine-impl.h"
#include "train-impl.h"

#include "clparity/error.h"

#include <stdio.h>
#include <string.h>

/* Whether dev has double precision that divides and takes square roots correctly rounded:
 * cl_khr_fp64 on a full-profile device (the embedded profile allows 3 ULP). */
static bool fp64_full(const cp_device *dev)
{
    cl_device_fp_config fp64 = 0;
    if (clGetDeviceInfo(dev->device_id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) !=
        CL_SUCCESS)
        fp64 = 0; /* a device without cl_khr_fp64 may answer with an error */
    return fp64 && strcmp(dev->profile, "FULL_PROFILE") == 0;
}

/* The report's names of the ways, in enum train_divsqrt's order. */
static const char *const way_names[] = {"device (-cl-fp32-correctly-rounded-divide-sqrt)", "double",
                                        "float (fma correction)"};

const char *train_divsqrt_name(enum train_divsqrt way)
{
    return way_names[way];
}

int cp_train_divsqrt_env(int *way)
{
    /* runtime/base/env.c's table lists CP_TRAIN_DIVSQRT_CHOICES: its index is the way's */
    return cp_env_word("CLPARITY_TRAIN_DIVSQRT", way);
}

/* The way adam and adamw divide and take square roots on dev: CLPARITY_TRAIN_DIVSQRT's where
 * set (refused where the device cannot take it), else the device's own correctly rounded ones,
 * else double, else float. */
int train_divsqrt_way(const cp_device *dev, enum train_divsqrt *way)
{
    int forced;
    int st = cp_train_divsqrt_env(&forced);
    if (st != CP_OK)
        return st;
    bool cr = (dev->fp32 & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0, f64 = fp64_full(dev);
    if (forced == TRAIN_DIVSQRT_DEVICE && !cr)
        return cp_err_set(CP_FAIL_USAGE,
                          "CLPARITY_TRAIN_DIVSQRT=device: this device does not report "
                          "CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT (correct-div-sqrt in 'clparity "
                          "devices'); double or float can");
    if (forced == TRAIN_DIVSQRT_DOUBLE && !f64)
        return cp_err_set(CP_FAIL_USAGE,
                          "CLPARITY_TRAIN_DIVSQRT=double: this device has no double precision "
                          "with correctly rounded / and sqrt (cl_khr_fp64 on a full-profile "
                          "device); float can");
    *way = forced >= 0 ? (enum train_divsqrt)forced
           : cr        ? TRAIN_DIVSQRT_DEVICE
           : f64       ? TRAIN_DIVSQRT_DOUBLE
                       : TRAIN_DIVSQRT_FLOAT;
    return CP_OK;
}

void train_divsqrt_options(enum train_divsqrt way, char *buf, size_t len)
{
    switch (way) {
    case TRAIN_DIVSQRT_DEVICE:
        snprintf(buf, len, " -cl-fp32-correctly-rounded-divide-sqrt");
        return;
    case TRAIN_DIVSQRT_DOUBLE:
        snprintf(buf, len, " -DTR_DIVSQRT_DOUBLE");
        return;
    case TRAIN_DIVSQRT_FLOAT:
        snprintf(buf, len, " -DTR_DIVSQRT_FLOAT%s",
                 cp_test_hook("divsqrt-no-correction")
                     ? " -DCP_DIVSQRT_SKEW -DCP_DIVSQRT_NO_CORRECTION"
                 : cp_test_hook("divsqrt-skew") ? " -DCP_DIVSQRT_SKEW"
                                                : "");
        return;
    }
    snprintf(buf, len, "%s", "");
}

bool train_divides(const cp_optim *o)
{
    return o->kind == CP_OPTIM_ADAM || o->kind == CP_OPTIM_ADAMW;
}

int cp_train_check_device(const cp_device *dev, const cp_optim *o)
{
    if (dev->kind != CP_DEV_OPENCL || !train_divides(o))
        return CP_OK;
    enum train_divsqrt way = TRAIN_DIVSQRT_DEVICE;
    return train_divsqrt_way(dev, &way);
}
