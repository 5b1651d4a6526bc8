/* runtime/safetensors: the parser (every malformed-file case: status 2 and a message that
 * names the file and the problem) and the models built from files (names, metadata, flags). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/error.h"
#include "clparity/model.h"
#include "clparity/safetensors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file: the 8-byte length of `json`, `json`, then data_len bytes (float i at offset 4i is
 * i + 1, so that data can be checked). */
static unsigned char *mk(const char *json, size_t data_len, size_t *size)
{
    size_t h = strlen(json);
    *size = 8 + h + data_len;
    unsigned char *b = calloc(*size + 1, 1);
    assert_non_null(b);
    for (int i = 0; i < 8; ++i)
        b[i] = (unsigned char)((uint64_t)h >> (8 * i));
    memcpy(b + 8, json, h);
    for (size_t i = 0; i + 4 <= data_len; i += 4) {
        float v = (float)(i / 4 + 1);
        memcpy(b + 8 + h + i, &v, 4);
    }
    return b;
}

/* Parses json + data and expects status 2 with `what` in the message, which also names the
 * file. */
static void expect_bad(const char *json, size_t data_len, const char *what)
{
    size_t size;
    unsigned char *b = mk(json, data_len, &size);
    cp_st_file f;
    int st = cp_st_parse(b, size, "bad.safetensors", &f);
    if (st != CP_FAIL_USAGE || !strstr(cp_err_msg(), what) ||
        strncmp(cp_err_msg(), "bad.safetensors: ", 17) != 0)
        fail_msg("header %s: status %d, message '%s' (wanted status 2 and '%s')", json, st,
                 cp_err_msg(), what);
    cp_st_free(&f);
    free(b);
}

static void test_truncated(void **state)
{
    (void)state;
    cp_st_file f;
    static const unsigned char five[5] = {1, 2, 3, 4, 5};
    assert_int_equal(cp_st_parse(five, 5, "t.safetensors", &f), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "t.safetensors: truncated"));
    cp_st_free(&f);
    assert_int_equal(cp_st_parse(five, 0, "t.safetensors", &f), CP_FAIL_USAGE);
    cp_st_free(&f);
    /* A valid file cut anywhere inside is refused, never read past its end. */
    size_t size;
    unsigned char *b =
        mk("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, &size);
    assert_int_equal(cp_st_parse(b, size, "t.safetensors", &f), CP_OK);
    cp_st_free(&f);
    for (size_t cut = 0; cut < size; ++cut) {
        unsigned char *c = malloc(cut ? cut : 1);
        assert_non_null(c);
        memcpy(c, b, cut);
        assert_int_equal(cp_st_parse(c, cut, "t.safetensors", &f), CP_FAIL_USAGE);
        cp_st_free(&f);
        free(c);
    }
    free(b);
}

static void test_header_length(void **state)
{
    (void)state;
    size_t size;
    unsigned char *b = mk("{}", 0, &size);
    b[0] = 0xff; /* 255 bytes of header, in a 10-byte file */
    cp_st_file f;
    assert_int_equal(cp_st_parse(b, size, "h.safetensors", &f), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "h.safetensors: header length 255 goes beyond the file"));
    cp_st_free(&f);
    memset(b, 0xff, 8); /* 2^64 - 1 */
    assert_int_equal(cp_st_parse(b, size, "h.safetensors", &f), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "goes beyond the file"));
    cp_st_free(&f);
    free(b);
}

static void test_bad_json(void **state)
{
    (void)state;
    expect_bad("{\"a\":", 0, "bad JSON header");
    expect_bad("{\"a\":{}} x", 0, "unexpected bytes after the JSON");
    expect_bad("[1, 2]", 0, "not a JSON object");
    expect_bad("nope", 0, "bad JSON header");
    expect_bad("{", 0, "bad JSON header");
    expect_bad("\"a\"", 0, "not a JSON object");
    expect_bad("{\"a\":3}", 0, "is not a JSON object");
}

