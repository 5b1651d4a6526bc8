"""clparity from Python: run a model's Linear layers on every OpenCL device and the host,
and compare the results, through libclparity (ctypes; numpy for the arrays).

    import numpy as np, clparity
    layers = [clparity.Linear(w1, b1, act="relu"), clparity.Linear(w2, b2)]
    cmp = clparity.compare(layers, x, devices="pocl,host")
    for r in cmp.results:
        print(r.id, r.device, r.engine, r.metrics["max_ulp"], r.output.shape)
    print(cmp.pairwise_bitwise)      # fraction of bit-equal outputs, result by result
    print(cmp.verdicts["bitwise"])   # True or False, as in compare --json
    print(cmp.failures["bitwise"])   # the results that fail it
    print(cmp.report)                # the report of `clparity compare`

Names and types are those of `clparity compare --json` ("comparison"): a result's id,
device, engine, dtype, deterministic and roundtrip (True, False or None: not measured),
metrics {compared, max_ulp, median_ulp, max_abs, max_rel, rel_to_max, norm_rel, bitwise,
baseline_bitwise, argmax, nan, inf, nan_mismatch, cr_bitwise, cr_max_ulp} with JSON's null as
None and counts as int (bitwise, baseline_bitwise and cr_bitwise are fractions of the outputs,
as in the JSON; cr_bitwise and cr_max_ulp, against host:cr, are there when it ran), mismatches
{torch, clblast, bitwise, cr} (cr, against host:cr, when it ran); the comparison's verdicts
{torch, clblast, bitwise, cr, checks} are booleans, cr None when no cl:cr or host:cr result was
selected (the JSON's null: cr judges only those); .speed is the comparison's "speed" (None with fewer than two timed results, else
{basis, fastest (int, a result's index), fastest_name, others: [{index (int), name, ratio,
ratio_sd, within_noise (bool), text}]}). A result's .timing is its "timing" in the JSON's
top-level "results" (None for a result that failed), every name the JSON has: wall_median_s,
wall_mean_s, wall_sd_s, wall_min_s, wall_max_s, wall_p10_s, wall_p90_s, wall_ci_low_s,
wall_ci_high_s, wall_ci_level, runs (int), measured_s, spread, noisy (bool), noise_cause (str or
None), kernel_median_s (None: not measured), h2d_median_s, d2h_median_s, build_s, build_cache
(str or None), upload_s, warmup (int), gflops (None: unknown); numbers other than counts are
float; .routine is the top-level results' "routine". Beyond the JSON: .output and .failures
{preset: failing results}.
Earlier builds of 0.1.0 held those lists in .verdicts: use .failures now. r.baseline_bitwise
stays as an alias of r.metrics["baseline_bitwise"].

Weights are [out, in] float32 (as PyTorch stores nn.Linear.weight), inputs [batch, in]
float32. `devices` takes what `clparity -d` takes: "all", "host", "gpu", "cpu", "P:D", a
name substring, a comma list (None: $CLPARITY_DEVICES, else every non-simulator device plus
host). layers_from_torch(module) reads an nn.Sequential of Linear / ReLU / Identity without
importing torch.

The library is found as $CLPARITY_LIBRARY, else beside this file after `pip install .`
(site-packages/clparity.libs/libclparity.so.0, built by setup.py), else beside this file in a
CMake installation (PREFIX/lib/python3/clparity.py -> PREFIX/lib/libclparity.so.0), else in the
build folder of a source tree (tools/python -> build/), else by the system's loader.

r.max_ulp is metrics["max_ulp"], or REF for host:f64 (the reference), which prints as `ref`,
as in compare's table; r.is_reference is True for it.
"""

import ctypes
import json
import math
import os

import numpy as np

__all__ = ["Linear", "Result", "Comparison", "Error", "REF", "compare", "layers_from_torch",
           "version"]

# enum cp_status, enum cp_dtype, enum cp_act, enum cp_preset
OK, FAIL_CHECK, FAIL_USAGE, FAIL_RUNTIME = 0, 1, 2, 3
_F32, _F64 = 0, 1
_ACT = {"none": 0, None: 0, "relu": 1}
PRESETS = {"torch": 0, "clblast": 1, "bitwise": 2, "cr": 3}
EXPECT_NONE = -1
METRICS = ("compared", "max_ulp", "median_ulp", "max_abs", "max_rel", "rel_to_max", "norm_rel",
           "bitwise", "argmax", "nan", "inf", "nan_mismatch")
