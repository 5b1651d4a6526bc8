/* Included by hostblas/exact.c with T (float or double), FMA (fmaf or fma) and SFX (_f32 or
 * _f64) defined: host:exact's tile and its epilogue for one element type. */
#define TCAT2(a, b) a##b
#define TCAT(a, b) TCAT2(a, b)
#define TFN(name) TCAT(name, SFX)

/* The epilogue of a tile of R rows × NV·XP outputs from o0, in host:exact's order: the sum
 * (acc, row-major per tile row), then the bias, the activation, the residual. */
static inline __attribute__((always_inline)) void
TFN(exact_store)(const cp_layer *L, const T *restrict p, const T *restrict acc, const T *restrict x,
                 T *restrict y, int o0, const int R, const int NV)
{
    for (int r = 0; r < R; ++r) {
        const T *xr = x + (size_t)r * (size_t)L->in;
        T *yr = y + (size_t)r * (size_t)L->out;
        for (int c = 0; c < NV * XP && o0 + c < L->out; ++c) {
            int o = o0 + c;
            T v = acc[(r * NV + c / XP) * XP + c % XP];
            if (L->has_bias)
                v = v + p[L->b_off + (size_t)o];
            T rl = L->act == CP_ACT_RELU ? ((v <= (T)0) ? (T)0 : v) : v; /* cp_relu */
            yr[o] = L->residual ? xr[o] + rl : rl;
        }
    }
}

/* R rows × NV panels of outputs: R·NV·XP accumulators, each its own fma chain from 0.0f, k
 * ascending (lanes are outputs, never k, so vectorising changes no bit), then the epilogue.
 * Inlined with constant R and NV into exact_unit's cases, where GCC vectorises the lanes. */
static inline __attribute__((always_inline)) void
TFN(exact_tile)(const cp_layer *L, const T *restrict p, const T *restrict wp, int K,
                const T *restrict x, T *restrict y, int o0, const int R, const int NV)
{
    T acc[8 * XP];
    for (int i = 0; i < R * NV * XP; ++i)
        acc[i] = (T)0;
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < NV; ++j) {
            const T *w = wp + ((size_t)j * (size_t)K + (size_t)k) * XP;
            for (int r = 0; r < R; ++r) {
                const T a = x[(size_t)r * (size_t)K + (size_t)k];
                for (int v = 0; v < XP; ++v)
                    acc[(r * NV + j) * XP + v] = FMA(a, w[v], acc[(r * NV + j) * XP + v]);
            }
        }
    TFN(exact_store)(L, p, acc, x, y, o0, R, NV);
}

#undef TFN
#undef TCAT
#undef TCAT2