static void test_dtype(void **state)
{
    (void)state;
    expect_bad("{\"a\":{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
               "unknown dtype 'F33'");
    expect_bad("{\"a\":{\"dtype\":3,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "no dtype string");
    expect_bad("{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "no dtype string");
    /* A known dtype other than F32 where F32 is needed. */
    size_t size;
    unsigned char *b =
        mk("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4, &size);
    cp_st_file f;
    assert_int_equal(cp_st_parse(b, size, "d.safetensors", &f), CP_OK);
    float out[2];
    assert_int_equal(cp_st_get_f32(&f, cp_st_find(&f, "a"), out), CP_FAIL_USAGE);
    assert_string_equal(cp_err_msg(), "d.safetensors: tensor 'a' is F16, where F32 is needed");
    cp_st_free(&f);
    free(b);
}

static void test_offsets(void **state)
{
    (void)state;
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[16],\"data_offsets\":[0,64]}}", 16,
               "data_offsets [0, 64] out of range (the data section holds 16 bytes)");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,4]}}", 16,
               "out of range");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}", 16,
               "data_offsets are not integers in [0, 2^53)");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0.5,4.5]}}", 16,
               "data_offsets are not integers");
    /* 2^53 + 1 parses as 2^53 in a double: anything from 2^53 up is refused. */
    expect_bad("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],"
               "\"data_offsets\":[9007199254740993,9007199254740994]}}",
               16, "data_offsets are not integers in [0, 2^53)");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,1e300]}}", 16,
               "data_offsets are not integers");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 16,
               "no data_offsets [begin, end]");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[\"0\",\"4\"]}}", 16,
               "data_offsets are not integers");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
               12, "tensors 'a' and 'b' overlap");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
               4, "overlap");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8,
               "a gap of 4 bytes in the data before tensor 'a'");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 8,
               "4 trailing bytes after the last tensor");
}

static void test_shape(void **state)
{
    (void)state;
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,12]}}", 16,
               "shape and size disagree: 4 elements of F32 need 16 bytes, data_offsets span 12");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4294967296],"
               "\"data_offsets\":[0,4]}}",
               4, "absurd dimensions");
    expect_bad("{\"a\":{\"dtype\":\"F64\",\"shape\":[1125899906842624,4096],"
               "\"data_offsets\":[0,8]}}",
               8, "absurd dimensions");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[9007199254740992],\"data_offsets\":[0,4]}}", 4,
               "shape[0] is not an integer in [0, 2^53)");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4,
               "shape[0] is not an integer");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 4,
               "shape[0] is not an integer");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}",
               4, "9 dimensions, more than 8");
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":3,\"data_offsets\":[0,4]}}", 4,
               "no shape array");
    /* A zero dimension next to a huge one is an empty tensor, not an overflow. */
    size_t size;
    unsigned char *b = mk("{\"a\":{\"dtype\":\"F32\",\"shape\":[0,4503599627370496],"
                          "\"data_offsets\":[0,0]}}",
                          0, &size);
    cp_st_file f;
    assert_int_equal(cp_st_parse(b, size, "z.safetensors", &f), CP_OK);
    assert_int_equal(f.t[0].count, 0);
    cp_st_free(&f);
    free(b);
}

static void test_names_and_metadata(void **state)
{
    (void)state;
    expect_bad("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
               "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
               8, "tensor 'a' appears twice");
    expect_bad("{\"__metadata__\":[1]}", 0, "__metadata__ is not a JSON object");
    expect_bad("{\"__metadata__\":{\"k\":1}}", 0, "__metadata__ value 'k' is not a string");
    expect_bad("{\"__metadata__\":{},\"__metadata__\":{}}", 0, "__metadata__ appears twice");
    /* Control bytes in a name are not printed raw. */
    expect_bad("{\"a\\u0001b\":{\"dtype\":\"X\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
               "tensor 'a?b' has an unknown dtype 'X'");
}

static void test_valid(void **state)
{
    (void)state;
    size_t size;
    unsigned char *b = mk("{\"__metadata__\":{\"format\":\"pt\",\"clparity.arch\":\"x\"},"
                          "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]},"
                          "\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}  ",
                          24, &size);
    cp_st_file f;
    assert_int_equal(cp_st_parse(b, size, "v.safetensors", &f), CP_OK);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.arch, "x");
    const cp_st_tensor *a = cp_st_find(&f, "a"), *bt = cp_st_find(&f, "b");
    assert_non_null(a);
    assert_non_null(bt);
    assert_null(cp_st_find(&f, "c"));
    assert_int_equal(a->ndim, 2);
    assert_int_equal(a->count, 4);
    float v[4];
    assert_int_equal(cp_st_get_f32(&f, a, v), CP_OK);
    assert_true(v[0] == 1.0f && v[3] == 4.0f);
    assert_int_equal(cp_st_get_f32(&f, bt, v), CP_OK);
    assert_true(v[0] == 5.0f && v[1] == 6.0f);
    cp_st_free(&f);
    free(b);
}

static void test_read_file(void **state)
{
    (void)state;
    cp_st_file f;
    assert_int_equal(cp_st_read("/nonexistent/m.safetensors", &f), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "/nonexistent/m.safetensors: cannot open"));
    cp_st_free(&f);
    char path[] = "/tmp/clparity-st-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t size;
    unsigned char *b =
        mk("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, &size);
    FILE *fp = fdopen(fd, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(b, 1, size - 1, fp), size - 1); /* one byte short */
    fclose(fp);
    assert_int_equal(cp_st_read(path, &f), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), path));
    assert_non_null(strstr(cp_err_msg(), "out of range"));
    cp_st_free(&f);
    remove(path);
    free(b);
}

