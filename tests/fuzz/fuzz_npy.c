/* libFuzzer harness for the .npy reader: any input must give CP_OK or an error with a
 * message, never a crash, an overflow or a leak (the fuzz build runs under ASan + UBSan). */
#include "clparity/error.h"
#include "clparity/npy.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cp_npy a;
    if (cp_npy_parse(data, size, "fuzz.npy", &a) == CP_OK) {
        size_t n = 1;
        for (int k = 0; k < a.ndim; ++k)
            n *= a.shape[k];
        if (n != a.count || !a.data)
            abort(); /* the parser's count must be the shape's product */
        cp_npy_free(&a);
    }
    return 0;
}
