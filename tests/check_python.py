"""The Python module from an installation (issue 14, acceptance 2): imported from PREFIX, it
runs a 3-layer model (biases, ReLU, a residual, in != out) on PoCL and host, and cl:own must
give the bits of host:exact; the metrics, the pairwise matrix and the report come back too.
A stand-in for a PyTorch nn.Sequential (torch is not installed here) checks
layers_from_torch. Usage: check_python.py PREFIX"""
import glob
import os
import sys

import numpy as np

prefix = os.path.abspath(sys.argv[1])
mods = glob.glob(os.path.join(prefix, "lib*", "**", "clparity.py"), recursive=True)
assert len(mods) == 1, mods
sys.path.insert(0, os.path.dirname(mods[0]))
os.environ.pop("CLPARITY_LIBRARY", None)
import clparity  # noqa: E402

assert os.path.abspath(clparity.__file__).startswith(prefix), clparity.__file__
assert clparity._find_library().startswith(prefix), clparity._find_library()
print("clparity", clparity.version(), "from", clparity.__file__)

rng = np.random.default_rng(1337)
w1 = (rng.standard_normal((48, 20)) / np.sqrt(20)).astype(np.float32)
b1 = rng.standard_normal(48).astype(np.float32)
w2 = (rng.standard_normal((48, 48)) / np.sqrt(48)).astype(np.float32)
w3 = (rng.standard_normal((10, 48)) / np.sqrt(48)).astype(np.float32)
b3 = rng.standard_normal(10).astype(np.float32)
layers = [clparity.Linear(w1, b1, act="relu"),
          clparity.Linear(w2, None, act="relu", residual=True),
          clparity.Linear(w3, b3)]
x = rng.standard_normal((16, 20)).astype(np.float32)

cmp = clparity.compare(layers, x, devices="pocl,host", runs=2, warmup=1)
print(cmp.report)
by = {(("host" if r.device == "host" else "pocl"), r.engine): r for r in cmp.results}
own, exact, ref = by[("pocl", "cl:own")], by[("host", "host:exact")], by[("host", "host:f64")]
assert own.output.shape == (16, 10) and own.output.dtype == np.float32
assert ref.output.dtype == np.float64 and ref.metrics == {}
# the reference's max ULP is REF, shown as compare's table shows it: "ref" (issue 36)
assert ref.is_reference and ref.max_ulp is clparity.REF and f"{ref.max_ulp:>4}" == " ref"
assert not own.is_reference and own.max_ulp == own.metrics["max_ulp"]
assert np.array_equal(own.output.view(np.uint32), exact.output.view(np.uint32)), \
    "cl:own on PoCL differs from host:exact"
assert own.baseline_bitwise == 1.0 and exact.baseline_bitwise == 1.0
# what ran: the JSON's "routine" (batch 16: SGEMM on the host)
assert own.routine.startswith("path "), own.routine
assert by[("host", "host:openblas")].routine == "cblas_sgemm", by[("host", "host:openblas")].routine
assert own.metrics["max_ulp"] == exact.metrics["max_ulp"]
# against an independent float64 forward in NumPy, within torch's float32 tolerance
a = x.astype(np.float64)
a = np.maximum(a @ w1.T.astype(np.float64) + b1, 0)
a = a + np.maximum(a @ w2.T.astype(np.float64), 0)
a = a @ w3.T.astype(np.float64) + b3
assert np.allclose(ref.output, a, rtol=1e-12, atol=1e-12), abs(ref.output - a).max()
assert np.all(np.abs(own.output - a) <= 1e-5 + 1.3e-6 * np.abs(a))
ids = cmp.pairwise_ids
i, k = ids.index("R%d" % (cmp.results.index(own) + 1)), ids.index(
    "R%d" % (cmp.results.index(exact) + 1))
assert cmp.pairwise_bitwise[i, k] == 1.0 and cmp.pairwise_max_ulp[i, k] == 0
assert cmp.failures["torch"] == [], cmp.failures
assert "verdicts:" in cmp.report and "cl:own" in cmp.report

# The names and types of compare --json's "comparison" (issue 22): the same run through the
# command line, result by result, key by key; verdicts are booleans, as in the JSON.
import json  # noqa: E402
import subprocess  # noqa: E402

