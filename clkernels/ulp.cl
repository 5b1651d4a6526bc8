/* clparity ulp (runtime/opencl/ulp.c): one of the measured functions, chosen by op, on n inputs. Built
 * as it comes and with -cl-fp32-correctly-rounded-divide-sqrt, which changes sqrt and / only.
 * Nothing may be contracted: each result is the function's own. */
#pragma OPENCL FP_CONTRACT OFF

__kernel void ulp_eval(__global const float *restrict x, __global const float *restrict y,
                       __global float *restrict r, int n, int op)
{
    size_t i = get_global_id(0);
    if (i >= (size_t)n)
        return;
    float a = x[i], b = y[i], v;
    switch (op) {
    case 0:
        v = sqrt(a);
        break;
    case 1:
        v = a / b;
        break;
    case 2:
        v = native_sqrt(a);
        break;
    case 3:
        v = native_divide(a, b);
        break;
    case 4:
        v = native_recip(a);
        break;
    case 5:
        v = half_sqrt(a);
        break;
    case 6:
        v = half_divide(a, b);
        break;
    default:
        v = half_recip(a);
        break;
    }
    r[i] = v;
}
