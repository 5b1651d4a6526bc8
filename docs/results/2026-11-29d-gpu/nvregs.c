/* Builds an OpenCL source on the first GPU with the given options and -cl-nv-verbose, and
 * prints the build log (NVIDIA's ptxas lines: registers, spills, local memory per kernel) and
 * each kernel's CL_KERNEL_WORK_GROUP_SIZE and private memory.
 *   nvregs FILE.cl "OPTIONS" */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: nvregs FILE.cl OPTIONS\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    static char src[1 << 20];
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = 0;
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    clGetPlatformIDs(8, plats, &np);
    for (cl_uint i = 0; i < np && !dev; ++i)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!dev) {
        fprintf(stderr, "no GPU\n");
        return 1;
    }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    const char *s = src;
    cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
    char opts[2048];
    snprintf(opts, sizeof opts, "%s -cl-nv-verbose", argv[2]);
    cl_int b = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
    size_t ln = 0;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &ln);
    char *log = malloc(ln + 1);
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, ln, log, NULL);
    log[ln] = 0;
    printf("build %d, options: %s\n%s\n", b, opts, log);
    free(log);
    cl_kernel ks[64];
    cl_uint nk = 0;
    if (b == CL_SUCCESS && clCreateKernelsInProgram(p, 64, ks, &nk) == CL_SUCCESS)
        for (cl_uint i = 0; i < nk; ++i) {
            char name[128];
            size_t wg = 0;
            cl_ulong priv = 0, loc = 0;
            clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
            clGetKernelWorkGroupInfo(ks[i], dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
            clGetKernelWorkGroupInfo(ks[i], dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv,
                                     NULL);
            clGetKernelWorkGroupInfo(ks[i], dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof loc, &loc, NULL);
            printf("kernel %-20s max wg %4zu private %6llu local %6llu\n", name, wg,
                   (unsigned long long)priv, (unsigned long long)loc);
        }
    return b == CL_SUCCESS ? 0 : 1;
}