clp = os.path.join(prefix, "bin", "clparity")
sel = "host"
mine = clparity.compare(layers, x, devices=sel, engines="host:exact,host:openblas,host:f64",
                        runs=2, warmup=0)
assert set(mine.verdicts) == {"torch", "clblast", "bitwise", "cr", "checks"}, mine.verdicts
# cr judges only cl:cr and host:cr results: None (the JSON's null) without one
assert mine.verdicts["cr"] is None, mine.verdicts
assert all(isinstance(v, bool) for k, v in mine.verdicts.items() if k != "cr"), mine.verdicts
crc = clparity.compare(layers, x, devices=sel, engines="host:cr,host:exact", runs=2, warmup=0)
assert crc.verdicts["cr"] is True and crc.failures["cr"] == [], (crc.verdicts, crc.failures)
assert [r.mismatches["cr"] for r in crc.results if r.engine == "host:cr"] == [0], crc.results
assert isinstance(cmp.verdicts["bitwise"], bool) and cmp.verdicts["torch"] is True
assert own.metrics["baseline_bitwise"] == 1.0 and own.baseline_bitwise == 1.0
assert isinstance(own.metrics["max_ulp"], int) and isinstance(own.metrics["nan"], int)
assert own.id == "R%d" % (cmp.results.index(own) + 1) and own.dtype == "<f4"
assert own.deterministic is True and own.roundtrip is True, (own.deterministic, own.roundtrip)
assert exact.roundtrip is None  # host engines have no round trip: null in the JSON
ob = [r for r in mine.results if r.engine == "host:openblas"][0]
assert isinstance(ob.metrics["baseline_bitwise"], float) and 0 <= ob.metrics["baseline_bitwise"] <= 1
# The JSON of the same results (the model's weights are not files here, so compare the keys and
# value types of a built-in model's run with the Python results' own)
js = os.path.join(prefix, "py_cmp.json")
subprocess.run([clp, "compare", "-d", sel, "--engines", "host:exact,host:openblas",
                "--d-model", "8", "--layers", "1", "--runs", "2", "--warmup", "0",
                "--json", js], check=True, capture_output=True)
jall = json.load(open(js))
jc = jall["comparison"]


def same_kind(name, mine_v, json_v):
    """A Python value has the JSON's type for that name: the same type, or both numbers where the
    name is not a count (JSON text writes 0.0 as 0), or either null where the other run measured
    it (noise_cause, gflops: the two runs' loads differ)."""
    if type(mine_v) is type(json_v):
        return True
    if {type(mine_v), type(json_v)} <= {int, float} and name not in clparity._INTS:
        return type(mine_v) is float  # the binding's non-counts are float
    return (mine_v is None) != (json_v is None) and name in ("noise_cause", "gflops",
                                                              "kernel_median_s")


# .timing has exactly the names of the JSON's results[].timing, in its order, with its types
# (issue 22: wall_ci_level, measured_s, spread, noisy, noise_cause, ...); runs is an int
for jr in jall["results"]:
    pr = [r for r in mine.results if r.engine == jr["engine"]][0]
    assert list(pr.timing) == list(jr["timing"]), \
        ("timing names", sorted(set(pr.timing) ^ set(jr["timing"])))
    assert list(pr.timing) == list(clparity.TIMINGS), sorted(set(pr.timing) ^ set(clparity.TIMINGS))
    for k, v in jr["timing"].items():
        assert same_kind(k, pr.timing[k], v), ("timing", k, pr.timing[k], v)
    assert isinstance(pr.timing["runs"], int) and pr.timing["runs"] == 2, pr.timing["runs"]
    assert type(jr["timing"]["runs"]) is int, jr["timing"]["runs"]
    assert pr.timing["wall_min_s"] <= pr.timing["wall_median_s"] <= pr.timing["wall_max_s"]
    assert isinstance(pr.timing["noisy"], bool) and pr.timing["warmup"] == 0
# compare's own results[].timing is a part of it
for jr in jc["results"]:
    pr = [r for r in mine.results if r.engine == jr["engine"]][0]
    assert set(jr["timing"]) <= set(pr.timing), set(jr["timing"]) - set(pr.timing)
