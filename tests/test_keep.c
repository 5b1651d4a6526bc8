/* runtime/keep_pocl: a program keeps only the kernels that the host names (cp_program_keep's
 * -DCP_KERNELS -DCP_K_<name>, the guards around each kernel of cr.cl, cr_f32.cl and own_*.cl):
 * PoCL compiles every kernel of a program when its binary is asked for (the program cache), so
 * a guard that went missing would cost a first build its time again, with no other symptom.
 * For each case, the program built with the variant's options (as a run's kernel_build_options
 * show them) holds exactly the kernels named (CL_PROGRAM_KERNEL_NAMES), and the same options
 * without the names hold more, the named ones among them. Kernels named by macros (cr.cl's
 * CR_STREAM_NAME, CR_TILES_NAME for cr_f32.cl) are among the cases. On the first OpenCL device
 * (PoCL in ctest), with the program cache off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine_util.h"
#include "program-impl.h"

#include <string.h>

static cp_devlist devs;
static cl_context ctx;

/* The kernel names of clkernels/<file> built with options, comma-separated, into names. */
static void kernel_names(const char *file, const char *options, char *names, size_t len)
{
    const cp_device *dev = find_kind(&devs, CP_DEV_OPENCL);
    cl_program prog = NULL;
    if (cp_program_build_ex(ctx, dev->device_id, file, options, &prog, NULL) != CP_OK)
        fail_msg("%s with '%s': %s", file, options, cp_err_msg());
    size_t got = 0;
    cl_int rc = clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, len, names, &got);
    clReleaseProgram(prog);
    if (rc != CL_SUCCESS)
        fail_msg("clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES) failed: %s (%d)", cp_cl_error_name(rc),
                 rc);
}

/* Whether name is one of the comma-separated list's. */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ';' || p[-1] == ',') &&
            (p[n] == '\0' || p[n] == ';' || p[n] == ','))
            return true;
    return false;
}

static void check(const char *file, const char *options, const char *const *keep, size_t n)
{
    char kept_opts[512], all[4096], kept[4096];
    snprintf(kept_opts, sizeof kept_opts, "%s", options);
    assert_int_equal(cp_program_keep(kept_opts, sizeof kept_opts, keep, n), CP_OK);
    kernel_names(file, kept_opts, kept, sizeof kept);
    kernel_names(file, options, all, sizeof all);
    fprintf(stderr, "%s [%s]: kept %s; without the names: %s\n", file, kept_opts, kept, all);
    size_t commas = 0;
    for (const char *p = kept; *p; ++p)
        commas += *p == ';' || *p == ',';
    if (commas + 1 != n)
        fail_msg("%s keeps %s, not only the %zu named", file, kept, n);
    for (size_t i = 0; i < n; ++i) {
        if (!listed(kept, keep[i]))
            fail_msg("%s: %s is not kept (%s)", file, keep[i], kept);
        if (!listed(all, keep[i]))
            fail_msg("%s: %s is not in the whole program (%s)", file, keep[i], all);
    }
    if (strcmp(kept, all) == 0)
        fail_msg("%s: the whole program holds only %s: the names changed nothing", file, all);
}

static void test_kept(void **state)
{
    (void)state;
    static const char cr[] =
        "-cl-std=CL1.2 -DCR_WG=64 -DCR_OB=4 -DCR_TK=16 -DCR_VW=16 -DCR_RB=4 -DCR_F64";
    char opts[256];
    snprintf(opts, sizeof opts, "%s -DCR_RM=2", cr);
    check("cr.cl", opts, (const char *const[]){"cr_gemm"}, 1);
    check("cr.cl", cr, (const char *const[]){"cr_split_part", "cr_split_finish"}, 2);
    snprintf(opts, sizeof opts, "%s -DCR_STREAM -DCP_SPIN_T=long -DCP_SPIN=(1L<<34) -DCR_RM=1", cr);
    check("cr.cl", opts, (const char *const[]){"cr_stream"}, 1);
    check("cr.cl", opts, (const char *const[]){"cr_tiles"}, 1);
    static const char f32[] = "-cl-std=CL1.2 -DCR_WG=64 -DCR_OB=4 -DCR_TK=16 -DCR_VW=16 -DCR_RB=4";
    snprintf(opts, sizeof opts, "%s -DCR_RM=1", f32);
    check("cr_f32.cl", opts, (const char *const[]){"cr_f32_gemm", "cr_f32_fix"}, 2);
    snprintf(opts, sizeof opts, "%s -DCR_STREAM -DCP_SPIN_T=long -DCP_SPIN=(1L<<34) -DCR_RM=1",
             f32);
    check("cr_f32.cl", opts, (const char *const[]){"cr_f32_tiles"}, 1);
    check("cr_f32.cl", opts, (const char *const[]){"cr_f32_stream"}, 1);
    check("own_small.cl", "-cl-std=CL1.2 -DCP_LS=1024 -DCP_MAXW=13 -DCP_KT=256",
          (const char *const[]){"cp_model_small_pipe"}, 1);
}

int main(void)
{
    setenv("CLPARITY_CACHE", "off", 1);
    int status = devices_or_skip(&devs);
    if (status)
        return status;
    cl_command_queue q = NULL;
    if (cp_cl_open(find_kind(&devs, CP_DEV_OPENCL), 0, &ctx, &q) != CP_OK) {
        fprintf(stderr, "%s\n", cp_err_msg());
        return 1;
    }
    const struct CMUnitTest all[] = {cmocka_unit_test(test_kept)};
    int rc = cmocka_run_group_tests(all, NULL, NULL);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    cp_devlist_free(&devs);
    return rc;
}