/* ---- models from files --------------------------------------------------------------- */

/* A file from a header whose tensors are laid out in order, each `n` floats. */
static int load(const char *json, size_t data_len, const cp_arch_opts *a, cp_model *m,
                const char **from)
{
    size_t size;
    unsigned char *b = mk(json, data_len, &size);
    cp_st_file f;
    int st = cp_st_parse(b, size, "m.safetensors", &f);
    if (st == CP_OK)
        st = cp_model_from_safetensors(m, &f, a, from);
    cp_st_free(&f);
    free(b);
    return st;
}

static const cp_arch_opts AUTO = {CP_ARCH_AUTO, -1, -1};

/* An MLP 3 -> 2 -> 1 with biases: 6 + 2 + 2 + 1 floats. */
#define MLP_JSON                                                                                   \
    "{\"0.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"                   \
    "\"0.bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[24,32]},"                       \
    "\"2.weight\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[32,40]},"                   \
    "\"2.bias\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[40,44]}"

static void test_model_mlp(void **state)
{
    (void)state;
    cp_model m;
    const char *from = NULL;
    assert_int_equal(load(MLP_JSON "}", 44, &AUTO, &m, &from), CP_OK);
    assert_non_null(strstr(from, "nn.Sequential"));
    assert_int_equal(m.n_layers, 2);
    assert_int_equal(m.in_width, 3);
    assert_int_equal(m.out_width, 1);
    assert_int_equal(m.max_width, 3);
    assert_true(m.layers[0].has_bias && m.layers[1].has_bias);
    assert_int_equal(m.layers[0].act, CP_ACT_RELU);
    assert_int_equal(m.layers[1].act, CP_ACT_NONE);
    assert_false(m.layers[0].residual || m.layers[1].residual);
    assert_true(m.params[m.layers[0].b_off] == 7.0f && m.params[m.layers[1].w_off] == 9.0f);
    cp_model_free(&m);
    /* --act none: every hidden layer; the last has none anyway. */
    cp_arch_opts a = {CP_ARCH_AUTO, CP_ACT_NONE, -1};
    assert_int_equal(load(MLP_JSON "}", 44, &a, &m, &from), CP_OK);
    assert_int_equal(m.layers[0].act, CP_ACT_NONE);
    assert_string_equal(from, "--act");
    cp_model_free(&m);
    /* --arch dumb on an MLP's names: there is no block. */
    a = (cp_arch_opts){CP_ARCH_DUMB, -1, -1};
    assert_int_equal(load(MLP_JSON "}", 44, &a, &m, &from), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "m.safetensors: no tensor named blocks.N.net.0.weight"));
    /* --residual on where no layer is square changes nothing. */
    a = (cp_arch_opts){CP_ARCH_MLP, -1, 1};
    assert_int_equal(load(MLP_JSON "}", 44, &a, &m, &from), CP_OK);
    assert_false(m.layers[0].residual || m.layers[1].residual);
    cp_model_free(&m);
}

#define DUMB_JSON                                                                                  \
    "{\"blocks.1.net.0.weight\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[16,32]},"     \
    "\"blocks.0.net.0.weight\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}"

static void test_model_dumb(void **state)
{
    (void)state;
    cp_model m;
    const char *from = NULL;
    assert_int_equal(load(DUMB_JSON "}", 32, &AUTO, &m, &from), CP_OK);
    assert_non_null(strstr(from, "the post's model"));
    assert_int_equal(m.n_layers, 2);
    for (int l = 0; l < 2; ++l) {
        assert_int_equal(m.layers[l].act, CP_ACT_RELU);
        assert_true(m.layers[l].residual);
        assert_false(m.layers[l].has_bias);
    }
    /* blocks in numeric order, whatever the header's order */
    assert_true(m.params[m.layers[0].w_off] == 1.0f && m.params[m.layers[1].w_off] == 5.0f);
    cp_model_free(&m);
    cp_arch_opts a = {CP_ARCH_AUTO, CP_ACT_NONE, 0};
    assert_int_equal(load(DUMB_JSON "}", 32, &a, &m, &from), CP_OK);
    assert_true(m.layers[1].act == CP_ACT_NONE && !m.layers[1].residual);
    cp_model_free(&m);
    /* a gap in the block numbers */
    assert_int_equal(load("{\"blocks.0.net.0.weight\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_"
                          "offsets\":[0,16]},"
                          "\"blocks.2.net.0.weight\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_"
                          "offsets\":[16,32]}}",
                          32, &AUTO, &m, &from),
                     CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "blocks.1.net.0.weight is missing"));
    /* a residual where in != out */
    assert_int_equal(load("{\"blocks.0.net.0.weight\":{\"dtype\":\"F32\",\"shape\":[2,4],\"data_"
                          "offsets\":[0,32]}}",
                          32, &AUTO, &m, &from),
                     CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "a residual needs in == out, not 4 -> 2"));
    /* F16 weights */
    assert_int_equal(load("{\"blocks.0.net.0.weight\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_"
                          "offsets\":[0,8]}}",
                          8, &AUTO, &m, &from),
                     CP_FAIL_USAGE);
    assert_string_equal(
        cp_err_msg(), "m.safetensors: tensor 'blocks.0.net.0.weight' is F16, where F32 is needed");
}

