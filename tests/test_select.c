/* runtime/select: every selector form, every error, precedence and the default set, on a
 * made-up device list (no OpenCL needed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clparity/engine.h"
#include "clparity/format.h"
#include "clparity/select.h"

#include <stdio.h>
#include <string.h>

/* P0 Oclgrind (a simulator claiming every type), P1 PoCL (CPU named "pthread-gpu-1"),
 * P2 NVIDIA with two GPUs, then host. */
static cp_devlist make_list(cp_device *v)
{
    memset(v, 0, 5 * sizeof *v);
    struct {
        int p, d;
        const char *plat, *pvendor, *name, *vendor;
        cl_device_type type;
        bool sim;
    } rows[] = {
        {0, 0, "Oclgrind", "Oclgrind", "Oclgrind Simulator", "Oclgrind",
         CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR, true},
        {1, 0, "Portable Computing Language", "The pocl project", "pthread-gpu-1", "AuthenticAMD",
         CL_DEVICE_TYPE_CPU, false},
        {2, 0, "NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA H100 80GB HBM3", "NVIDIA Corporation",
         CL_DEVICE_TYPE_GPU, false},
        {2, 1, "NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA A100-SXM4", "NVIDIA Corporation",
         CL_DEVICE_TYPE_GPU, false},
    };
    for (int i = 0; i < 4; ++i) {
        v[i].kind = CP_DEV_OPENCL;
        v[i].plat_idx = rows[i].p;
        v[i].dev_idx = rows[i].d;
        snprintf(v[i].platform, sizeof v[i].platform, "%s", rows[i].plat);
        snprintf(v[i].platform_vendor, sizeof v[i].platform_vendor, "%s", rows[i].pvendor);
        snprintf(v[i].name, sizeof v[i].name, "%s", rows[i].name);
        snprintf(v[i].vendor, sizeof v[i].vendor, "%s", rows[i].vendor);
        v[i].type = rows[i].type;
        v[i].simulator = rows[i].sim;
    }
    v[4].kind = CP_DEV_HOST;
    v[4].plat_idx = v[4].dev_idx = -1;
    snprintf(v[4].name, sizeof v[4].name, "host");
    cp_devlist l = {.v = v, .n = 5};
    return l;
}

/* Selects and returns the chosen set as a 5-character mask string like "01001". */
static int sel(const char *const *sels, size_t n, const char *env, char mask[6])
{
    cp_device v[5];
    cp_devlist l = make_list(v);
    bool chosen[5];
    int st = cp_select(&l, sels, n, env, chosen);
    for (int i = 0; i < 5; ++i)
        mask[i] = chosen[i] ? '1' : '0';
    mask[5] = '\0';
    return st;
}

static void expect(const char *selector, const char *want)
{
    char mask[6];
    const char *s[] = {selector};
    assert_int_equal(sel(s, 1, NULL, mask), CP_OK);
    assert_string_equal(mask, want);
}

static void expect_error(const char *selector, const char *needle)
{
    char mask[6];
    const char *s[] = {selector};
    assert_int_equal(sel(s, 1, NULL, mask), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), needle));
}

static void test_keywords(void **state)
{
    (void)state;
    expect("all", "11111");
    expect("ALL", "11111");
    expect("host", "00001");
    expect("gpu", "00110"); /* the simulator's claim to be a GPU is passed over */
    expect("cpu", "01000");
    expect("Cpu", "01000");
    expect_error("accelerator", "'accelerator' matches no device");
}

static void test_indices(void **state)
{
    (void)state;
    expect("0", "10000"); /* a simulator is included by index */
    expect("1", "01000");
    expect("2", "00110");
    expect("2:1", "00010");
    expect("1:0", "01000");
    expect_error("2:5", "'2:5' matches no device");
    expect_error("7", "'7' matches no device");
}

static void test_names(void **state)
{
    (void)state;
    expect("h100", "00100");
    expect("NVIDIA", "00110");       /* platform and device names */
    expect("the pocl", "01000");     /* platform vendor */
    expect("authenticamd", "01000"); /* device vendor */
    expect("oclgrind", "10000");     /* a simulator is included by name */
    expect("Portable Computing", "01000");
    expect_error("nosuchdevice", "'nosuchdevice' matches no device");
    /* "2:x" is not an index: it is a name, and no name holds it */
    expect_error("2:x", "'2:x' matches no device");
}

