/* The model: a stack of Linear layers, each with an optional bias, an activation and an
 * optional residual. The reference model is n_layers blocks y = x + relu(x·Wᵀ), W [d, d]. */
#ifndef CLPARITY_MODEL_H
#define CLPARITY_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cp_act { CP_ACT_NONE = 0, CP_ACT_RELU = 1 };

typedef struct cp_layer {
    int in, out;
    size_t w_off; /* offset of W [out, in], row-major, in floats, into params */
    bool has_bias;
    size_t b_off; /* offset of the bias [out] when has_bias */
    enum cp_act act;
    bool residual; /* y = x + act(x·Wᵀ + b); only where in == out */
} cp_layer;

typedef struct cp_model {
    int n_layers;
    cp_layer *layers;
    float *params; /* every layer's W then bias, in layer order */
    size_t n_params;
    int in_width, out_width, max_width;
    /* how the built-in model was made, for provenance */
    int d;
    uint64_t seed;
    float init_scale;
} cp_model;

/* DESIGN's ReLU: NaN propagates and −0 becomes +0. The .cl kernels use the same form. */
static inline float cp_relu(float v)
{
    return (v <= 0.0f) ? 0.0f : v;
}
static inline double cp_relu_f64(double v)
{
    return (v <= 0.0) ? 0.0 : v;
}

/* The reference model: n_layers blocks y = x + relu(x·Wᵀ), W uniform in ±bound·init_scale
 * (bound = 1/sqrt(d), PyTorch's default) from the generator. */
int cp_model_builtin(cp_model *m, int d, int n_layers, uint64_t seed, float init_scale);

/* The same model's layers alone (params NULL), for the memory checks that come before any
 * work; cp_model_builtin_generate then allocates and fills the weights. */
int cp_model_builtin_shape(cp_model *m, int d, int n_layers, uint64_t seed, float init_scale);
int cp_model_builtin_generate(cp_model *m);
void cp_model_free(cp_model *m);

/* Multiply-adds of one forward pass over `batch` rows. */
double cp_model_macs(const cp_model *m, int batch);

/* The input: batch rows of standard normals from the generator (tensor CP_TENSOR_INPUT). */
int cp_model_input(int batch, int width, uint64_t seed, float **out);

#endif