static void test_model_errors(void **state)
{
    (void)state;
    cp_model m;
    const char *from;
    /* widths that do not chain */
    assert_int_equal(
        load("{\"0.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
             "\"1.weight\":{\"dtype\":\"F32\",\"shape\":[1,3],\"data_offsets\":[24,36]}}",
             36, &AUTO, &m, &from),
        CP_FAIL_USAGE);
    assert_non_null(
        strstr(cp_err_msg(), "layer 1 ('1.weight') takes 3 inputs, but layer 0 gives 2"));
    /* a bias of the wrong size */
    assert_int_equal(
        load("{\"0.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
             "\"0.bias\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[24,36]}}",
             36, &AUTO, &m, &from),
        CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "bias '0.bias' must be 1-D [2]"));
    /* a 1-D weight */
    assert_int_equal(
        load("{\"0.weight\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}}", 12, &AUTO,
             &m, &from),
        CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "must be 2-D [out, in]"));
    /* nothing to go by */
    assert_int_equal(load("{\"w\":{\"dtype\":\"F32\",\"shape\":[1,1],\"data_offsets\":[0,4]}}", 4,
                          &AUTO, &m, &from),
                     CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "cannot tell the architecture"));
}

static void test_model_metadata(void **state)
{
    (void)state;
    cp_model m;
    const char *from;
    /* export_torch.py's key: it wins over the names (which say MLP: relu after layer 0). */
    const char *json =
        "{\"__metadata__\":{\"clparity.arch\":\"{\\\"version\\\": 1, \\\"layers\\\": ["
        "{\\\"weight\\\": \\\"0.weight\\\", \\\"bias\\\": null, \\\"act\\\": \\\"none\\\", "
        "\\\"residual\\\": false}, {\\\"weight\\\": \\\"2.weight\\\", \\\"bias\\\": "
        "\\\"2.bias\\\", "
        "\\\"act\\\": \\\"relu\\\", \\\"residual\\\": false}]}\"},"
        "\"0.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
        "\"0.bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[24,32]},"
        "\"2.weight\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[32,40]},"
        "\"2.bias\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[40,44]}}";
    assert_int_equal(load(json, 44, &AUTO, &m, &from), CP_OK);
    assert_string_equal(from, "the metadata clparity.arch");
    assert_false(m.layers[0].has_bias); /* the metadata names no bias for layer 0 */
    assert_int_equal(m.layers[0].act, CP_ACT_NONE);
    assert_int_equal(m.layers[1].act, CP_ACT_RELU);
    assert_true(m.layers[1].has_bias);
    cp_model_free(&m);
    /* --arch wins over the metadata */
    cp_arch_opts a = {CP_ARCH_MLP, -1, -1};
    assert_int_equal(load(json, 44, &a, &m, &from), CP_OK);
    assert_int_equal(m.layers[0].act, CP_ACT_RELU);
    assert_true(m.layers[0].has_bias);
    cp_model_free(&m);
    /* bad metadata */
    assert_int_equal(
        load("{\"__metadata__\":{\"clparity.arch\":\"[1\"},"
             "\"0.weight\":{\"dtype\":\"F32\",\"shape\":[1,1],\"data_offsets\":[0,4]}}",
             4, &AUTO, &m, &from),
        CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "m.safetensors: metadata clparity.arch is not"));
    assert_int_equal(
        load("{\"__metadata__\":{\"clparity.arch\":\"{\\\"version\\\":1,\\\"layers\\\":"
             "[{\\\"weight\\\":\\\"nope\\\",\\\"bias\\\":null,\\\"act\\\":\\\"relu\\\","
             "\\\"residual\\\":false}]}\"},"
             "\"0.weight\":{\"dtype\":\"F32\",\"shape\":[1,1],\"data_offsets\":[0,4]}}",
             4, &AUTO, &m, &from),
        CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "layer 0: no tensor 'nope'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_header_length),
        cmocka_unit_test(test_bad_json),
        cmocka_unit_test(test_dtype),
        cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_shape),
        cmocka_unit_test(test_names_and_metadata),
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_model_mlp),
        cmocka_unit_test(test_model_dumb),
        cmocka_unit_test(test_model_errors),
        cmocka_unit_test(test_model_metadata),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
