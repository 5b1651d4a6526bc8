/* The portable generator of DESIGN.md: counter-based splitmix64 of (seed, tensor id, element
 * index). The same floats come out on every machine: no libm, no contraction. */
#ifndef CLPARITY_GEN_H
#define CLPARITY_GEN_H

#include "clparity/export.h"
#include <stddef.h>
#include <stdint.h>

CP_API_BEGIN

/* Tensor ids. A layer's weight and bias have their own ids, so that a rectangular layer or a
 * change of depth leaves the other tensors as they were. */
#define CP_TENSOR_INPUT UINT64_C(1)
#define CP_TENSOR_TARGET UINT64_C(2)
#define CP_TENSOR_WEIGHT(layer) (UINT64_C(0x100000000) + (uint64_t)(layer))
#define CP_TENSOR_BIAS(layer) (UINT64_C(0x200000000) + (uint64_t)(layer))
/* clparity ulp's samples: one per reference function (runtime/opencl/ulp.c). */
#define CP_TENSOR_ULP(fn) (UINT64_C(0x300000000) + (uint64_t)(fn))

uint64_t cp_gen_splitmix64(uint64_t x);

/* splitmix64(splitmix64(splitmix64(seed) ^ tensor) ^ index). */
uint64_t cp_gen_bits(uint64_t seed, uint64_t tensor, uint64_t index);

/* (bits >> 40) * 2^-24: a float in [0, 1) with 24 random bits. */
float cp_gen_uniform(uint64_t seed, uint64_t tensor, uint64_t index);

/* PyTorch's default nn.Linear bound for fan_in: 1 / sqrt(fan_in), in float. */
float cp_gen_linear_bound(int fan_in);

/* (2·u − 1) · bound · scale, each operation in float, in that order. */
float cp_gen_weight(uint64_t seed, uint64_t tensor, uint64_t index, float bound, float scale);

/* A standard normal variate by Marsaglia's polar method: attempt a uses the counters
 * index·256 + 2a and + 2a + 1; the logarithm is cp_gen_log, not libm's. */
float cp_gen_normal(uint64_t seed, uint64_t tensor, uint64_t index);

/* Natural logarithm of a positive finite double in plain arithmetic (exponent split and an
 * atanh series), so that its last bit is the same on every machine. */
double cp_gen_log(double x);

void cp_gen_fill_uniform_weights(float *dst, size_t n, uint64_t seed, uint64_t tensor, float bound,
                                 float scale);
void cp_gen_fill_normal(float *dst, size_t n, uint64_t seed, uint64_t tensor);

CP_API_END

#endif
