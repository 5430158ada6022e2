#!/usr/bin/env python3
"""A Llama-style decoder with a fixed-capacity KV cache (HF transformers' StaticCache, the
form torch.compile and torch.export users decode with), exported by torch 2's dynamo exporter:
issue 19's "fixed-capacity cache updated in place with a position input" and issue 17's
scaled_dot_product_attention with a bool mask (the exporter's NaN cleanup after the softmax).

forward(x [B, T, d], pos int64 [T], k_cache, v_cache [L, B, KVH, MAX, hd])
  -> (hidden [B, T, d], k_cache', v_cache'), each layer: RMSNorm, q / k / v projections,
RoPE at the positions `pos` (rows of cos / sin tables), k and v written into the caches at
`pos` (index_copy: ONNX ScatterND), attention of the T queries over the whole cache with
the bool mask key <= pos (SDPA, grouped-query heads: enable_gqa), the output projection and
the residual, RMSNorm, the SwiGLU MLP and the residual. Exported for the decode step (T = 1,
pos = [n]); a prefill is the same module exported at the prompt's length.

Run with the project's venv (torch 2.11, onnxscript; scripts/setup.sh):
  .venv/bin/python models/torch/make_static_cache_model.py
Writes llama_static_cache_opset18/model.onnx and test_data_set_K/{input_*,output_*}.pb for
a decode loop from an empty (zero) cache: step K at position K for K = 0..3, each step's
caches the outputs of the step before (test/Tools/static-cache-decode.test feeds aicc's own
outputs back); K = 4 the last position (MAX - 1) over a random cache. And the prefill:
prefill5.onnx, the same module exported at a prompt of 5 tokens, with prefill_data_set (the
prompt at positions 0..4 from empty caches) and after_prefill_data_set (the decode step at
position 5 over the caches the prefill wrote). And llama_static_cache_dynseq_opset18 /
llama_static_cache_b2_dynseq_opset18: the module exported once with a dynamic prompt length
at batch 1 / 2 (export_dynamic); llama_static_cache_layers_dynseq_opset18 the same at batch 1
with one cache tensor per layer (export_layers, HF's layout). Expected outputs from torch's eager forward pass, float32.
"""
import os

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
D, HEADS, KV_HEADS, FFN, LAYERS, MAX, BATCH, PROMPT = 64, 4, 2, 176, 2, 32, 2, 5
HD = D // HEADS


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(1.0 + 0.1 * torch.randn(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = RMSNorm(D), RMSNorm(D)
        self.q = torch.nn.Linear(D, D, bias=False)
        self.k = torch.nn.Linear(D, KV_HEADS * HD, bias=False)
        self.v = torch.nn.Linear(D, KV_HEADS * HD, bias=False)
        self.o = torch.nn.Linear(D, D, bias=False)
        self.gate = torch.nn.Linear(D, FFN, bias=False)
        self.up = torch.nn.Linear(D, FFN, bias=False)
        self.down = torch.nn.Linear(FFN, D, bias=False)

    @staticmethod
    def rotate_half(z):
        return torch.cat([-z[..., HD // 2:], z[..., :HD // 2]], dim=-1)

    def forward(self, x, cos, sin, mask, pos, kc, vc):
        b, t, _ = x.shape
        h = self.n1(x)
        q = self.q(h).view(b, t, HEADS, HD).transpose(1, 2)
        k = self.k(h).view(b, t, KV_HEADS, HD).transpose(1, 2)
        v = self.v(h).view(b, t, KV_HEADS, HD).transpose(1, 2)
        q = q * cos + self.rotate_half(q) * sin
        k = k * cos + self.rotate_half(k) * sin
        kc = kc.index_copy(2, pos, k)
        vc = vc.index_copy(2, pos, v)
        y = F.scaled_dot_product_attention(q, kc, vc, attn_mask=mask, enable_gqa=True)
        x = x + self.o(y.transpose(1, 2).reshape(b, t, D))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h)), kc, vc


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([Layer() for _ in range(LAYERS)])
        inv = 1.0 / (10000 ** (torch.arange(0, HD, 2).float() / HD))
        f = torch.outer(torch.arange(MAX).float(), inv)
        emb = torch.cat([f, f], dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    def forward(self, x, pos, k_cache, v_cache):
        cos, sin = self.cos[pos][None, None], self.sin[pos][None, None]
        mask = torch.arange(MAX)[None, :] <= pos[:, None]  # [T, MAX]: key j visible from pos
        ks, vs = [], []
        for i, layer in enumerate(self.layers):
            x, kc, vc = layer(x, cos, sin, mask, pos, k_cache[i], v_cache[i])
            ks.append(kc)
            vs.append(vc)
        return x, torch.stack(ks), torch.stack(vs)


def write(d, tensors, prefix):
    os.makedirs(d, exist_ok=True)
    for i, t in enumerate(tensors):
        with open(os.path.join(d, "%s_%d.pb" % (prefix, i)), "wb") as f:
            f.write(numpy_helper.from_array(t.numpy()).SerializeToString())


def main():
    torch.manual_seed(0)
    model = Decoder().eval()
    g = torch.Generator().manual_seed(1)
    cache = (LAYERS, BATCH, KV_HEADS, MAX, HD)
    kc = vc = torch.zeros(cache)
    out = os.path.join(here, "llama_static_cache_opset18")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.onnx")
    # Random example caches and a position inside the cache: exported at pos [0] over zero
    # caches, torch 2.11's graph held only at position 0 (onnxruntime disagreed with torch
    # at every other position).
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(BATCH, 1, D), torch.tensor([MAX // 2]),
                                  torch.randn(cache), torch.randn(cache)), path,
                          input_names=["x", "pos", "k_cache", "v_cache"],
                          output_names=["hidden", "k_cache_out", "v_cache_out"],
                          opset_version=18, dynamo=True, external_data=False)
    onnx.checker.check_model(onnx.load(path))
    cases = []
    with torch.no_grad():
        for n in range(4):
            ins = (torch.randn(BATCH, 1, D, generator=g), torch.tensor([n]), kc, vc)
            outs = model(*ins)
            cases.append((ins, outs))
            kc, vc = outs[1], outs[2]
        ins = (torch.randn(BATCH, 1, D, generator=g), torch.tensor([MAX - 1]),
               torch.randn(cache, generator=g), torch.randn(cache, generator=g))
        cases.append((ins, model(*ins)))
    for k, (ins, outs) in enumerate(cases):
        d = os.path.join(out, "test_data_set_%d" % k)
        write(d, ins, "input")
        write(d, outs, "output")
    print(path, os.path.getsize(path), "bytes")
    # The prefill: the same module exported at a prompt of PROMPT tokens (positions 0..4 from
    # an empty cache), then the decode step at position PROMPT over the caches it wrote.
    ppath = os.path.join(out, "prefill%d.onnx" % PROMPT)
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(BATCH, PROMPT, D), torch.arange(PROMPT) + 7,
                                  torch.randn(cache), torch.randn(cache)), ppath,
                          input_names=["x", "pos", "k_cache", "v_cache"],
                          output_names=["hidden", "k_cache_out", "v_cache_out"],
                          opset_version=18, dynamo=True, external_data=False)
    onnx.checker.check_model(onnx.load(ppath))
    zeros = torch.zeros(cache)
    with torch.no_grad():
        ins = (torch.randn(BATCH, PROMPT, D, generator=g), torch.arange(PROMPT), zeros, zeros)
        outs = model(*ins)
        write(os.path.join(out, "prefill_data_set"), ins, "input")
        write(os.path.join(out, "prefill_data_set"), outs, "output")
        ins = (torch.randn(BATCH, 1, D, generator=g), torch.tensor([PROMPT]), outs[1], outs[2])
        write(os.path.join(out, "after_prefill_data_set"), ins, "input")
        write(os.path.join(out, "after_prefill_data_set"), model(*ins), "output")
    print(ppath, os.path.getsize(ppath), "bytes")
    export_dynamic(model, g, 1, "llama_static_cache_dynseq_opset18")
    export_dynamic(model, g, 2, "llama_static_cache_b2_dynseq_opset18")
    export_layers(model, g, "llama_static_cache_layers_dynseq_opset18")


class LayerCaches(torch.nn.Module):
    """The decoder with one key and one value cache tensor per layer (HF's StaticCache /
    past_key_values layout): forward(x, pos, k_cache_0, v_cache_0, k_cache_1, v_cache_1)
    -> (hidden, k_cache_out_0, v_cache_out_0, k_cache_out_1, v_cache_out_1)."""

    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, x, pos, k_cache_0, v_cache_0, k_cache_1, v_cache_1):
        h, ks, vs = self.m(x, pos, torch.stack([k_cache_0, k_cache_1]),
                           torch.stack([v_cache_0, v_cache_1]))
        return h, ks[0], vs[0], ks[1], vs[1]


class LayerCachesDirect(torch.nn.Module):
    """The same computation without the stack / unstack: each layer reads its own caches,
    as an exported HF model does (the form graph-scatter-in-place updates in place)."""

    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, x, pos, k_cache_0, v_cache_0, k_cache_1, v_cache_1):
        m = self.m
        cos, sin = m.cos[pos][None, None], m.sin[pos][None, None]
        mask = torch.arange(MAX)[None, :] <= pos[:, None]
        caches = [(k_cache_0, v_cache_0), (k_cache_1, v_cache_1)]
        out = []
        for layer, (kc, vc) in zip(m.layers, caches):
            x, kc, vc = layer(x, cos, sin, mask, pos, kc, vc)
            out += [kc, vc]
        return (x, *out)


