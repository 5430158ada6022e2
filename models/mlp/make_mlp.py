#!/usr/bin/python3
"""Exports the README's bundled model: a PyTorch MLP (Linear -> GELU -> Linear -> Softmax).

Run with Debian's python3 (torch 1.13 CPU, onnx):  /usr/bin/python3 models/mlp/make_mlp.py
Writes model.onnx (opset 14) and test_data_set_0/{input_0.pb,output_0.pb} next to this file;
the expected output is torch's own forward pass (float32).
"""
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)


class MLP(torch.nn.Module):
    def __init__(self, d_in=64, d_hidden=256, d_out=32):
        super().__init__()
        self.fc1 = torch.nn.Linear(d_in, d_hidden)
        self.act = torch.nn.GELU()
        self.fc2 = torch.nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return torch.softmax(self.fc2(self.act(self.fc1(x))), dim=-1)


model = MLP().eval()
x = torch.randn(16, 64)
with torch.no_grad():
    y = model(x)
path = os.path.join(here, "model.onnx")
torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["probs"],
                  opset_version=14, do_constant_folding=True)
onnx.checker.check_model(onnx.load(path))
ds = os.path.join(here, "test_data_set_0")
os.makedirs(ds, exist_ok=True)
for name, t, arr in (("input_0.pb", "x", x), ("output_0.pb", "probs", y)):
    with open(os.path.join(ds, name), "wb") as f:
        f.write(numpy_helper.from_array(arr.numpy().astype(np.float32), t).SerializeToString())
print("wrote", path, "and", ds)