# .speed is the comparison's "speed": the same names and types, nested ones included
assert jc["speed"] is not None and mine.speed is not None, (jc["speed"], mine.speed)


def same_shape(path, mine_v, json_v):
    if isinstance(json_v, dict):
        assert isinstance(mine_v, dict) and list(mine_v) == list(json_v), \
            (path, "names", sorted(set(mine_v or ()) ^ set(json_v)))
        for k in json_v:
            same_shape(path + "." + k, mine_v[k], json_v[k])
    elif isinstance(json_v, list):
        assert isinstance(mine_v, list) and mine_v and json_v, (path, mine_v, json_v)
        for m in mine_v:
            same_shape(path + "[]", m, json_v[0])
    else:
        assert same_kind(path.rsplit(".", 1)[-1], mine_v, json_v), (path, mine_v, json_v)


same_shape("speed", mine.speed, jc["speed"])
assert mine.speed["basis"] == "median wall time"
assert 0 <= mine.speed["fastest"] < len(mine.results)
assert mine.speed["fastest_name"].startswith("R%d " % (mine.speed["fastest"] + 1))
assert {o["index"] for o in mine.speed["others"]} | {mine.speed["fastest"]} == \
    set(range(len(mine.results))), mine.speed
assert all(o["ratio"] >= 1.0 for o in mine.speed["others"]), mine.speed
assert set(jc["verdicts"]) == set(mine.verdicts), (jc["verdicts"], mine.verdicts)
assert jc["verdicts"]["cr"] is None and mine.verdicts["cr"] is None, jc["verdicts"]
for jr in jc["results"]:
    pr = [r for r in mine.results if r.engine == jr["engine"]][0]
    assert pr.id == jr["id"] and pr.dtype == jr["dtype"], (pr.id, jr["id"], pr.dtype, jr["dtype"])
    for k in ("deterministic", "roundtrip"):
        assert type(getattr(pr, k)) is type(jr[k]), (k, getattr(pr, k), jr[k])
    if jr["metrics"] is None:
        assert pr.metrics == {}
        continue
    jm = {k: v for k, v in jr["metrics"].items() if k != "worst"}
    assert list(pr.metrics) == list(jm), (list(pr.metrics), list(jm))
    for k, v in jm.items():
        assert type(pr.metrics[k]) is type(v) or (v is None) == (pr.metrics[k] is None) or \
            {type(v), type(pr.metrics[k])} <= {int, float} and k not in clparity._INTS, \
            (k, pr.metrics[k], v)
    assert set(pr.mismatches) == set(jr["mismatches"]), (pr.mismatches, jr["mismatches"])


# layers_from_torch without torch: objects shaped like nn.Linear / nn.ReLU / nn.Sequential.
class _T:
    def __init__(self, a):
        self.a = a

    def detach(self):
        return self

    def cpu(self):
        return self

    def float(self):
        return self

    def numpy(self):
        return self.a


class Linear:
    def __init__(self, w, b):
        self.weight, self.bias = _T(w), None if b is None else _T(b)

    def children(self):
        return []


class ReLU:
    def children(self):
        return []


class Sequential:
    def __init__(self, *m):
        self.m = m

    def children(self):
        return list(self.m)

    def modules(self):
        return [self] + list(self.m)


seq = Sequential(Linear(w1, b1), ReLU(), Linear(w3[:, :48], b3))
ls = clparity.layers_from_torch(seq)
assert [(ly.w.shape, ly.act, ly.b is not None) for ly in ls] == [((48, 20), "relu", True),
                                                                  ((10, 48), "none", True)]
cmp2 = clparity.compare(seq, x, devices="host", engines="host:exact,host:f64", runs=1, warmup=0)
assert [r.engine for r in cmp2.results] == ["host:exact", "host:f64"]

# errors carry the status and the library's message
try:
    clparity.compare(layers, x, devices="nosuchdevice")
    raise AssertionError("a selector that matches nothing must fail")
except clparity.Error as e:
    assert e.status == 2 and "nosuchdevice" in str(e), (e.status, str(e))
print("check_python: OK")
