#!/usr/bin/python3
"""Exports the PyTorch models issue 4 asks for, the way users export them, at opsets 14 and 17
(and issue 17's Llama decode step at 17).

Run with Debian's python3 (torch 1.13 CPU):  /usr/bin/python3 models/torch/make_models.py
For each model and opset writes NAME_opsetN/model.onnx and test_data_set_0/{input_K,output_K}.pb
(expected outputs from torch's own eager forward pass, float32). Sizes are kept small.
"""
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper

here = os.path.dirname(os.path.abspath(__file__))


class ConvNet(torch.nn.Module):
    """Conv -> BatchNorm -> ReLU -> MaxPool, twice, then global pooling and a Linear."""

    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(8, 16, 3, padding=1, stride=1), torch.nn.BatchNorm2d(16),
            torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1))
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


class BasicBlock(torch.nn.Module):
    """torchvision's ResNet BasicBlock with a strided 1x1 downsample branch."""

    def __init__(self, cin=8, cout=16, stride=2):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(cout)
        self.conv2 = torch.nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(cout)
        self.down = torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 1, stride, bias=False),
                                        torch.nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.down(x))


class Encoder(torch.nn.Module):
    """A small BERT-style encoder: two post-norm TransformerEncoderLayers, GELU."""

    def __init__(self, d=32, heads=4, layers=2):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=64, dropout=0.0,
                                                 activation="gelu", batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class GPTBlock(torch.nn.Module):
    """A GPT-2-style pre-norm decoder block with a causal mask and tanh-GELU MLP."""

    def __init__(self, d=32, heads=4, seq=8):
        super().__init__()
        self.h, self.d = heads, d
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.fc, self.out = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq)).view(1, 1, seq, seq))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(self.d, dim=2)
        q = q.view(b, t, self.h, c // self.h).transpose(1, 2)
        k = k.view(b, t, self.h, c // self.h).transpose(1, 2)
        v = v.view(b, t, self.h, c // self.h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (c // self.h) ** 0.5)
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        y = (torch.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        h = torch.nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh")
        return x + self.out(h)


class BertMaskBlock(torch.nn.Module):
    """A BERT-style post-norm encoder layer with HF transformers' padding mask: input 1 is
    the attention mask [B, S] (1 keep, 0 padding), added to the scores as
    (1 - mask)[:, None, None, :] * -10000 (BertModel's extended attention mask)."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.h, self.d = heads, d
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.fc, self.out = torch.nn.Linear(d, 2 * d), torch.nn.Linear(2 * d, d)

    def forward(self, x, mask):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(self.d, dim=2)
        q = q.view(b, t, self.h, c // self.h).transpose(1, 2)
        k = k.view(b, t, self.h, c // self.h).transpose(1, 2)
        v = v.view(b, t, self.h, c // self.h).transpose(1, 2)
        ext = (1.0 - mask)[:, None, None, :] * -10000.0
        att = (q @ k.transpose(-2, -1)) * (1.0 / (c // self.h) ** 0.5) + ext
        y = (torch.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = self.ln1(x + self.proj(y))
        return self.ln2(x + self.out(torch.nn.functional.gelu(self.fc(x))))


class LlamaDecode(torch.nn.Module):
    """One decode step of a Llama-style attention block as HF transformers' eager attention
    writes it: the new token's q / k / v projections, RoPE at its position, the KV cache
    (inputs 1 and 2, [B, KV heads, S, head dim]) extended by the token (torch.cat),
    repeat_kv (unsqueeze, expand, reshape to the query heads), softmax(q k^T / sqrt(d)) v over
    the S + 1 positions (one query: no mask), the output projection."""

    def __init__(self, d=128, heads=8, kv_heads=2, past=40):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv_heads, d // heads
        self.q = torch.nn.Linear(d, d, bias=False)
        self.k = torch.nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v = torch.nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o = torch.nn.Linear(d, d, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        f = past * inv
        emb = torch.cat([f, f], dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    @staticmethod
    def rotate_half(x):
        a, b = x.chunk(2, dim=-1)
        return torch.cat([-b, a], dim=-1)

    def forward(self, x, past_k, past_v):
        b, t, c = x.shape
        q = self.q(x).view(b, t, self.h, self.hd).transpose(1, 2)
        k = self.k(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        v = self.v(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        q = q * self.cos + self.rotate_half(q) * self.sin
        k = k * self.cos + self.rotate_half(k) * self.sin
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        rep, s = self.h // self.kv, k.shape[2]
        k = k[:, :, None].expand(b, self.kv, rep, s, self.hd).reshape(b, self.h, s, self.hd)
        v = v[:, :, None].expand(b, self.kv, rep, s, self.hd).reshape(b, self.h, s, self.hd)
        att = torch.softmax((q @ k.transpose(2, 3)) / (self.hd ** 0.5), dim=-1)
        return self.o((att @ v).transpose(1, 2).reshape(b, t, c))


def export(name, model, inputs, opset):
    torch.manual_seed(0)
    model.eval()
    d = os.path.join(here, "%s_opset%d" % (name, opset))
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    with torch.no_grad():
        out = model(*inputs)
    names = ["input_%d" % i for i in range(len(inputs))]
    torch.onnx.export(model, tuple(inputs), os.path.join(d, "model.onnx"),
                      input_names=names, output_names=["output_0"], opset_version=opset,
                      do_constant_folding=True)
    onnx.checker.check_model(onnx.load(os.path.join(d, "model.onnx")))
    for i, t in enumerate(inputs):
        with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(t.numpy(), names[i]).SerializeToString())
    with open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(out.numpy().astype(np.float32), "output_0")
                .SerializeToString())
    print("wrote", d)


def randomize_bn(model):
    # Non-trivial running statistics, as a trained model has.
    g = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=g) * 0.1)
    return model


if __name__ == "__main__":
    for opset in (14, 17):
        torch.manual_seed(0)
        export("convnet", randomize_bn(ConvNet()), [torch.randn(2, 3, 16, 16)], opset)
        torch.manual_seed(0)
        export("resnet_block", randomize_bn(BasicBlock()), [torch.randn(2, 8, 16, 16)], opset)
        torch.manual_seed(0)
        export("bert_encoder", Encoder(), [torch.randn(2, 8, 32)], opset)
        torch.manual_seed(0)
        export("gpt_block", GPTBlock(), [torch.randn(2, 8, 32)], opset)
    # A decode step with a KV cache (issue 17): opset 17 only.
    torch.manual_seed(0)
    export("llama_decode", LlamaDecode(),
           [torch.randn(2, 1, 128), torch.randn(2, 2, 40, 16), torch.randn(2, 2, 40, 16)], 17)
