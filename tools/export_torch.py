#!/usr/bin/env python3
"""Saves a PyTorch module of clparity's model family as safetensors, with the architecture.

The family: a stack of nn.Linear layers (optional bias), each followed by nn.ReLU or nothing
(nn.Identity), with an optional residual y = x + f(x) where in == out. export() accepts
- an nn.Sequential of Linear, ReLU and Identity modules (nested Sequentials are flattened);
- a module whose child `blocks` is a ModuleList/Sequential of residual blocks, each block a
  module with a child `net` (an nn.Sequential as above) computing x + net(x): the model of
  the CPU-vs-GPU post;
- such blocks, or Sequentials, mixed inside an nn.Sequential.
The weights are written as float32, and the metadata key `clparity.arch` holds a JSON
string: {"version": 1, "layers": [{"weight": NAME, "bias": NAME or null,
"act": "relu" or "none", "residual": true or false}, ...]} in forward order.

    from export_torch import export
    model = torch.nn.Sequential(torch.nn.Linear(64, 10), torch.nn.ReLU(), torch.nn.Linear(10, 3))
    export(model, "model.safetensors")
"""
import json
import sys

import torch
from safetensors.torch import save_file


def _walk(mod, prefix, layers):
    nn = torch.nn
    if isinstance(mod, nn.Linear):
        bias = prefix + "bias" if mod.bias is not None else None
        layers.append({"weight": prefix + "weight", "bias": bias, "act": "none",
                       "residual": False})
    elif isinstance(mod, nn.ReLU):
        if not layers or layers[-1]["act"] != "none":
            raise ValueError(f"{prefix}: ReLU must follow a Linear layer")
        layers[-1]["act"] = "relu"
    elif isinstance(mod, (nn.Identity, nn.Dropout)):
        pass  # identity at inference
    elif isinstance(mod, (nn.Sequential, nn.ModuleList)):
        for name, child in mod.named_children():
            _walk(child, f"{prefix}{name}.", layers)
    elif isinstance(getattr(mod, "net", None), nn.Sequential):
        # A residual block x + net(x), as in the post: exactly one square Linear inside.
        n = len(layers)
        _walk(mod.net, prefix + "net.", layers)
        w = mod.net[0].weight
        if len(layers) != n + 1 or w.shape[0] != w.shape[1]:
            raise ValueError(f"{prefix}: a residual block needs one square Linear")
        layers[-1]["residual"] = True
    elif hasattr(mod, "blocks"):
        _walk(mod.blocks, prefix + "blocks.", layers)
    else:
        raise ValueError(f"{prefix}: {type(mod).__name__} is not in the model family")


def arch_of(module):
    """The list of layers that clparity.arch describes."""
    layers = []
    _walk(module, "", layers)
    if not layers:
        raise ValueError("the model has no Linear layer")
    return {"version": 1, "layers": layers}


def export(module, path):
    arch = arch_of(module)
    state = module.state_dict()
    names = [n for layer in arch["layers"] for n in (layer["weight"], layer["bias"]) if n]
    tensors = {n: state[n].detach().cpu().float().contiguous() for n in names}
    save_file(tensors, path, metadata={"clparity.arch": json.dumps(arch)})
    return arch


if __name__ == "__main__":  # export_torch.py MODULE.pt OUT.safetensors (a torch.save'd module)
    export(torch.load(sys.argv[1], weights_only=False).eval(), sys.argv[2])
