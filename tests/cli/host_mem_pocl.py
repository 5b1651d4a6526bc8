#!/usr/bin/env python3
"""cl:own on PoCL keeps its buffers in host memory: run must count them (with the model's own
copy and the upload's staging copy) against MemAvailable and refuse, before any work, a model
whose device footprint fits PoCL's global memory but whose total does not fit the host.
Picks d = 4096 and the fewest layers that overflow the host; skips (77) where PoCL's global
memory is too small for such a model to pass the device check. Usage: host_mem_pocl.py CLPARITY"""
import json
import subprocess
import sys
import time

clp = sys.argv[1]
devs = json.loads(subprocess.run([clp, "devices", "--json", "-"], capture_output=True,
                                 text=True, check=True).stdout)["devices"]
pocl = [d for d in devs if d["kind"] == "opencl" and "PoCL" in d["platform_version"]]
if not pocl:
    sys.exit("no PoCL device")
glob = pocl[0]["global_mem_bytes"]
avail = next(int(l.split()[1]) * 1024 for l in open("/proc/meminfo") if l.startswith("MemAvailable:"))
d = 4096
layer = 4 * d * d  # bytes of one layer's weights
# host: the model (1x), PoCL's two copies (2x), the staging copy (1x); device: 2x
layers = avail // (4 * layer) + 2
if 2 * layers * layer > 0.9 * glob:
    print(f"skip: {layers} layers of d={d} would not fit PoCL's {glob} bytes either")
    sys.exit(77)
cmd = [clp, "run", "-d", "0:0", "--engines", "cl:own", "--no-reference", "--d-model", str(d),
       "--layers", str(layers), "--runs", "1", "--warmup", "0"]
t0 = time.monotonic()
try:
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
except subprocess.TimeoutExpired:
    sys.exit(f"FAIL: {' '.join(cmd)} was not refused within 30 s (it started the work)")
print(" ".join(cmd), "->", res.returncode, f"in {time.monotonic() - t0:.2f} s")
print(res.stderr.strip())
if res.returncode != 2 or not res.stderr.startswith("clparity run: model too large for host memory"):
    sys.exit("FAIL: expected status 2 and 'model too large for host memory'")
print("ok")