static void test_precedence(void **state)
{
    (void)state;
    /* "gpu" is a keyword before it is a substring of "pthread-gpu-1" */
    expect("gpu", "00110");
    /* "1" is an index before it is a substring of "pthread-gpu-1" */
    expect("1", "01000");
    /* "-1" is no index: it is a name, found in "pthread-gpu-1" */
    expect("-1", "01000");
}

static void test_lists(void **state)
{
    (void)state;
    char mask[6];
    expect("host,1", "01001");
    expect("host, 2:0 ", "00101"); /* blanks around an item are ignored */
    const char *rep[] = {"host", "h100", "0"};
    assert_int_equal(sel(rep, 3, NULL, mask), CP_OK);
    assert_string_equal(mask, "10101");
    expect_error("host,,1", "empty device selector");
    expect_error("host,nosuch", "'nosuch' matches no device");
    expect_error("", "empty device selector");
}

static void test_default(void **state)
{
    (void)state;
    char mask[6];
    /* every non-simulator device plus host */
    assert_int_equal(sel(NULL, 0, NULL, mask), CP_OK);
    assert_string_equal(mask, "01111");
    assert_int_equal(sel(NULL, 0, "", mask), CP_OK);
    assert_string_equal(mask, "01111");
    /* CLPARITY_DEVICES replaces the default... */
    assert_int_equal(sel(NULL, 0, "gpu,host", mask), CP_OK);
    assert_string_equal(mask, "00111");
    /* ...but not explicit selectors */
    const char *s[] = {"1"};
    assert_int_equal(sel(s, 1, "gpu", mask), CP_OK);
    assert_string_equal(mask, "01000");
    /* a bad CLPARITY_DEVICES is an error that names the variable */
    assert_int_equal(sel(NULL, 0, "nosuch", mask), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "CLPARITY_DEVICES"));
    assert_non_null(strstr(cp_err_msg(), "'nosuch'"));
}

/* cp_nearest, the one "did you mean" of every list of words (options, commands, engines,
 * selectors): within 2 edits (a swap of neighbours is one) and under half the letters, no tie. */
static const char *hint(const char *given, const char *words)
{
    static char buf[128];
    cp_nearest nr;
    cp_nearest_start(&nr, given, strlen(given));
    cp_nearest_offer_list(&nr, words);
    cp_nearest_hint(&nr, "", buf, sizeof buf);
    return buf;
}

static void test_nearest(void **state)
{
    (void)state;
    assert_string_equal(hint("cl:onw", "cl:own,cl:cr,host:exact"), " (did you mean 'cl:own'?)");
    assert_string_equal(hint("compre", "run,compare,cache"), " (did you mean 'compare'?)");
    assert_string_equal(hint("lst", "list,clear"), " (did you mean 'list'?)");
    assert_string_equal(hint("gpuu", "all,host,gpu,cpu,accelerator"), " (did you mean 'gpu'?)");
    assert_string_equal(hint("xpu", "gpu,cpu"), "");           /* a tie: no guess */
    assert_string_equal(hint("list", "list,clear"), "");       /* the word itself */
    assert_string_equal(hint("frobnicate", "list,clear"), ""); /* nothing near */
    assert_string_equal(hint("ab", "abcd"), "");               /* 2 edits of 4 letters: half */
    assert_string_equal(hint("abcd", "abcde"), " (did you mean 'abcde'?)");
    cp_nearest nr;
    cp_nearest_start(&nr, "batchs", 6);
    cp_nearest_offer(&nr, "batch", 5);
    cp_nearest_offer(&nr, "seed", 4);
    char buf[64];
    cp_nearest_hint(&nr, "--", buf, sizeof buf);
    assert_string_equal(buf, " (did you mean '--batch'?)");
    size_t len;
    assert_non_null(cp_nearest_best(&nr, &len));
    assert_int_equal(len, 5);
}

/* The label that clparity prints selects its device, whole or cut short ("..."), in any case;
 * the name must be that device's. */
static void test_labels(void **state)
{
    (void)state;
    expect("2:0 NVIDIA H100 80GB HBM3", "00100");
    expect("2:1 nvidia a100-sxm4", "00010");
    expect("2:0 NVIDIA H1...", "00100");
    expect("2:0 NVIDIA H100 8", "00100");         /* cut as a table's column cuts it */
    expect("2:0 NVIDIA H1\xe2\x80\xa6", "00100"); /* "…" */
    expect("1:0 pthread-gpu-1", "01000");
    expect("host,2:0 NVIDIA H100 80GB HBM3", "00101");
    /* the right index with another device's name: the label of no device */
    expect_error("2:0 NVIDIA A100-SXM4", "'2:0 NVIDIA A100-SXM4' matches no device");
    expect_error("2:0 ...", "matches no device");
}