def export_layers(model, g, name):
    """The decoder with one cache tensor per layer and the prompt length dynamic (batch 1),
    the five calls of export_dynamic: each layer's index_copy (Transpose -> ScatterND ->
    Transpose on a model input) is the update aicc writes into the input's buffer."""
    assert LAYERS == 2
    out = os.path.join(here, name)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.onnx")
    cache = (1, KV_HEADS, MAX, HD)
    seq = torch.export.Dim("seq", min=1, max=MAX)
    direct = LayerCachesDirect(model).eval()
    names = ["k_cache_0", "v_cache_0", "k_cache_1", "v_cache_1"]
    with torch.no_grad():
        torch.onnx.export(direct, (torch.randn(1, PROMPT, D), torch.arange(PROMPT) + 7,
                                   *[torch.randn(cache) for _ in names]), path,
                          input_names=["x", "pos"] + names,
                          output_names=["hidden"] + [n.replace("cache", "cache_out") for n in names],
                          dynamic_shapes=({1: seq}, {0: seq}, None, None, None, None),
                          opset_version=18, dynamo=True, external_data=False)
    onnx.checker.check_model(onnx.load(path))
    ref = LayerCaches(model).eval()
    zeros = [torch.zeros(cache) for _ in names]
    rnd = lambda: [torch.randn(cache, generator=g) for _ in names]  # noqa: E731
    calls = []
    with torch.no_grad():
        ins = (torch.randn(1, PROMPT, D, generator=g), torch.arange(PROMPT), *zeros)
        outs = ref(*ins)
        calls.append((ins, outs))
        ins = (torch.randn(1, 1, D, generator=g), torch.tensor([PROMPT]), *outs[1:])
        calls.append((ins, ref(*ins)))
        ins = (torch.randn(1, MAX, D, generator=g), torch.arange(MAX), *zeros)
        calls.append((ins, ref(*ins)))
        ins = (torch.randn(1, 7, D, generator=g), torch.arange(9, 16), *rnd())
        calls.append((ins, ref(*ins)))
        ins = (torch.randn(1, 1, D, generator=g), torch.tensor([MAX - 1]), *rnd())
        calls.append((ins, ref(*ins)))
        # The direct module is the one exported: it matches the stacked one.
        for ins, want in calls:
            for a, b in zip(direct(*ins), want):
                assert torch.allclose(a, b, atol=1e-6), "LayerCachesDirect differs"
    for k, (ins, outs) in enumerate(calls):
        d = os.path.join(out, "test_data_set_%d" % k)
        write(d, ins, "input")
        write(d, outs, "output")
    print(path, os.path.getsize(path), "bytes")


