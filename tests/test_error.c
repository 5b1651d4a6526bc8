/* Unit tests of runtime/base/error.c: code names and the per-thread error message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "clparity/error.h"

#include <CL/cl_egl.h>
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>
#include <clblast_c.h>

struct named_code {
    int code;
    const char *name;
};

/* Stringizing the macro is what makes the table a round trip: macro value -> name -> macro. */
#define NAMED(x)                                                                                   \
    {                                                                                              \
        (x), #x                                                                                    \
    }

/* Every error macro that the Linux-includable Khronos headers define. */
static const struct named_code cl_codes[] = {
    NAMED(CL_SUCCESS),
    NAMED(CL_DEVICE_NOT_FOUND),
    NAMED(CL_DEVICE_NOT_AVAILABLE),
    NAMED(CL_COMPILER_NOT_AVAILABLE),
    NAMED(CL_MEM_OBJECT_ALLOCATION_FAILURE),
    NAMED(CL_OUT_OF_RESOURCES),
    NAMED(CL_OUT_OF_HOST_MEMORY),
    NAMED(CL_PROFILING_INFO_NOT_AVAILABLE),
    NAMED(CL_MEM_COPY_OVERLAP),
    NAMED(CL_IMAGE_FORMAT_MISMATCH),
    NAMED(CL_IMAGE_FORMAT_NOT_SUPPORTED),
    NAMED(CL_BUILD_PROGRAM_FAILURE),
    NAMED(CL_MAP_FAILURE),
    NAMED(CL_MISALIGNED_SUB_BUFFER_OFFSET),
    NAMED(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    NAMED(CL_COMPILE_PROGRAM_FAILURE),
    NAMED(CL_LINKER_NOT_AVAILABLE),
    NAMED(CL_LINK_PROGRAM_FAILURE),
    NAMED(CL_DEVICE_PARTITION_FAILED),
    NAMED(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
    NAMED(CL_INVALID_VALUE),
    NAMED(CL_INVALID_DEVICE_TYPE),
    NAMED(CL_INVALID_PLATFORM),
    NAMED(CL_INVALID_DEVICE),
    NAMED(CL_INVALID_CONTEXT),
    NAMED(CL_INVALID_QUEUE_PROPERTIES),
    NAMED(CL_INVALID_COMMAND_QUEUE),
    NAMED(CL_INVALID_HOST_PTR),
    NAMED(CL_INVALID_MEM_OBJECT),
    NAMED(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
    NAMED(CL_INVALID_IMAGE_SIZE),
    NAMED(CL_INVALID_SAMPLER),
    NAMED(CL_INVALID_BINARY),
    NAMED(CL_INVALID_BUILD_OPTIONS),
    NAMED(CL_INVALID_PROGRAM),
    NAMED(CL_INVALID_PROGRAM_EXECUTABLE),
    NAMED(CL_INVALID_KERNEL_NAME),
    NAMED(CL_INVALID_KERNEL_DEFINITION),
    NAMED(CL_INVALID_KERNEL),
    NAMED(CL_INVALID_ARG_INDEX),
    NAMED(CL_INVALID_ARG_VALUE),
    NAMED(CL_INVALID_ARG_SIZE),
    NAMED(CL_INVALID_KERNEL_ARGS),
    NAMED(CL_INVALID_WORK_DIMENSION),
    NAMED(CL_INVALID_WORK_GROUP_SIZE),
    NAMED(CL_INVALID_WORK_ITEM_SIZE),
    NAMED(CL_INVALID_GLOBAL_OFFSET),
    NAMED(CL_INVALID_EVENT_WAIT_LIST),
    NAMED(CL_INVALID_EVENT),
    NAMED(CL_INVALID_OPERATION),
    NAMED(CL_INVALID_GL_OBJECT),
    NAMED(CL_INVALID_BUFFER_SIZE),
    NAMED(CL_INVALID_MIP_LEVEL),
    NAMED(CL_INVALID_GLOBAL_WORK_SIZE),
    NAMED(CL_INVALID_PROPERTY),
    NAMED(CL_INVALID_IMAGE_DESCRIPTOR),
    NAMED(CL_INVALID_COMPILER_OPTIONS),
    NAMED(CL_INVALID_LINKER_OPTIONS),
    NAMED(CL_INVALID_DEVICE_PARTITION_COUNT),
    NAMED(CL_INVALID_PIPE_SIZE),
    NAMED(CL_INVALID_DEVICE_QUEUE),
    NAMED(CL_INVALID_SPEC_ID),
    NAMED(CL_MAX_SIZE_RESTRICTION_EXCEEDED),
    NAMED(CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR),
    NAMED(CL_PLATFORM_NOT_FOUND_KHR),
    NAMED(CL_DEVICE_PARTITION_FAILED_EXT),
    NAMED(CL_INVALID_PARTITION_COUNT_EXT),
    NAMED(CL_INVALID_PARTITION_NAME_EXT),
    NAMED(CL_EGL_RESOURCE_NOT_ACQUIRED_KHR),
    NAMED(CL_INVALID_EGL_OBJECT_KHR),
    NAMED(CL_INVALID_ACCELERATOR_INTEL),
    NAMED(CL_INVALID_ACCELERATOR_TYPE_INTEL),
    NAMED(CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL),
    NAMED(CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL),
    NAMED(CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM),
    NAMED(CL_CONTEXT_TERMINATED_KHR),
    NAMED(CL_INVALID_COMMAND_BUFFER_KHR),
    NAMED(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR),
    NAMED(CL_INCOMPATIBLE_COMMAND_QUEUE_KHR),
    NAMED(CL_INVALID_MUTABLE_COMMAND_KHR),
    NAMED(CL_INVALID_SEMAPHORE_KHR),
    /* From headers that need Direct3D or libva, so written out by value. */
    {-1002, "CL_INVALID_D3D10_DEVICE_KHR"},
    {-1009, "CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1010, "CL_INVALID_DX9_MEDIA_ADAPTER_KHR/CL_INVALID_DX9_DEVICE_INTEL"},
    {-1101, "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL"},
};

static const struct named_code clblast_codes[] = {
    NAMED(CLBlastSuccess),
    NAMED(CLBlastOpenCLCompilerNotAvailable),
    NAMED(CLBlastTempBufferAllocFailure),
    NAMED(CLBlastOpenCLOutOfResources),
    NAMED(CLBlastOpenCLOutOfHostMemory),
    NAMED(CLBlastOpenCLBuildProgramFailure),
    NAMED(CLBlastInvalidValue),
    NAMED(CLBlastInvalidCommandQueue),
    NAMED(CLBlastInvalidMemObject),
    NAMED(CLBlastInvalidBinary),
    NAMED(CLBlastInvalidBuildOptions),
    NAMED(CLBlastInvalidProgram),
    NAMED(CLBlastInvalidProgramExecutable),
    NAMED(CLBlastInvalidKernelName),
    NAMED(CLBlastInvalidKernelDefinition),
    NAMED(CLBlastInvalidKernel),
    NAMED(CLBlastInvalidArgIndex),
    NAMED(CLBlastInvalidArgValue),
    NAMED(CLBlastInvalidArgSize),
    NAMED(CLBlastInvalidKernelArgs),
    NAMED(CLBlastInvalidLocalNumDimensions),
    NAMED(CLBlastInvalidLocalThreadsTotal),
    NAMED(CLBlastInvalidLocalThreadsDim),
    NAMED(CLBlastInvalidGlobalOffset),
    NAMED(CLBlastInvalidEventWaitList),
    NAMED(CLBlastInvalidEvent),
    NAMED(CLBlastInvalidOperation),
    NAMED(CLBlastInvalidBufferSize),
    NAMED(CLBlastInvalidGlobalWorkSize),
    NAMED(CLBlastNotImplemented),
    NAMED(CLBlastInvalidMatrixA),
    NAMED(CLBlastInvalidMatrixB),
    NAMED(CLBlastInvalidMatrixC),
    NAMED(CLBlastInvalidVectorX),
    NAMED(CLBlastInvalidVectorY),
    NAMED(CLBlastInvalidDimension),
    NAMED(CLBlastInvalidLeadDimA),
    NAMED(CLBlastInvalidLeadDimB),
    NAMED(CLBlastInvalidLeadDimC),
    NAMED(CLBlastInvalidIncrementX),
    NAMED(CLBlastInvalidIncrementY),
    NAMED(CLBlastInsufficientMemoryA),
    NAMED(CLBlastInsufficientMemoryB),
    NAMED(CLBlastInsufficientMemoryC),
    NAMED(CLBlastInsufficientMemoryX),
    NAMED(CLBlastInsufficientMemoryY),
    NAMED(CLBlastInsufficientMemoryTemp),
    NAMED(CLBlastInvalidBatchCount),
    NAMED(CLBlastInvalidOverrideKernel),
    NAMED(CLBlastMissingOverrideParameter),
    NAMED(CLBlastInvalidLocalMemUsage),
    NAMED(CLBlastNoHalfPrecision),
    NAMED(CLBlastNoDoublePrecision),
    NAMED(CLBlastInvalidVectorScalar),
    NAMED(CLBlastInsufficientMemoryScalar),
    NAMED(CLBlastDatabaseError),
    NAMED(CLBlastUnknownError),
    NAMED(CLBlastUnexpectedError),
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void test_cl_common_names(void **state)
{
    (void)state;
    assert_string_equal(cp_cl_error_name(CL_SUCCESS), "CL_SUCCESS");
    assert_string_equal(cp_cl_error_name(CL_DEVICE_NOT_FOUND), "CL_DEVICE_NOT_FOUND");
    assert_string_equal(cp_cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    assert_string_equal(cp_cl_error_name(CL_INVALID_VALUE), "CL_INVALID_VALUE");
    assert_string_equal(cp_cl_error_name(CL_INVALID_KERNEL_ARGS), "CL_INVALID_KERNEL_ARGS");
    assert_string_equal(cp_cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    assert_string_equal(cp_cl_error_name(-1000), "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR");
    assert_string_equal(cp_cl_error_name(-1138), "CL_INVALID_COMMAND_BUFFER_KHR");
}

static void test_cl_unknown(void **state)
{
    (void)state;
    assert_string_equal(cp_cl_error_name(1), "CL_UNKNOWN_ERROR");
    assert_string_equal(cp_cl_error_name(-20), "CL_UNKNOWN_ERROR");
    assert_string_equal(cp_cl_error_name(-73), "CL_UNKNOWN_ERROR");
    assert_string_equal(cp_cl_error_name(-9999), "CL_UNKNOWN_ERROR");
    assert_string_equal(cp_cl_error_name(INT32_MIN), "CL_UNKNOWN_ERROR");
    assert_string_equal(cp_cl_error_name(INT32_MAX), "CL_UNKNOWN_ERROR");
}

static void test_cl_table_round_trip(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(cl_codes); i++)
        assert_string_equal(cp_cl_error_name(cl_codes[i].code), cl_codes[i].name);
}

/* Whatever has a name in the core and extension ranges must look like an OpenCL name. */
static void test_cl_ranges(void **state)
{
    int named_core = 0;

    (void)state;
    for (int c = -1; c >= -72; c--) {
        const char *n = cp_cl_error_name(c);

        assert_non_null(n);
        if (strcmp(n, "CL_UNKNOWN_ERROR") == 0)
            continue;
        assert_true(strncmp(n, "CL_", 3) == 0);
        named_core++;
    }
    /* -1..-19 and -30..-72: -20..-29 are unassigned. */
    assert_int_equal(named_core, 19 + 43);

    for (int c = -1000; c >= -1200; c--) {
        const char *n = cp_cl_error_name(c);

        assert_non_null(n);
        if (strcmp(n, "CL_UNKNOWN_ERROR") != 0)
            assert_true(strncmp(n, "CL_", 3) == 0);
    }
    /* The D3D10/D3D11/DX9 block -1000..-1013 has no holes. */
    for (int c = -1000; c >= -1013; c--)
        assert_string_not_equal(cp_cl_error_name(c), "CL_UNKNOWN_ERROR");
}

static void test_clblast_names(void **state)
{
    (void)state;
    assert_string_equal(cp_clblast_status_name(0), "CLBlastSuccess");
    assert_string_equal(cp_clblast_status_name(-1024), "CLBlastNotImplemented");
    assert_string_equal(cp_clblast_status_name(-2046), "CLBlastInvalidLocalMemUsage");
    assert_string_equal(cp_clblast_status_name(-2040), "CLBlastUnknownError");
    assert_string_equal(cp_clblast_status_name(-2050), "CLBlastInsufficientMemoryTemp");
    assert_string_equal(cp_clblast_status_name(CL_INVALID_VALUE), "CLBlastInvalidValue");
    for (size_t i = 0; i < ARRAY_LEN(clblast_codes); i++)
        assert_string_equal(cp_clblast_status_name(clblast_codes[i].code), clblast_codes[i].name);
}

static void test_clblast_unknown(void **state)
{
    (void)state;
    assert_string_equal(cp_clblast_status_name(1), "CLBlastUnknownStatus");
    assert_string_equal(cp_clblast_status_name(-1), "CLBlastUnknownStatus");
    assert_string_equal(cp_clblast_status_name(-2051), "CLBlastUnknownStatus");
    assert_string_equal(cp_clblast_status_name(INT32_MIN), "CLBlastUnknownStatus");
}

static void test_err_set(void **state)
{
    (void)state;
    assert_int_equal(cp_err_set(CP_FAIL_USAGE, "bad %s: %d", "value", 42), CP_FAIL_USAGE);
    assert_string_equal(cp_err_msg(), "bad value: 42");
    assert_int_equal(cp_err_set(CP_OK, "%s", ""), CP_OK);
    assert_string_equal(cp_err_msg(), "");
    assert_int_equal(cp_err_set(CP_FAIL_CHECK, "x"), CP_FAIL_CHECK);
    assert_string_equal(cp_err_msg(), "x");
}

/* Wrapping the previous message must work although it is read from the buffer being set. */
static void test_err_set_wraps_itself(void **state)
{
    (void)state;
    cp_err_set(CP_FAIL_RUNTIME, "inner");
    cp_err_set(CP_FAIL_RUNTIME, "outer: %s", cp_err_msg());
    assert_string_equal(cp_err_msg(), "outer: inner");
}

static void test_err_set_truncates(void **state)
{
    char big[3000];

    (void)state;
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_int_equal(cp_err_set(CP_FAIL_USAGE, "%s", big), CP_FAIL_USAGE);
    assert_int_equal(strlen(cp_err_msg()), 1023);
    assert_int_equal(cp_err_msg()[0], 'a');
}

static void test_err_cl(void **state)
{
    (void)state;
    assert_int_equal(cp_err_cl(CL_INVALID_VALUE, "clFoo"), CP_FAIL_RUNTIME);
    assert_string_equal(cp_err_msg(), "clFoo failed: CL_INVALID_VALUE (-30)");
    assert_int_equal(cp_err_cl(-12345, "clBar"), CP_FAIL_RUNTIME);
    assert_string_equal(cp_err_msg(), "clBar failed: CL_UNKNOWN_ERROR (-12345)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cl_common_names),
        cmocka_unit_test(test_cl_unknown),
        cmocka_unit_test(test_cl_table_round_trip),
        cmocka_unit_test(test_cl_ranges),
        cmocka_unit_test(test_clblast_names),
        cmocka_unit_test(test_clblast_unknown),
        cmocka_unit_test(test_err_set),
        cmocka_unit_test(test_err_set_wraps_itself),
        cmocka_unit_test(test_err_set_truncates),
        cmocka_unit_test(test_err_cl),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