/* A selector that matches nothing: one line, with what there is and the fix. */
static void test_no_match_line(void **state)
{
    (void)state;
    cp_device v[5];
    cp_devlist l = make_list(v);
    /* PoCL and host only (the CI machine): no GPU */
    cp_devlist one = {.v = &v[1], .n = 4};
    one.v[1] = v[4];
    one.n = 2;
    bool chosen[5];
    const char *gpu[] = {"gpu"};
    assert_int_equal(cp_select(&one, gpu, 1, NULL, chosen), CP_FAIL_USAGE);
    assert_string_equal(cp_err_msg(),
                        "device selector 'gpu' matches no device: no GPU: OpenCL shows 1 device "
                        "(1:0 pthread-gpu-1, CPU) and the host; use -d 1:0, -d cpu or -d host "
                        "('clparity devices' lists them)");
    /* a slip in a keyword: the nearest; none for the keyword itself */
    const char *slip[] = {"gpuu"};
    assert_int_equal(cp_select(&one, slip, 1, NULL, chosen), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "'gpuu' matches no device (did you mean 'gpu'?): "));
    assert_null(strstr(cp_err_msg(), "no GPU"));
    /* the whole list: a simulator is named so, three devices are, and the fix is the first
     * device that is no simulator */
    l = make_list(v);
    const char *acc[] = {"accelerator"};
    assert_int_equal(cp_select(&l, acc, 1, NULL, chosen), CP_FAIL_USAGE);
    assert_string_equal(cp_err_msg(),
                        "device selector 'accelerator' matches no device: no accelerator: OpenCL "
                        "shows 4 devices (0:0 Oclgrind Simulator, simulator; 1:0 pthread-gpu-1, "
                        "CPU; 2:0 NVIDIA H100 80GB HBM3, GPU; and 1 more) and the host; use -d "
                        "1:0, -d cpu or -d host ('clparity devices' lists them)");
    assert_null(strchr(cp_err_msg(), '\n'));
}

/* What is wrong with the environment (cp_devlist.env_note) follows the error of a selector or an
 * OpenCL engine that matches nothing. */
static void test_env_note(void **state)
{
    (void)state;
    cp_device v[5];
    cp_devlist l = make_list(v);
    l.n = 1; /* only host: no OpenCL platform */
    l.v = &v[4];
    snprintf(l.env_note, sizeof l.env_note,
             "no OpenCL platform found (OCL_ICD_VENDORS=/x: no "
             ".icd file there)");
    bool chosen[1];
    const char *s[] = {"gpu"};
    assert_int_equal(cp_select(&l, s, 1, NULL, chosen), CP_FAIL_USAGE);
    assert_string_equal(cp_err_msg(), "device selector 'gpu' matches no device: no OpenCL platform "
                                      "found (OCL_ICD_VENDORS=/x: no .icd file there)");
    assert_int_equal(cp_select(&l, NULL, 0, NULL, chosen), CP_OK);
    bool use[64];
    assert_true(cp_engine_count() <= 64);
    assert_int_equal(cp_select_engines("cl:own", &l, chosen, use), CP_FAIL_USAGE);
    assert_non_null(strstr(cp_err_msg(), "cl:own applies to no selected device (it runs on OpenCL "
                                         "devices): no OpenCL platform found (OCL_ICD_VENDORS=/x"));
    /* -d host asked for no OpenCL device: the note is not the cause */
    const char *h[] = {"host"};
    assert_int_equal(cp_select(&l, h, 1, NULL, chosen), CP_OK);
    assert_int_equal(cp_select_engines("cl:own", &l, chosen, use), CP_FAIL_USAGE);
    assert_null(strstr(cp_err_msg(), "no OpenCL platform found"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keywords),      cmocka_unit_test(test_indices),
        cmocka_unit_test(test_names),         cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_lists),         cmocka_unit_test(test_default),
        cmocka_unit_test(test_env_note),      cmocka_unit_test(test_labels),
        cmocka_unit_test(test_no_match_line), cmocka_unit_test(test_nearest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
