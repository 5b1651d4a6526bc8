#!/usr/bin/env python3
"""Writes a post-style model with biases (every layer d x d, bias, ReLU, residual: a uniform
model, for which cl:own's reg kernel takes the layer table as build-time constants) and an
input. Usage: make_uniform_bias.py OUT.safetensors X.npy D LAYERS BATCH

write_safetensors() is the tests' and tools/ci/vendors.py's safetensors writer."""
import json
import struct
import sys

import numpy as np


def write_safetensors(path, tensors, metadata=None):
    """tensors: name -> array, written as little-endian float32 in that order; metadata: the
    header's __metadata__ (str -> str), e.g. {"clparity.arch": json.dumps(arch)}."""
    header, blobs, off = ({"__metadata__": metadata} if metadata else {}), [], 0
    for name, t in tensors.items():
        b = np.ascontiguousarray(t, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def main(argv):
    out, xout, d, layers, batch = argv[1], argv[2], *map(int, argv[3:6])
    rng = np.random.default_rng(5)
    tensors = {}
    for l in range(layers):
        tensors[f"blocks.{l}.net.0.weight"] = (rng.standard_normal((d, d)) / np.sqrt(d)).astype(np.float32)
        tensors[f"blocks.{l}.net.0.bias"] = (rng.standard_normal(d) * 0.1).astype(np.float32)
    write_safetensors(out, tensors)
    np.save(xout, rng.standard_normal((batch, d)).astype(np.float32))


if __name__ == "__main__":
    main(sys.argv)
