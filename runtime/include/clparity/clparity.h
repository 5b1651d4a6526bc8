/* libclparity: everything a program needs to run a model on every OpenCL device and the host,
 * and to compare the results (docs/LIBRARY.md). */
#ifndef CLPARITY_CLPARITY_H
#define CLPARITY_CLPARITY_H

#include "clparity/compare.h"
#include "clparity/device.h"
#include "clparity/engine.h"
#include "clparity/env.h"
#include "clparity/error.h"
#include "clparity/format.h"
#include "clparity/job.h"
#include "clparity/metrics.h"
#include "clparity/model.h"
#include "clparity/npy.h"
#include "clparity/report.h"
#include "clparity/safetensors.h"
#include "clparity/select.h"

#endif
