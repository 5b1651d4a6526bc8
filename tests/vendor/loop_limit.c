/* Reproducer host for loop_limit.cl (see README.md): on every OpenCL device the ICD loader
 * finds, runs each kernel in one work-item and prints how many loop iterations ran, then
 * "BUG PRESENT" or "BUG ABSENT". Exit status 0 either way; 77 where no device is found; 3 on
 * an OpenCL error.
 *
 *   cc -o loop_limit loop_limit.c -lOpenCL && ./loop_limit loop_limit.cl */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define N1 100000 /* one_loop, sum_ones: past 65535 */
#define N2 40000  /* two_loops: each loop below 65535, both together past it */

static int fail(const char *what, cl_int rc)
{
    printf("  OpenCL error %d in %s\n", rc, what);
    return 3;
}

/* Runs kernel k in one work-item; returns 0 or 3. */
static int run1(cl_command_queue q, cl_kernel k)
{
    size_t one = 1;
    cl_int rc = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clFinish(q);
    return rc == CL_SUCCESS ? 0 : fail("clEnqueueNDRangeKernel", rc);
}

/* The first i < n with o[i] != i, or n. */
static int first_wrong(const int *o, int n)
{
    for (int i = 0; i < n; ++i)
        if (o[i] != i)
            return i;
    return n;
}

static int check_device(cl_device_id dev, const char *src, int *present)
{
    char pname[256] = "", dname[256] = "", drv[128] = "";
    cl_platform_id plat;
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof drv, drv, NULL);
    printf("%s / %s (driver %s)\n", pname, dname, drv);
    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    if (rc != CL_SUCCESS)
        return fail("clCreateContext", rc);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &rc);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    if (rc != CL_SUCCESS || clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL))
        return fail("clBuildProgram", rc ? rc : CL_BUILD_PROGRAM_FAILURE);
    int *h =
        malloc(sizeof(int) * 2 * N2 > sizeof(int) * N1 ? sizeof(int) * 2 * N2 : sizeof(int) * N1);
    float ones[1024];
    for (int i = 0; i < 1024; ++i)
        ones[i] = 1.0f;
    cl_mem o =
        clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(int) * 2 * N2 + sizeof(int) * N1, NULL, &rc);
    cl_mem b1 =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof ones, ones, &rc);
    if (!h || rc != CL_SUCCESS)
        return fail("clCreateBuffer", rc);
    cl_kernel k1 = clCreateKernel(prog, "one_loop", &rc),
              k2 = clCreateKernel(prog, "two_loops", &rc),
              k3 = clCreateKernel(prog, "sum_ones", &rc);
    if (rc != CL_SUCCESS)
        return fail("clCreateKernel", rc);
    int n1 = N1, n2 = N2, st = 0, bad = 0, minus1 = -1;

    clEnqueueFillBuffer(q, o, &minus1, sizeof minus1, 0, sizeof(int) * N1, 0, NULL, NULL);
    clSetKernelArg(k1, 0, sizeof o, &o);
    clSetKernelArg(k1, 1, sizeof n1, &n1);
    if ((st = run1(q, k1)) != 0)
        return st;
    clEnqueueReadBuffer(q, o, CL_TRUE, 0, sizeof(int) * N1, h, 0, NULL, NULL);
    int r1 = first_wrong(h, N1);
    printf("  one_loop  (1 loop of %d iterations): %d ran (expected %d)\n", N1, r1, N1);
    bad |= r1 != N1;

    clEnqueueFillBuffer(q, o, &minus1, sizeof minus1, 0, sizeof(int) * 2 * N2, 0, NULL, NULL);
    clSetKernelArg(k2, 0, sizeof o, &o);
    clSetKernelArg(k2, 1, sizeof n2, &n2);
    if ((st = run1(q, k2)) != 0)
        return st;
    clEnqueueReadBuffer(q, o, CL_TRUE, 0, sizeof(int) * 2 * N2, h, 0, NULL, NULL);
    int a = first_wrong(h, N2), b = first_wrong(h, 2 * N2);
    b = a < N2 ? 0 : b - N2;
    printf("  two_loops (2 loops of %d iterations): %d and %d ran (expected %d and %d)\n", N2, a, b,
           N2, N2);
    bad |= a != N2 || b != N2;

    float s = -1.0f;
    clSetKernelArg(k3, 0, sizeof o, &o);
    clSetKernelArg(k3, 1, sizeof b1, &b1);
    clSetKernelArg(k3, 2, sizeof n1, &n1);
    if ((st = run1(q, k3)) != 0)
        return st;
    clEnqueueReadBuffer(q, o, CL_TRUE, 0, sizeof s, &s, 0, NULL, NULL);
    printf("  sum_ones  (sum of %d ones): %.1f (expected %d.0)\n", N1, s, N1);
    bad |= s != (float)N1;

    printf("  %s\n", bad ? "BUG PRESENT: loops stopped early, without an error"
                         : "BUG ABSENT: every loop ran to completion");
    *present |= bad;
    clReleaseKernel(k1);
    clReleaseKernel(k2);
    clReleaseKernel(k3);
    clReleaseMemObject(o);
    clReleaseMemObject(b1);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(h);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s loop_limit.cl\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    static char src[1 << 16];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[len] = '\0';
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0) {
        printf("no OpenCL platform: nothing to check\n");
        return 77;
    }
    int present = 0, devices = 0;
    for (cl_uint p = 0; p < np && p < 16; ++p) {
        cl_device_id devs[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < 16; ++d, ++devices) {
            int st = check_device(devs[d], src, &present);
            if (st)
                return st;
        }
    }
    if (!devices) {
        printf("no OpenCL device: nothing to check\n");
        return 77;
    }
    printf("%s\n", present ? "BUG PRESENT" : "BUG ABSENT");
    return 0;
}