# The JSON's integers (counts), and its numbers that are null when unknown (NaN here).
_INTS = ("compared", "max_ulp", "nan", "inf", "nan_mismatch", "runs", "warmup", "fastest",
         "index", "cr_max_ulp")
_NULLABLE = ("max_ulp", "median_ulp", "max_abs", "max_rel", "rel_to_max", "norm_rel",
             "kernel_median_s")
# A result's .timing, in the JSON's order (read from the library's JSON, so always the JSON's).
TIMINGS = ("wall_median_s", "wall_mean_s", "wall_sd_s", "wall_min_s", "wall_max_s", "wall_p10_s",
           "wall_p90_s", "wall_ci_low_s", "wall_ci_high_s", "wall_ci_level", "runs", "measured_s",
           "spread", "noisy", "noise_cause", "kernel_median_s", "h2d_median_s", "d2h_median_s",
           "build_s", "build_cache", "upload_s", "warmup", "gflops")


class _Ref:
    """REF: the reference's own max ULP (host:f64 is the reference it would be measured
    against). It prints as `ref`, as compare's table does, in any format ("{:4.0f}" gives
    " ref"), and is falsy, as None is."""
    __slots__ = ()

    def __repr__(self):
        return "ref"

    __str__ = __repr__

    def __bool__(self):
        return False

    def __format__(self, spec):
        width = "".join(c for c in spec.split(".")[0] if c.isdigit()).lstrip("0")
        return format("ref", ("<" if spec[:1] == "<" else ">") + width)


REF = _Ref()


