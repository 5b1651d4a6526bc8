/* Status codes, error messages and the names of OpenCL and CLBlast codes. */
#ifndef CLPARITY_ERROR_H
#define CLPARITY_ERROR_H

/* The build defines these too; OpenCL 1.2 entry points are used on purpose, since many
 * platforms (PoCL 3, Oclgrind) are 1.2 devices. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include "clparity/export.h"
#include <CL/cl.h>

CP_API_BEGIN

/* The exit statuses of DESIGN.md: every library call returns one of them. */
enum cp_status {
    CP_OK = 0,
    CP_FAIL_CHECK = 1,   /* a check failed: --expect, divergence, non-finite loss */
    CP_FAIL_USAGE = 2,   /* bad option or value, bad file, model too large */
    CP_FAIL_RUNTIME = 3, /* an OpenCL call, an allocation or I/O failed */
};

/* The symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), including the
 * extension codes such as CL_PLATFORM_NOT_FOUND_KHR. Unknown codes give
 * "CL_UNKNOWN_ERROR". Never NULL. */
const char *cp_cl_error_name(cl_int code);

/* The name of a CLBlast status code (CLBlastStatusCode), e.g. "CLBlastInvalidLocalMemUsage";
 * codes that CLBlast shares with OpenCL give CLBlast's enumerator ("CLBlastInvalidValue").
 * Unknown codes give "CLBlastUnknownStatus". */
const char *cp_clblast_status_name(int status);

/* The last error message of this thread; "" when none. */
const char *cp_err_msg(void);

/* Records a message for cp_err_msg() and returns status, so that callers can write
 * `return cp_err_set(CP_FAIL_USAGE, "...")`. */
int cp_err_set(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records "<call> failed: <NAME> (<code>)" and returns CP_FAIL_RUNTIME. */
int cp_err_cl(cl_int code, const char *call);

/* The compiler's log of the last failed kernel build on this thread ("" when none), to be
 * printed after the message that names the failure. */
const char *cp_program_log(void);

CP_API_END

#endif
