/* Status codes, per-thread error messages and the names of OpenCL and CLBlast codes. */
#include "clparity/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <CL/cl_egl.h>
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>
#include <clblast_c.h>

/*
 * cl_d3d10.h, cl_d3d11.h and cl_dx9_media_sharing.h need the Windows Direct3D headers and
 * cl_va_api_media_sharing_intel.h needs <va/va.h>, so they cannot be included here; their
 * codes appear below as numeric case labels carrying the Khronos names.
 */

const char *cp_cl_error_name(cl_int code)
{
    switch (code) {
    case CL_SUCCESS:
        return "CL_SUCCESS";

    /*
     * cl.h. CL_BUILD_NONE/ERROR/IN_PROGRESS (-1..-3) and CL_PARTITION_BY_NAMES_LIST_END_INTEL
     * (-1) share values with the first codes but are build statuses and a list terminator,
     * never returned as errors, so the error names win.
     */
    case CL_DEVICE_NOT_FOUND:
        return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE:
        return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE:
        return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
        return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
        return "CL_OUT_OF_HOST_MEMORY";
    case CL_PROFILING_INFO_NOT_AVAILABLE:
        return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_MEM_COPY_OVERLAP:
        return "CL_MEM_COPY_OVERLAP";
    case CL_IMAGE_FORMAT_MISMATCH:
        return "CL_IMAGE_FORMAT_MISMATCH";
    case CL_IMAGE_FORMAT_NOT_SUPPORTED:
        return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
    case CL_BUILD_PROGRAM_FAILURE:
        return "CL_BUILD_PROGRAM_FAILURE";
    case CL_MAP_FAILURE:
        return "CL_MAP_FAILURE";
    case CL_MISALIGNED_SUB_BUFFER_OFFSET:
        return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
        return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case CL_COMPILE_PROGRAM_FAILURE:
        return "CL_COMPILE_PROGRAM_FAILURE";
    case CL_LINKER_NOT_AVAILABLE:
        return "CL_LINKER_NOT_AVAILABLE";
    case CL_LINK_PROGRAM_FAILURE:
        return "CL_LINK_PROGRAM_FAILURE";
    case CL_DEVICE_PARTITION_FAILED:
        return "CL_DEVICE_PARTITION_FAILED";
    case CL_KERNEL_ARG_INFO_NOT_AVAILABLE:
        return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
    case CL_INVALID_VALUE:
        return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE_TYPE:
        return "CL_INVALID_DEVICE_TYPE";
    case CL_INVALID_PLATFORM:
        return "CL_INVALID_PLATFORM";
    case CL_INVALID_DEVICE:
        return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT:
        return "CL_INVALID_CONTEXT";
    case CL_INVALID_QUEUE_PROPERTIES:
        return "CL_INVALID_QUEUE_PROPERTIES";
    case CL_INVALID_COMMAND_QUEUE:
        return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_HOST_PTR:
        return "CL_INVALID_HOST_PTR";
    case CL_INVALID_MEM_OBJECT:
        return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_IMAGE_FORMAT_DESCRIPTOR:
        return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
    case CL_INVALID_IMAGE_SIZE:
        return "CL_INVALID_IMAGE_SIZE";
    case CL_INVALID_SAMPLER:
        return "CL_INVALID_SAMPLER";
    case CL_INVALID_BINARY:
        return "CL_INVALID_BINARY";
    case CL_INVALID_BUILD_OPTIONS:
        return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_PROGRAM:
        return "CL_INVALID_PROGRAM";
    case CL_INVALID_PROGRAM_EXECUTABLE:
        return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME:
        return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_DEFINITION:
        return "CL_INVALID_KERNEL_DEFINITION";
    case CL_INVALID_KERNEL:
        return "CL_INVALID_KERNEL";
    case CL_INVALID_ARG_INDEX:
        return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_VALUE:
        return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_ARG_SIZE:
        return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_KERNEL_ARGS:
        return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_DIMENSION:
        return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE:
        return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE:
        return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_OFFSET:
        return "CL_INVALID_GLOBAL_OFFSET";
    case CL_INVALID_EVENT_WAIT_LIST:
        return "CL_INVALID_EVENT_WAIT_LIST";
    case CL_INVALID_EVENT:
        return "CL_INVALID_EVENT";
    case CL_INVALID_OPERATION:
        return "CL_INVALID_OPERATION";
    case CL_INVALID_GL_OBJECT:
        return "CL_INVALID_GL_OBJECT";
    case CL_INVALID_BUFFER_SIZE:
        return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_MIP_LEVEL:
        return "CL_INVALID_MIP_LEVEL";
    case CL_INVALID_GLOBAL_WORK_SIZE:
        return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_PROPERTY:
        return "CL_INVALID_PROPERTY";
    case CL_INVALID_IMAGE_DESCRIPTOR:
        return "CL_INVALID_IMAGE_DESCRIPTOR";
    case CL_INVALID_COMPILER_OPTIONS:
        return "CL_INVALID_COMPILER_OPTIONS";
    case CL_INVALID_LINKER_OPTIONS:
        return "CL_INVALID_LINKER_OPTIONS";
    case CL_INVALID_DEVICE_PARTITION_COUNT:
        return "CL_INVALID_DEVICE_PARTITION_COUNT";
    case CL_INVALID_PIPE_SIZE:
        return "CL_INVALID_PIPE_SIZE";
    case CL_INVALID_DEVICE_QUEUE:
        return "CL_INVALID_DEVICE_QUEUE";
    case CL_INVALID_SPEC_ID:
        return "CL_INVALID_SPEC_ID";
    case CL_MAX_SIZE_RESTRICTION_EXCEEDED:
        return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";

    /* cl_gl.h, cl_ext.h */
    case CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR:
        return "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR";
    case CL_PLATFORM_NOT_FOUND_KHR:
        return "CL_PLATFORM_NOT_FOUND_KHR";

    /* cl_d3d10.h (not includable here) */
    case -1002:
        return "CL_INVALID_D3D10_DEVICE_KHR";
    case -1003:
        return "CL_INVALID_D3D10_RESOURCE_KHR";
    case -1004:
        return "CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR";
    case -1005:
        return "CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR";

    /* cl_d3d11.h (not includable here) */
    case -1006:
        return "CL_INVALID_D3D11_DEVICE_KHR";
    case -1007:
        return "CL_INVALID_D3D11_RESOURCE_KHR";
    case -1008:
        return "CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR";
    case -1009:
        return "CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR";

    /*
     * cl_dx9_media_sharing.h (not includable here): cl_khr_dx9_media_sharing and
     * cl_intel_dx9_media_sharing define the same four values, so both names are given.
     */
    case -1010:
        return "CL_INVALID_DX9_MEDIA_ADAPTER_KHR/CL_INVALID_DX9_DEVICE_INTEL";
    case -1011:
        return "CL_INVALID_DX9_MEDIA_SURFACE_KHR/CL_INVALID_DX9_RESOURCE_INTEL";
    case -1012:
        return "CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR/CL_DX9_RESOURCE_ALREADY_ACQUIRED_INTEL";
    case -1013:
        return "CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR/CL_DX9_RESOURCE_NOT_ACQUIRED_INTEL";

    /* cl_ext.h: cl_ext_device_fission */
    case CL_DEVICE_PARTITION_FAILED_EXT:
        return "CL_DEVICE_PARTITION_FAILED_EXT";
    case CL_INVALID_PARTITION_COUNT_EXT:
        return "CL_INVALID_PARTITION_COUNT_EXT";
    case CL_INVALID_PARTITION_NAME_EXT:
        return "CL_INVALID_PARTITION_NAME_EXT";

    /* cl_egl.h */
    case CL_EGL_RESOURCE_NOT_ACQUIRED_KHR:
        return "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR";
    case CL_INVALID_EGL_OBJECT_KHR:
        return "CL_INVALID_EGL_OBJECT_KHR";

    /* cl_ext.h: cl_intel_accelerator */
    case CL_INVALID_ACCELERATOR_INTEL:
        return "CL_INVALID_ACCELERATOR_INTEL";
    case CL_INVALID_ACCELERATOR_TYPE_INTEL:
        return "CL_INVALID_ACCELERATOR_TYPE_INTEL";
    case CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL:
        return "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL";
    case CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL:
        return "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL";

    /* cl_va_api_media_sharing_intel.h (not includable here: needs <va/va.h>) */
    case -1098:
        return "CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL";
    case -1099:
        return "CL_INVALID_VA_API_MEDIA_SURFACE_INTEL";
    case -1100:
        return "CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL";
    case -1101:
        return "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL";

    /* cl_ext.h: the remaining vendor and KHR extensions */
    case CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM:
        return "CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM";
    case CL_CONTEXT_TERMINATED_KHR:
        return "CL_CONTEXT_TERMINATED_KHR";
    case CL_INVALID_COMMAND_BUFFER_KHR:
        return "CL_INVALID_COMMAND_BUFFER_KHR";
    case CL_INVALID_SYNC_POINT_WAIT_LIST_KHR:
        return "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR";
    case CL_INCOMPATIBLE_COMMAND_QUEUE_KHR:
        return "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR";
    case CL_INVALID_MUTABLE_COMMAND_KHR:
        return "CL_INVALID_MUTABLE_COMMAND_KHR";
    case CL_INVALID_SEMAPHORE_KHR:
        return "CL_INVALID_SEMAPHORE_KHR";
    }
    return "CL_UNKNOWN_ERROR";
}

