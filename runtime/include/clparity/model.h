/* The model: a stack of Linear layers, each with an optional bias, an activation and an
 * optional residual. The reference model is n_layers blocks y = x + relu(x·Wᵀ), W [d, d]. */
#ifndef CLPARITY_MODEL_H
#define CLPARITY_MODEL_H

#include "clparity/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

CP_API_BEGIN

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

/* The most weights of any layer (in · out; 1 for a model without layers): the size of a buffer
 * that holds one layer's weight gradient at a time. */
size_t cp_model_max_weights(const cp_model *m);

/* ---- models from files ---------------------------------------------------------------- */

struct cp_st_file;

/* Where the architecture comes from: the first of the flags (--arch, --act, --residual),
 * the metadata key clparity.arch (written by tools/export_torch.py), and the tensor names. */
enum cp_arch_kind { CP_ARCH_AUTO = 0, CP_ARCH_DUMB, CP_ARCH_MLP };

typedef struct cp_arch_opts {
    enum cp_arch_kind kind; /* CP_ARCH_AUTO: from the metadata, else from the names */
    int act;                /* -1: not given; else an enum cp_act for every hidden layer (and,
                               in the post's model, the last one too) */
    int residual;           /* -1: not given; 0 off; 1 on wherever in == out */
} cp_arch_opts;

/* Builds the model from a parsed safetensors file:
 * - CP_ARCH_DUMB: tensors blocks.N.net.0.weight [d, d] (N = 0..L-1, optional .bias): relu and
 *   a residual in every block (the post's model);
 * - CP_ARCH_MLP: an nn.Sequential's N.weight [out, in] and N.bias, N ascending: relu between
 *   the layers, nothing after the last, no residual;
 * - CP_ARCH_AUTO: clparity.arch when present, else one of the two above by the names.
 * Then a->act and a->residual override. Every weight must be F32 and 2-D, every bias 1-D of
 * the layer's out, each layer's in the previous one's out. *from is set to a short phrase
 * naming where the architecture came from. Errors are CP_FAIL_USAGE naming the file. */
int cp_model_from_safetensors(cp_model *m, const struct cp_st_file *f, const cp_arch_opts *a,
                              const char **from);

/* Reads a safetensors file and builds the model as cp_model_from_safetensors does; sha256
 * (may be NULL) gets the file's SHA-256 in hex. */
int cp_model_load(const char *path, const cp_arch_opts *a, cp_model *m, const char **from,
                  char sha256[65]);

/* Models built from arrays (the Python module's way in): cp_model_new gives an empty model
 * (no layers) to free with cp_model_delete. cp_model_add_layer appends a Linear layer: w is
 * [out, in] row-major (as PyTorch stores nn.Linear.weight), b is [out] or NULL, both copied;
 * act is an enum cp_act; residual needs in == out. The layer's in must be the previous
 * layer's out: CP_FAIL_USAGE otherwise. */
cp_model *cp_model_new(void);
int cp_model_add_layer(cp_model *m, int in, int out, const float *w, const float *b, int act,
                       bool residual);
void cp_model_delete(cp_model *m);

/* "64→128 relu, 128→10" style summary of the layers, for the report. */
void cp_model_describe(const cp_model *m, char *buf, size_t len);

/* The input: batch rows of standard normals from the generator (tensor CP_TENSOR_INPUT). */
int cp_model_input(int batch, int width, uint64_t seed, float **out);

CP_API_END

#endif
