#!/usr/bin/python3
"""Exports make_models.py's models with a dynamic batch axis, the way users export them
(torch.onnx.export with dynamic_axes={"input_0": {0: "batch"}, ...}), for issue 19's bounded
symbolic dims (docs/symbolic-shapes.md): aicc-compile MODEL --dim batch=1..8; and the GPT
block at batch 1 and 2 with a dynamic sequence (gpt_block_dynseq, gpt_block_b2_dynseq:
--dim seq=1..64).

Run with Debian's python3 (torch 1.13 CPU):  /usr/bin/python3 models/torch/make_dynamic_models.py
For each model writes NAME_dynbatch_opset17/model.onnx and test_data_set_K/{input_*,output_0}.pb
at batch sizes 1, 3 and 8 (expected outputs from torch's eager forward pass, float32).
"""
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper

import make_models as mm

here = os.path.dirname(os.path.abspath(__file__))
BATCHES = (1, 3, 8)


def write_data_set(d, k, model, inputs, names):
    """d/test_data_set_k: the inputs and model(*inputs) (float32) as TensorProto files."""
    t = os.path.join(d, "test_data_set_%d" % k)
    os.makedirs(t, exist_ok=True)
    with torch.no_grad():
        out = model(*inputs)
    for i, x in enumerate(inputs):
        with open(os.path.join(t, "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(x.numpy(), names[i]).SerializeToString())
    with open(os.path.join(t, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(out.numpy().astype(np.float32), "output_0")
                .SerializeToString())


def export(name, make, shapes, dim="batch", sizes=BATCHES, lead=()):
    """`make()` builds the module; `shapes` are the inputs' shapes after the dynamic dim,
    `lead` the static dims before it."""
    torch.manual_seed(0)
    model = make()
    model.eval()
    d = os.path.join(here, "%s_dyn%s_opset17" % (name, dim))
    names = ["input_%d" % i for i in range(len(shapes))]
    g = torch.Generator().manual_seed(2)
    example = [torch.randn(*lead, 2, *s, generator=g) for s in shapes]
    axes = {n: {len(lead): dim} for n in names}
    axes["output_0"] = {len(lead): dim}
    os.makedirs(d, exist_ok=True)
    torch.onnx.export(model, tuple(example), os.path.join(d, "model.onnx"), input_names=names,
                      output_names=["output_0"], opset_version=17, do_constant_folding=True,
                      dynamic_axes=axes)
    onnx.checker.check_model(onnx.load(os.path.join(d, "model.onnx")))
    for k, b in enumerate(sizes):
        write_data_set(d, k, model, [torch.randn(*lead, b, *s, generator=g) for s in shapes],
                       names)
    print("wrote", d)


def export_bert_mask(sizes=(1, 5, 64, 37), batch=1):
    """bert_mask_dynseq_opset17: mm.BertMaskBlock at batch 1 with the sequence dynamic in x
    [1, seq, 32] and the padding mask [1, seq] (--dim seq=1..64); each data set pads about a
    quarter of the keys (the first kept). batch 2: bert_mask_b2_dynseq_opset17 (the rows of
    [2, seq, 32] and [2, heads, seq, seq] follow seq behind the batch dim)."""
    torch.manual_seed(0)
    model = mm.BertMaskBlock()
    model.eval()
    d = os.path.join(here, "bert_mask_%sdynseq_opset17" % ("" if batch == 1 else "b%d_" % batch))
    g = torch.Generator().manual_seed(2)

    def inputs(t):
        x = torch.randn(batch, t, 32, generator=g)
        mask = (torch.rand(batch, t, generator=g) > 0.25).float()
        mask[:, 0] = 1.0
        return x, mask

    os.makedirs(d, exist_ok=True)
    names = ["input_0", "input_1"]
    torch.onnx.export(model, inputs(8), os.path.join(d, "model.onnx"), input_names=names,
                      output_names=["output_0"], opset_version=17, do_constant_folding=True,
                      dynamic_axes={"input_0": {1: "seq"}, "input_1": {1: "seq"},
                                    "output_0": {1: "seq"}})
    onnx.checker.check_model(onnx.load(os.path.join(d, "model.onnx")))
    for k, t in enumerate(sizes):
        write_data_set(d, k, model, inputs(t), names)
    print("wrote", d)


if __name__ == "__main__":
    export("convnet", lambda: mm.randomize_bn(mm.ConvNet()), [(3, 16, 16)])
    export("resnet_block", lambda: mm.randomize_bn(mm.BasicBlock()), [(8, 16, 16)])
    export("bert_encoder", mm.Encoder, [(8, 32)])
    export("gpt_block", mm.GPTBlock, [(8, 32)])
    export("llama_decode", mm.LlamaDecode, [(1, 128), (2, 40, 16), (2, 40, 16)])
    export("gpt_block", lambda: mm.GPTBlock(seq=64), [(32,)], dim="seq", sizes=(1, 5, 64),
           lead=(1,))
    export_bert_mask()
    export_bert_mask(batch=2)
    export("gpt_block_b2", lambda: mm.GPTBlock(seq=64), [(32,)], dim="seq", sizes=(1, 5, 64, 37),
           lead=(2,))
