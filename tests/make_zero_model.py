#!/usr/bin/env python3
"""Writes an MLP in safetensors whose outputs are exact zeros of both signs, for the correctly
rounded trainers' sums whose every term is a zero (cr.cl's cr_tr_zero, host:cr's cr_dot_zero):
make_zero_model.py OUT.safetensors.

nn.Sequential(Linear(7, 5, bias=False), ReLU, Linear(5, 3, bias=False)) names: layer "0"'s
weights all +0, so its outputs are zeros and the ReLU makes them +0; layer "2"'s row 0 all
negative (each product with +0 is -0: the output is -0), row 1 all positive (+0), row 2 of both
signs (+0). Every gradient is then a zero too, so no update moves a weight (at lr 0 not even
a zero's sign: fma(g, -0, p) = p for p = +0 as for any nonzero p), and the forward of the final
weights still has those outputs."""
import sys

import numpy as np

from make_tiny_model import write_safetensors


def main():
    w2 = np.array([[-1.0, -0.5, -2.0, -0.25, -3.0],
                   [1.0, 0.5, 2.0, 0.25, 3.0],
                   [1.0, -0.5, 2.0, -0.25, 3.0]], dtype=np.float32)
    write_safetensors(sys.argv[1], {"0.weight": np.zeros((5, 7), dtype=np.float32),
                                    "2.weight": w2})


if __name__ == "__main__":
    main()