class Error(RuntimeError):
    """A libclparity call failed: .status is the exit status (2 usage, 3 runtime)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class _Opts(ctypes.Structure):
    """struct cp_job_opts (clparity/job.h), field for field."""
    _fields_ = [
        ("selectors", ctypes.POINTER(ctypes.c_char_p)),
        ("n_selectors", ctypes.c_size_t),
        ("engines", ctypes.c_char_p),
        ("d", ctypes.c_long),
        ("layers", ctypes.c_long),
        ("batch", ctypes.c_long),
        ("seed", ctypes.c_uint64),
        ("init_scale", ctypes.c_double),
        ("runs", ctypes.c_long),
        ("warmup", ctypes.c_long),
        ("compare", ctypes.c_bool),
        ("equal_nan", ctypes.c_bool),
        ("invariance", ctypes.c_bool),
        ("allow_slow", ctypes.c_bool),
        ("no_reference", ctypes.c_bool),
        ("hash_early", ctypes.c_bool),
        ("model_file", ctypes.c_char_p),
        ("input_file", ctypes.c_char_p),
        ("labels_file", ctypes.c_char_p),
        ("min_time", ctypes.c_double),
    ]


def _find_library():
    if os.environ.get("CLPARITY_LIBRARY"):
        return os.environ["CLPARITY_LIBRARY"]
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "clparity.libs", "libclparity.so.0"),  # pip install .
                 os.path.join(here, "..", "libclparity.so.0"),
                 os.path.join(here, "..", "..", "build", "libclparity.so.0")):
        if os.path.exists(cand):
            return os.path.normpath(cand)
    return "libclparity.so.0"


def _bind(lib):
    P, S, I, D, B = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_double, ctypes.c_bool
    F = ctypes.POINTER(ctypes.c_float)
    sig = {
        "cp_version": (ctypes.c_char_p, []),
        "cp_err_msg": (ctypes.c_char_p, []),
        "cp_model_new": (P, []),
        "cp_model_add_layer": (I, [P, I, I, F, F, I, B]),
        "cp_model_delete": (None, [P]),
        "cp_job_opts_default": (None, [ctypes.POINTER(_Opts)]),
        "cp_job_create": (I, [ctypes.POINTER(_Opts), ctypes.POINTER(P)]),
        "cp_job_destroy": (None, [P]),
        "cp_job_set_model": (I, [P, P, ctypes.c_char_p, ctypes.c_char_p]),
        "cp_job_set_input": (I, [P, F, ctypes.c_long, ctypes.c_long]),
        "cp_job_run": (I, [P]),
        "cp_job_result_count": (S, [P]),
        "cp_job_result_engine": (ctypes.c_char_p, [P, S]),
        "cp_job_result_routine": (ctypes.c_char_p, [P, S]),
        "cp_job_result_device": (None, [P, S, ctypes.c_char_p, S]),
        "cp_job_result_output": (P, [P, S, ctypes.POINTER(I)]),
        "cp_job_result_value": (D, [P, S, ctypes.c_char_p]),
        "cp_job_result_timing_json": (I, [P, S, ctypes.POINTER(P)]),
        "cp_comparison_from_job": (I, [P, ctypes.POINTER(P)]),
        "cp_comparison_destroy": (None, [P]),
        "cp_comparison_pair": (I, [P, S, S, ctypes.POINTER(D), ctypes.POINTER(ctypes.c_uint64)]),
        "cp_comparison_baseline_bitwise": (D, [P, S]),
        "cp_comparison_cr_bitwise": (D, [P, S]),
        "cp_comparison_cr_ulp": (ctypes.c_uint64, [P, S]),
        "cp_comparison_mismatches": (S, [P, S, I]),
        "cp_comparison_failures": (S, [P, I, ctypes.c_char_p, S]),
        "cp_comparison_verdict": (B, [P, I]),
        "cp_comparison_preset_applies": (B, [P, I]),
        "cp_comparison_report": (I, [P, B, I, ctypes.POINTER(ctypes.c_void_p)]),
        "cp_comparison_speed_json": (I, [P, ctypes.POINTER(P)]),
        "cp_free": (None, [P]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


_lib = None


def _l():
    global _lib
    if _lib is None:
        _lib = _bind(ctypes.CDLL(_find_library()))
    return _lib


def _check(st):
    if st != OK:
        raise Error(st, _l().cp_err_msg().decode("utf-8", "replace"))


def version():
    return _l().cp_version().decode()


class Linear:
    """One layer y = [x +] act(x·Wᵀ + b): w [out, in], b [out] or None, act "relu" or "none",
    residual only where in == out."""

    def __init__(self, w, b=None, act="none", residual=False):
        self.w = np.ascontiguousarray(w, dtype=np.float32)
        if self.w.ndim != 2:
            raise ValueError("a weight is 2-D [out, in], not %r" % (self.w.shape,))
        self.b = None if b is None else np.ascontiguousarray(b, dtype=np.float32).reshape(-1)
        if act not in _ACT:
            raise ValueError("act is 'relu' or 'none', not %r" % (act,))
        self.act, self.residual = act, bool(residual)


def layers_from_torch(module):
    """The Linear layers of an nn.Sequential (Linear, ReLU, Identity, nested Sequentials), as
    Linear objects: a ReLU after a Linear becomes its activation."""
    layers = []
    mods = [m for m in module.modules() if not list(m.children())]
    for m in mods:
        kind = type(m).__name__
        if kind == "Linear":
            w = m.weight.detach().cpu().float().numpy()
            b = None if m.bias is None else m.bias.detach().cpu().float().numpy()
            layers.append(Linear(w, b))
        elif kind == "ReLU":
            if not layers or layers[-1].act != "none":
                raise ValueError("a ReLU must follow a Linear layer")
            layers[-1].act = "relu"
        elif kind not in ("Identity", "Dropout", "Flatten"):
            raise ValueError("clparity runs Linear, ReLU and Identity layers, not %s" % kind)
    if not layers:
        raise ValueError("the module has no Linear layer")
    return layers


def _json_value(name, v):
    """A value as compare --json writes it: null (None) for an unknown number, int counts."""
    if v != v:  # NaN
        return None if name in _NULLABLE else v
    return int(v) if name in _INTS else v


def _typed(v):
    """A value parsed from the library's JSON text, typed as the JSON means it: counts int, other
    numbers float (JSON text writes 2.0 as 2), null None, in every nested object and list."""
    if isinstance(v, dict):
        return {k: (int(x) if k in _INTS else float(x))
                if isinstance(x, (int, float)) and not isinstance(x, bool) else _typed(x)
                for k, x in v.items()}
    if isinstance(v, list):
        return [_typed(x) for x in v]
    return v


def _json_call(fn, *args):
    """The JSON text that a libclparity call writes (cp_free'd here), parsed and typed."""
    text = ctypes.c_void_p()
    _check(fn(*args, ctypes.byref(text)))
    try:
        return _typed(json.loads(ctypes.string_at(text).decode("utf-8", "replace")))
    finally:
        _l().cp_free(text)


def _tristate(v):
    """1, 0 or NaN (not measured) as the JSON's true, false or null."""
    return None if v != v else bool(v)


class Result:
    """One device x engine, named as in compare --json: .id ("R1"), .device ("0:0 pthread-..."
    or "host"), .engine ("cl:own"), .routine (what ran, as the JSON's "routine": "path cpu1",
    "CLBlastSgemv + cp_epilogue", ...), .dtype ("<f4", "<f8"), .deterministic and .roundtrip
    (True, False or None), .metrics against host:f64 (compared, max_ulp, ..., bitwise and
    baseline_bitwise: fractions of the outputs bit-equal to ref32 and to host:exact; empty for
    host:f64, whose JSON metrics are null), .mismatches {torch, clblast, bitwise, cr}; and
    .timing, the JSON's "timing" of the result (wall_median_s, ..., spread, noisy, noise_cause,
    ..., gflops; None for a result that failed); and .output (numpy, [batch, out]; float64 for
    host:f64)."""

    @property
    def is_reference(self):
        """host:f64, the float64 reference the others are measured against."""
        return self.dtype == "<f8"

    @property
    def max_ulp(self):
        """The max ULP against host:f64 (metrics["max_ulp"]: an int, or None when nothing was
        compared), and REF for host:f64 itself, which prints as `ref` as compare's table does."""
        return REF if self.is_reference else self.metrics.get("max_ulp")

    @property
    def baseline_bitwise(self):
        """An alias kept for older scripts: metrics["baseline_bitwise"] (None for host:f64)."""
        return self.metrics.get("baseline_bitwise")

    def __repr__(self):
        return "<Result %s %s %s %s>" % (self.id, self.device, self.engine, self.max_ulp)


class Comparison:
    """Every result, the pairwise matrices between float32 results (.pairwise_ids,
    .pairwise_bitwise, .pairwise_max_ulp: the JSON's pairwise ids, bitwise and max_ulp),
    .verdicts {torch, clblast, bitwise, cr, checks: True when every result passes, as in the
    JSON; cr judges only the cl:cr and host:cr results and is None without one}, .speed (the
    JSON's speed verdict: basis, fastest, fastest_name, others; None with fewer than two timed
    results), .failures {torch, clblast, bitwise, cr: the results that fail it}, and .report,
    the text of `clparity compare`."""


def _as_input(x):
    if hasattr(x, "detach"):  # a torch tensor
        x = x.detach().cpu().numpy()
    x = np.ascontiguousarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x.reshape(1, -1)
    if x.ndim != 2:
        raise ValueError("inputs are [batch, in], not %r" % (x.shape,))
    return x


def compare(layers, x, devices=None, engines=None, runs=3, warmup=1, equal_nan=False):
    """Runs the layers (a list of Linear, or a torch module) on x on every selected device x
    engine, with host:f64 (the reference) and host:exact (the baseline), and compares them.
    Nothing is written to disk."""
    lib = _l()
    if not isinstance(layers, (list, tuple)):
        layers = layers_from_torch(layers)
    x = _as_input(x)
    fp = ctypes.POINTER(ctypes.c_float)
    model = lib.cp_model_new()
    if not model:
        raise Error(FAIL_RUNTIME, "out of memory")
    job = ctypes.c_void_p()
    cmp = ctypes.c_void_p()
    try:
        for ly in layers:
            out_w, in_w = ly.w.shape
            b = ly.b.ctypes.data_as(fp) if ly.b is not None else None
            _check(lib.cp_model_add_layer(model, in_w, out_w, ly.w.ctypes.data_as(fp), b,
                                          _ACT[ly.act], ly.residual))
        opts = _Opts()
        lib.cp_job_opts_default(ctypes.byref(opts))
        sels = [s.encode() for s in ([devices] if isinstance(devices, str) else devices or [])]
        sel_arr = (ctypes.c_char_p * (len(sels) + 1))(*sels)
        opts.selectors, opts.n_selectors = sel_arr, len(sels)
        opts.engines = engines.encode() if engines else None
        opts.runs, opts.warmup = int(runs), int(warmup)
        opts.compare, opts.equal_nan = True, bool(equal_nan)
        _check(lib.cp_job_create(ctypes.byref(opts), ctypes.byref(job)))
        _check(lib.cp_job_set_model(job, model, b"the Python module", None))
        _check(lib.cp_job_set_input(job, x.ctypes.data_as(fp), x.shape[0], x.shape[1]))
        _check(lib.cp_job_run(job))
        _check(lib.cp_comparison_from_job(job, ctypes.byref(cmp)))
        return _collect(lib, job, cmp, (x.shape[0], layers[-1].w.shape[0]))
    finally:
        lib.cp_comparison_destroy(cmp)
        lib.cp_job_destroy(job)
        lib.cp_model_delete(model)


def _collect(lib, job, cmp, shape):
    c = Comparison()
    c.results = []
    buf = ctypes.create_string_buffer(512)
    for i in range(lib.cp_job_result_count(job)):
        r = Result()
        r.id = "R%d" % (i + 1)
        r.engine = lib.cp_job_result_engine(job, i).decode()
        r.routine = lib.cp_job_result_routine(job, i).decode()
        lib.cp_job_result_device(job, i, buf, len(buf))
        r.device = buf.value.decode("utf-8", "replace")
        dt = ctypes.c_int()
        ptr = lib.cp_job_result_output(job, i, ctypes.byref(dt))
        f32 = dt.value == _F32
        ctype = ctypes.c_float if f32 else ctypes.c_double
        # a copy: the job and its outputs are freed when compare() returns
        r.output = np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctype)),
                                         shape=shape).copy()
        r.dtype = "<f4" if f32 else "<f8"
        r.metrics = {k: _json_value(k, lib.cp_job_result_value(job, i, k.encode()))
                     for k in METRICS} if f32 else {}
        if f32:  # in the JSON's order: after bitwise
            items = list(r.metrics.items())
            at = [k for k, _ in items].index("bitwise") + 1
            items.insert(at, ("baseline_bitwise", lib.cp_comparison_baseline_bitwise(cmp, i)))
            crb = lib.cp_comparison_cr_bitwise(cmp, i)  # NaN: no host:cr (as the JSON's absence)
            if not math.isnan(crb):  # in the JSON's order: last
                items.append(("cr_bitwise", crb))
                items.append(("cr_max_ulp", int(lib.cp_comparison_cr_ulp(cmp, i))))
            r.metrics = dict(items)
        r.timing = _json_call(lib.cp_job_result_timing_json, job, i)
        r.deterministic = _tristate(lib.cp_job_result_value(job, i, b"deterministic"))
        r.roundtrip = _tristate(lib.cp_job_result_value(job, i, b"roundtrip"))
        # cr: against host:cr, only where it ran (as the JSON)
        r.mismatches = {p: int(lib.cp_comparison_mismatches(cmp, i, v))
                        for p, v in PRESETS.items()
                        if p != "cr" or not math.isnan(lib.cp_comparison_cr_bitwise(cmp, i))
                        } if f32 else {}
        c.results.append(r)
    ids = [i for i, r in enumerate(c.results) if r.output.dtype == np.float32]
    c.pairwise_ids = ["R%d" % (i + 1) for i in ids]
    c.pairwise_bitwise = np.zeros((len(ids), len(ids)))
    c.pairwise_max_ulp = np.zeros((len(ids), len(ids)), dtype=np.uint64)
    bw, ulp = ctypes.c_double(), ctypes.c_uint64()
    for a, i in enumerate(ids):
        for b, k in enumerate(ids):
            _check(lib.cp_comparison_pair(cmp, i, k, ctypes.byref(bw), ctypes.byref(ulp)))
            c.pairwise_bitwise[a, b], c.pairwise_max_ulp[a, b] = bw.value, ulp.value
    c.verdicts, c.failures = {}, {}
    names = ctypes.create_string_buffer(4096)
    for p, v in PRESETS.items():
        lib.cp_comparison_failures(cmp, v, names, len(names))
        c.failures[p] = [s for s in names.value.decode("utf-8", "replace").split(", ") if s]
        # None: nothing to judge (cr without a cl:cr or host:cr result), the JSON's null
        c.verdicts[p] = (bool(lib.cp_comparison_verdict(cmp, v))
                         if lib.cp_comparison_preset_applies(cmp, v) else None)
    # checks: every run gave the same hash and the weights survived the round trip
    c.verdicts["checks"] = bool(lib.cp_comparison_verdict(cmp, len(PRESETS)))
    c.speed = _json_call(lib.cp_comparison_speed_json, cmp)
    text = ctypes.c_void_p()
    _check(lib.cp_comparison_report(cmp, False, EXPECT_NONE, ctypes.byref(text)))
    c.report = ctypes.string_at(text).decode("utf-8", "replace")
    lib.cp_free(text)
    return c
