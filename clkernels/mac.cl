/* CP_MAC(a, b, c), the multiply-add of cl:own's kernels, included by each (runtime/engine/program.c
 * expands the line `#include "mac.cl"`). cl:own: an explicit fma, nothing contracted, so that
 * every conforming device gives host:exact's bits.
 *
 * cl:relaxed builds the same kernels with -DCP_RELAXED -cl-fast-relaxed-math -cl-mad-enable:
 * each multiply-add is a plain a * b + c with contraction on, which -cl-mad-enable lets the
 * compiler turn into a mad (a multiply and an add with an extra rounding, or an fma, as the
 * device likes), and fast math lets it reorder. It is a separate engine, to show what
 * exactness costs. Not an explicit mad(): PoCL 3.1 lowers mad() to a multiply and an add even
 * where the CPU has fma, and cl:relaxed then took 1.45x cl:own's time in the compute-bound vec
 * GEMM (d=512 L=16 B=64, docs/PERFORMANCE.md), where the contracted form gives the compiler's
 * fma. */
#ifndef CP_MAC
#ifdef CP_RELAXED
#pragma OPENCL FP_CONTRACT ON
#define CP_MAC(a, b, c) ((a) * (b) + (c))
#else
#define CP_MAC(a, b, c) fma(a, b, c)
#endif
#endif
