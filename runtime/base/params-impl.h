/* Private: the name=value settings of the tune parameters (CLPARITY_OWN_TUNE, `clparity tune`'s
 * store, CLPARITY_CR_TUNE), parsed from a table of parameters (params.c). Base-level: env.c
 * checks CLPARITY_OWN_TUNE and CLPARITY_CR_TUNE with these, tune.c and cr_cl.c read them. */
#ifndef CLPARITY_PARAMS_IMPL_H
#define CLPARITY_PARAMS_IMPL_H

#include <stddef.h>

/* cl:own's tune settings (CLPARITY_OWN_TUNE's names; tune-impl.h reads and stores them). */
typedef struct cp_own_tune {
    int reg_rc;   /* reg path: weights per work-item per chunk (16, 32, 64, 128) */
    int reg_rd;   /* reg path: chunks in registers, CP_RD - 1 of them in flight (2, 3, 4) */
    int tiled_bk; /* tiled path: depth of cp_gemm_tiled4's tiles (16, 32) */
    int tiled_db; /* tiled path: 1 double-buffers the tiles in local memory (0, 1) */
    int tiled_xl; /* tiled path: 1 loads x a row per lane, 0 a row per CP_LQ lanes (0, 1) */
    int tiled_xp; /* tiled path: floats of padding per row of the local x tile (0, 4) */
    int tiled_pf; /* tiled path: 1 holds the next tile in registers during the products (0, 1) */
    int vec_w;    /* vec path: vector width along the outputs (4, 8, 16) */
    int vec_rb;   /* vec path: batch rows per register tile (2, 4, 8, 12, 16) */
    int vec_nv;   /* vec path: vectors along the outputs per work-item (1, 2, 4) */
    int vec_mc;   /* vec path: batch rows per work-item (16 ... 1024, rounded up to rb) */
    int reg_rr;   /* reg path: at most this many batch rows per work-group (1 ... 16) */
    int str_no;   /* stream path: outputs per tile (4 ... 64; 0: from the width) */
    int str_kc;   /* stream path: k-values per chunk (32 ... 1024; 0: 8192 / outputs per tile) */
    int str_sp;   /* stream path: 1 runs the model in one launch (device-wide barrier), 0 a
                   * launch per layer */
    int str_sg;   /* stream path, one launch: work-groups launched per compute unit (1 ... 8;
                   * 0: 2 where a layer has more tiles than compute units, else 1) */
    int reg_rg;   /* reg path, layers at most 128 wide and batches up to 256: groups of
                   * work-items that take the layers in turn, each holding a whole row of its
                   * next layer's weights in registers (2, 3, 4; 1: the chunked kernel) */
    int cpu_gu;   /* cpug path (CPUs): units of work per group wanted in the widest layer
                   * (1, 2, 4): narrower panels until each of the compute units has this many */
} cp_own_tune;

/* Parses "rc=32,rd=2,bk=16,db=1,xl=0,xp=4,vw=8,rb=4,nv=2,mc=128" (any subset) over *t.
 * CP_FAIL_USAGE names the problem. */
int cp_tune_parse(const char *spec, cp_own_tune *t);

/* One parameter: its name, the int it sets (an offset into the settings' struct), and its
 * values: the n numbers of allowed, or, where words is set, the n words (words[i] sets i). */
struct cp_param {
    const char *name;
    size_t off;
    int n;
    int allowed[8];
    const char *const *words;
};

/* Parses "name=value,name=value" (any subset of params, in any order; later ones win) over the
 * struct at out. CP_FAIL_USAGE ("tuning '<spec>': ...") names an item that is not name=value,
 * an unknown name (with the list of names) or a value not allowed (with the allowed values);
 * then out is left as it was. */
int cp_params_parse(const char *spec, const struct cp_param *params, size_t n, void *out);

/* Whether spec parses as CLPARITY_CR_TUNE's settings (params.c; cl:cr reads them in cr_cl.c): CP_OK
 * or CP_FAIL_USAGE. Whether the device can take them is checked when cl:cr starts. */
int cp_cr_tune_check(const char *spec);

/* CLPARITY_CR_TUNE's settings. */
struct cr_tune {
    int path;  /* 0 auto (the rules), else 1 + enum cr_path */
    int wg;    /* work-items per group of gemv and splitk (a power of two) */
    int ob;    /* outputs per work-group of gemv and splitk */
    int split; /* splitk: ranges of k, each summed by its own work-groups; team: work-items per
                  output */
    int tk;    /* gemm: the tiles' depth */
    int vw;    /* cpu: outputs per work-item (a double vector) */
    int rb;    /* cpu: rows per work-item */
    int exact; /* 1: every output through the exact accumulator (no double compiled) */
    int ftz;   /* 1: as if the device flushed float denormals (cr.cl's CR_NO_DENORM) */
    int sg;    /* stream: work-groups launched per compute unit */
    int rm;    /* gemm, tiles: rows and outputs per work-item (cr.cl's CR_RM) */

    /* 1 (method=f32): the float32-only certified method forced (cr_f32.cl's variants) */
    int method;
};

/* CLPARITY_CR_TUNE's parameters (params.c), over a struct cr_tune. */
#define CR_N_PARAMS 12
extern const struct cp_param cr_params[CR_N_PARAMS];

#endif
