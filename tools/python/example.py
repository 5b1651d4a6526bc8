"""The Python example of docs/LIBRARY.md: a 2-layer MLP (64 -> 128 relu -> 10) with biases,
compared on PoCL and the host. Run from the source tree, after building:
    PYTHONPATH=tools/python python3 tools/python/example.py
(the module finds build/libclparity.so.0; set CLPARITY_LIBRARY to use another)."""
import numpy as np

import clparity

rng = np.random.default_rng(0)
layers = [clparity.Linear(rng.standard_normal((128, 64), dtype=np.float32) / 8,
                          rng.standard_normal(128, dtype=np.float32), act="relu"),
          clparity.Linear(rng.standard_normal((10, 128), dtype=np.float32) / 11)]
x = rng.standard_normal((32, 64), dtype=np.float32)

cmp = clparity.compare(layers, x, devices="pocl,host")
for r in cmp.results:
    print(f"{r.device[:30]:30} {r.engine:14} {str(r.output.shape):8} "
          f"max ULP {r.max_ulp:4}  =host:exact {r.baseline_bitwise}")
print(cmp.pairwise_ids)
print(cmp.pairwise_bitwise.round(3))
print("failing bitwise:", cmp.verdicts["bitwise"])