const char *cp_clblast_status_name(int status)
{
    /*
     * Switch on the enum type with no default label so that -Wswitch reports any enumerator
     * a newer clblast_c.h adds. Values shared with OpenCL get the CLBlast enumerator names,
     * which say what CLBlast meant (e.g. CLBlastInvalidLocalThreadsTotal rather than
     * CL_INVALID_WORK_GROUP_SIZE); cp_cl_error_name() gives the OpenCL ones.
     */
    CLBlastStatusCode s = (CLBlastStatusCode)status;

    switch (s) {
    case CLBlastSuccess:
        return "CLBlastSuccess";
    case CLBlastOpenCLCompilerNotAvailable:
        return "CLBlastOpenCLCompilerNotAvailable";
    case CLBlastTempBufferAllocFailure:
        return "CLBlastTempBufferAllocFailure";
    case CLBlastOpenCLOutOfResources:
        return "CLBlastOpenCLOutOfResources";
    case CLBlastOpenCLOutOfHostMemory:
        return "CLBlastOpenCLOutOfHostMemory";
    case CLBlastOpenCLBuildProgramFailure:
        return "CLBlastOpenCLBuildProgramFailure";
    case CLBlastInvalidValue:
        return "CLBlastInvalidValue";
    case CLBlastInvalidCommandQueue:
        return "CLBlastInvalidCommandQueue";
    case CLBlastInvalidMemObject:
        return "CLBlastInvalidMemObject";
    case CLBlastInvalidBinary:
        return "CLBlastInvalidBinary";
    case CLBlastInvalidBuildOptions:
        return "CLBlastInvalidBuildOptions";
    case CLBlastInvalidProgram:
        return "CLBlastInvalidProgram";
    case CLBlastInvalidProgramExecutable:
        return "CLBlastInvalidProgramExecutable";
    case CLBlastInvalidKernelName:
        return "CLBlastInvalidKernelName";
    case CLBlastInvalidKernelDefinition:
        return "CLBlastInvalidKernelDefinition";
    case CLBlastInvalidKernel:
        return "CLBlastInvalidKernel";
    case CLBlastInvalidArgIndex:
        return "CLBlastInvalidArgIndex";
    case CLBlastInvalidArgValue:
        return "CLBlastInvalidArgValue";
    case CLBlastInvalidArgSize:
        return "CLBlastInvalidArgSize";
    case CLBlastInvalidKernelArgs:
        return "CLBlastInvalidKernelArgs";
    case CLBlastInvalidLocalNumDimensions:
        return "CLBlastInvalidLocalNumDimensions";
    case CLBlastInvalidLocalThreadsTotal:
        return "CLBlastInvalidLocalThreadsTotal";
    case CLBlastInvalidLocalThreadsDim:
        return "CLBlastInvalidLocalThreadsDim";
    case CLBlastInvalidGlobalOffset:
        return "CLBlastInvalidGlobalOffset";
    case CLBlastInvalidEventWaitList:
        return "CLBlastInvalidEventWaitList";
    case CLBlastInvalidEvent:
        return "CLBlastInvalidEvent";
    case CLBlastInvalidOperation:
        return "CLBlastInvalidOperation";
    case CLBlastInvalidBufferSize:
        return "CLBlastInvalidBufferSize";
    case CLBlastInvalidGlobalWorkSize:
        return "CLBlastInvalidGlobalWorkSize";
    case CLBlastNotImplemented:
        return "CLBlastNotImplemented";
    case CLBlastInvalidMatrixA:
        return "CLBlastInvalidMatrixA";
    case CLBlastInvalidMatrixB:
        return "CLBlastInvalidMatrixB";
    case CLBlastInvalidMatrixC:
        return "CLBlastInvalidMatrixC";
    case CLBlastInvalidVectorX:
        return "CLBlastInvalidVectorX";
    case CLBlastInvalidVectorY:
        return "CLBlastInvalidVectorY";
    case CLBlastInvalidDimension:
        return "CLBlastInvalidDimension";
    case CLBlastInvalidLeadDimA:
        return "CLBlastInvalidLeadDimA";
    case CLBlastInvalidLeadDimB:
        return "CLBlastInvalidLeadDimB";
    case CLBlastInvalidLeadDimC:
        return "CLBlastInvalidLeadDimC";
    case CLBlastInvalidIncrementX:
        return "CLBlastInvalidIncrementX";
    case CLBlastInvalidIncrementY:
        return "CLBlastInvalidIncrementY";
    case CLBlastInsufficientMemoryA:
        return "CLBlastInsufficientMemoryA";
    case CLBlastInsufficientMemoryB:
        return "CLBlastInsufficientMemoryB";
    case CLBlastInsufficientMemoryC:
        return "CLBlastInsufficientMemoryC";
    case CLBlastInsufficientMemoryX:
        return "CLBlastInsufficientMemoryX";
    case CLBlastInsufficientMemoryY:
        return "CLBlastInsufficientMemoryY";
    case CLBlastInsufficientMemoryTemp:
        return "CLBlastInsufficientMemoryTemp";
    case CLBlastInvalidBatchCount:
        return "CLBlastInvalidBatchCount";
    case CLBlastInvalidOverrideKernel:
        return "CLBlastInvalidOverrideKernel";
    case CLBlastMissingOverrideParameter:
        return "CLBlastMissingOverrideParameter";
    case CLBlastInvalidLocalMemUsage:
        return "CLBlastInvalidLocalMemUsage";
    case CLBlastNoHalfPrecision:
        return "CLBlastNoHalfPrecision";
    case CLBlastNoDoublePrecision:
        return "CLBlastNoDoublePrecision";
    case CLBlastInvalidVectorScalar:
        return "CLBlastInvalidVectorScalar";
    case CLBlastInsufficientMemoryScalar:
        return "CLBlastInsufficientMemoryScalar";
    case CLBlastDatabaseError:
        return "CLBlastDatabaseError";
    case CLBlastUnknownError:
        return "CLBlastUnknownError";
    case CLBlastUnexpectedError:
        return "CLBlastUnexpectedError";
    }
    return "CLBlastUnknownStatus";
}

#define CP_ERR_MSG_SIZE 1024

static _Thread_local char cp_err_buf[CP_ERR_MSG_SIZE];

const char *cp_err_msg(void)
{
    return cp_err_buf;
}

int cp_err_set(int status, const char *fmt, ...)
{
    /*
     * Format into a scratch buffer first: callers may pass cp_err_msg() as an argument to
     * wrap the previous message, and vsnprintf into the buffer it reads from is undefined.
     */
    char tmp[CP_ERR_MSG_SIZE];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0)
        tmp[0] = '\0'; /* an encoding error: keep an empty message rather than garbage */
    memcpy(cp_err_buf, tmp, strlen(tmp) + 1);
    return status;
}

int cp_err_cl(cl_int code, const char *call)
{
    return cp_err_set(CP_FAIL_RUNTIME, "%s failed: %s (%d)", call ? call : "OpenCL call",
                      cp_cl_error_name(code), (int)code);
}
