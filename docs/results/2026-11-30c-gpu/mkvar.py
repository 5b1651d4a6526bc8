#!/usr/bin/env python3
"""Timing-only copies of clkernels/ with one part of cl:cr's work taken out (issue 34, rows 2-4:
where does a layer's time go?). Their outputs are WRONG: they are for timing, never for bits.
   mkvar.py SRC_DIR DEST_DIR   (writes DEST_DIR/<variant>/*.cl)"""
import os, shutil, sys

src, dest = sys.argv[1], sys.argv[2]
CUTS = {
    # the device-wide barrier: no arrival, no wait (groups run ahead)
    "nobar": [("grid_sync.cl", "        atomic_inc(&ctl[2]);\n", "        shared[2] = 1;\n    }\n    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n    return true;\n    if (0) {\n")],
    # the first certificate: the double sum rounded, no sqrt, no neighbours' test
    "nocert": [("cr.cl", "    double b = cr_f2d(bias); /* 0u", "    *v = as_uint(convert_float(s)); return true;\n    double b = cr_f2d(bias); /* 0u")],
    # only the double sqrt of the certificate
    "nosqrt": [("cr.cl", "scale * (sqrt(xx) * as_double(wn)", "scale * (xx * as_double(wn)")],
    # the work-group's tree of partial sums
    "notree": [("cr.cl", "    for (int h = CR_WG / 2; h > 0; h >>= 1) {\n        if (lid < h)\n            for (int r = 0; r < R; ++r)",
                "    for (int h = 0; h > 0; h >>= 1) {\n        if (lid < h)\n            for (int r = 0; r < R; ++r)")],
    # activations read as plain (not volatile) global memory
    "novol": [("cr.cl", "typedef volatile __global const uint *cr_x_rd;", "typedef __global const uint *cr_x_rd;")],
    # no prefetch hint before the barrier
    "nopf": [("cr.cl", "            cr_stream_prefetch(p, d + 8, me, batch);\n", "")],
    # gemm/tiles: no sum of squares of the x tile
    "nosq": [("cr.cl", "        if (tid < CR_TM)\n            for (int kk = 0; kk < CR_TK; ++kk) {", "        if (tid < 0)\n            for (int kk = 0; kk < CR_TK; ++kk) {")],
}
# the fallbacks (second certificate, exact sum) dropped, every certificate still computed: the
# code, and so the registers, the kernels would have with the fallback in a launch of its own
CUTS["nofb"] = [("cr.cl", "    for (bool some = slot[CR_NT] != 0; some;) {", "    for (bool some = false; some;) {"),
                ("cr.cl", "    for (int j = 0; j < CR_OB && o0 + j < out; ++j) {\n#ifdef CR_F64\n        if (!fail[j])",
                 "    for (int j = 0; j < 0 && o0 + j < out; ++j) {\n#ifdef CR_F64\n        if (!fail[j])")]
CUTS["nobar_cert_tree"] = CUTS["nobar"] + CUTS["nocert"] + CUTS["notree"]
CUTS["nocert_tree"] = CUTS["nocert"] + CUTS["notree"]
for name, cuts in CUTS.items():
    d = os.path.join(dest, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(src, d)
    for f, a, b in cuts:
        p = os.path.join(d, f)
        t = open(p).read()
        assert t.count(a) == 1, (name, f, a)
        open(p, "w").write(t.replace(a, b))
print(" ".join(CUTS))