def export_dynamic(model, g, batch, name):
    """The same module exported once with the prompt length `seq` dynamic (torch.export's
    Dim, 1..MAX) at batch `batch`: one model for a prefill of any length and the decode
    steps (seq = 1), over the fixed-capacity caches. Writes NAME/model.onnx and data sets,
    each a call of the loop: 0 a 5-token prompt at positions 0..4 from empty caches; 1 the
    decode step at position 5 over the caches 0 wrote; 2 a prompt of MAX tokens (the whole
    cache); 3 a 7-token chunk at positions 9..15 over random caches; 4 one token at position
    MAX - 1 over random caches. At batch 2, x and the hidden state are [2, seq, D]: two rows
    of their buffers at a smaller seq."""
    out = os.path.join(here, name)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.onnx")
    cache = (LAYERS, batch, KV_HEADS, MAX, HD)
    seq = torch.export.Dim("seq", min=1, max=MAX)
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(batch, PROMPT, D), torch.arange(PROMPT) + 7,
                                  torch.randn(cache), torch.randn(cache)), path,
                          input_names=["x", "pos", "k_cache", "v_cache"],
                          output_names=["hidden", "k_cache_out", "v_cache_out"],
                          dynamic_shapes=({1: seq}, {0: seq}, None, None),
                          opset_version=18, dynamo=True, external_data=False)
    onnx.checker.check_model(onnx.load(path))
    zeros = torch.zeros(cache)
    calls = []
    with torch.no_grad():
        ins = (torch.randn(batch, PROMPT, D, generator=g), torch.arange(PROMPT), zeros, zeros)
        outs = model(*ins)
        calls.append((ins, outs))
        ins = (torch.randn(batch, 1, D, generator=g), torch.tensor([PROMPT]), outs[1], outs[2])
        calls.append((ins, model(*ins)))
        ins = (torch.randn(batch, MAX, D, generator=g), torch.arange(MAX), zeros, zeros)
        calls.append((ins, model(*ins)))
        ins = (torch.randn(batch, 7, D, generator=g), torch.arange(9, 16),
               torch.randn(cache, generator=g), torch.randn(cache, generator=g))
        calls.append((ins, model(*ins)))
        ins = (torch.randn(batch, 1, D, generator=g), torch.tensor([MAX - 1]),
               torch.randn(cache, generator=g), torch.randn(cache, generator=g))
        calls.append((ins, model(*ins)))
    for k, (ins, outs) in enumerate(calls):
        d = os.path.join(out, "test_data_set_%d" % k)
        write(d, ins, "input")
        write(d, outs, "output")
    print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
