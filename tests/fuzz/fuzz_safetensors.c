/* libFuzzer harness for the safetensors parser and the model built from it: any input must
 * give CP_OK or an error with a message, never a crash, an overflow or a leak (the fuzz build
 * runs under ASan + UBSan). */
#include "clparity/error.h"
#include "clparity/model.h"
#include "clparity/safetensors.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cp_st_file f;
    if (cp_st_parse(data, size, "fuzz.safetensors", &f) == CP_OK) {
        /* Every float32 tensor is read: its bytes lie inside the input (the parser checked). */
        for (size_t i = 0; i < f.n; ++i) {
            if (f.t[i].dtype != CP_ST_F32)
                continue;
            float *v = malloc(f.t[i].count ? f.t[i].count * sizeof *v : 1);
            if (v && cp_st_get_f32(&f, &f.t[i], v) != CP_OK)
                abort(); /* an F32 tensor that passed the parser must be readable */
            free(v);
        }
        /* Every way of reading the architecture. */
        static const cp_arch_opts archs[] = {
            {CP_ARCH_AUTO, -1, -1}, {CP_ARCH_DUMB, -1, -1}, {CP_ARCH_MLP, CP_ACT_NONE, 1}};
        for (size_t a = 0; a < sizeof archs / sizeof archs[0]; ++a) {
            cp_model m;
            const char *from;
            if (cp_model_from_safetensors(&m, &f, &archs[a], &from) == CP_OK) {
                if (m.n_layers <= 0 || m.layers[0].in != m.in_width)
                    abort();
                cp_model_free(&m);
            }
        }
    }
    cp_st_free(&f);
    return 0;
}
