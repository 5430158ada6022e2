#!/usr/bin/python3
"""Generates the .onnx inputs of transformer.test (Attention, RMSNormalization,
RotaryEmbedding, Swish, Mish imports).

Run with Debian's python3: /usr/bin/python3 make_transformer_models.py
Kept apart from make_test_models.py (whose helpers it reuses) so op families add their
models without touching one shared script. The outputs are committed. Debian's onnx
predates these ops; helper.make_node does not check schemas, so the nodes build anyway.
"""
from onnx import TensorProto, helper

from make_test_models import F32, model, save, vi

I64 = TensorProto.INT64


def op23(nodes, inputs, outputs, opset=23):
    return model(nodes, inputs, outputs, opset=opset, ir=10)


def main():
    # Grouped-query attention (4 query heads over 2 K/V heads), causal, with a KV cache of
    # one step: total sequence 1 + 3 = 4.
    save(op23([helper.make_node("Attention", ["q", "k", "v", "", "pk", "pv"],
                                ["y", "present_k", "present_v"], name="gqa", is_causal=1)],
              [vi("q", F32, [1, 4, 2, 8]), vi("k", F32, [1, 2, 3, 8]),
               vi("v", F32, [1, 2, 3, 8]), vi("pk", F32, [1, 2, 1, 8]),
               vi("pv", F32, [1, 2, 1, 8])],
              [vi("y", F32, [1, 4, 2, 8]), vi("present_k", F32, [1, 2, 4, 8]),
               vi("present_v", F32, [1, 2, 4, 8])]), "attention_gqa_causal.onnx")
    # 3-D inputs, a bool mask, softcap and the softmax output (mode 3).
    save(op23([helper.make_node("Attention", ["q", "k", "v", "m"], ["y", "", "", "qk"],
                                name="mha3d", q_num_heads=2, kv_num_heads=2, softcap=5.0,
                                qk_matmul_output_mode=3)],
              [vi("q", F32, [1, 2, 8]), vi("k", F32, [1, 3, 8]), vi("v", F32, [1, 3, 8]),
               vi("m", TensorProto.BOOL, [2, 3])],
              [vi("y", F32, [1, 2, 8]), vi("qk", F32, [1, 2, 2, 3])]),
         "attention_3d_mask_softcap.onnx")
    save(op23([helper.make_node("RMSNormalization", ["x", "s"], ["y"], name="rms", axis=1,
                                epsilon=1e-3)],
              [vi("x", F32, [2, 3, 4]), vi("s", F32, [3, 4])], [vi("y", F32, [2, 3, 4])]),
         "rms_norm.onnx")
    # Interleaved rotation of the first 4 of 8 features, caches gathered at position_ids.
    save(op23([helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"],
                                name="rope", interleaved=1, rotary_embedding_dim=4)],
              [vi("x", F32, [1, 2, 3, 8]), vi("cos", F32, [10, 2]), vi("sin", F32, [10, 2]),
               vi("pos", I64, [1, 3])], [vi("y", F32, [1, 2, 3, 8])]), "rotary_interleaved.onnx")
    # 3-D input, halves, no position_ids.
    save(op23([helper.make_node("RotaryEmbedding", ["x", "cos", "sin"], ["y"], name="rope3d",
                                num_heads=2)],
              [vi("x", F32, [1, 3, 8]), vi("cos", F32, [1, 3, 2]), vi("sin", F32, [1, 3, 2])],
              [vi("y", F32, [1, 3, 8])]), "rotary_3d.onnx")
    save(op23([helper.make_node("Swish", ["x"], ["s"], name="swish", alpha=0.5),
               helper.make_node("Mish", ["x"], ["m"], name="mish")],
              [vi("x", F32, [2, 3])], [vi("s", F32, [2, 3]), vi("m", F32, [2, 3])], opset=24),
         "swish_mish.onnx")

    # Refusals.
    save(op23([helper.make_node("Attention", ["q", "k", "v"], ["y", "", "", "qk"],
                                name="bad_mode", qk_matmul_output_mode=4)],
              [vi("q", F32, [1, 2, 2, 4]), vi("k", F32, [1, 2, 3, 4]), vi("v", F32, [1, 2, 3, 4])],
              [vi("y", F32, [1, 2, 2, 4]), vi("qk", F32, [1, 2, 2, 3])]),
         "attention_bad_mode.onnx")
    save(op23([helper.make_node("Attention", ["q", "k", "v"], ["y"], name="bad_heads",
                                q_num_heads=3, kv_num_heads=2)],
              [vi("q", F32, [1, 2, 12]), vi("k", F32, [1, 3, 8]), vi("v", F32, [1, 3, 8])],
              [vi("y", F32, [1, 2, 12])]), "attention_bad_heads.onnx")
    save(op23([helper.make_node("Attention", ["q", "k", "v"], ["y"], name="no_heads")],
              [vi("q", F32, [1, 2, 12]), vi("k", F32, [1, 3, 12]), vi("v", F32, [1, 3, 12])],
              [vi("y", F32, [1, 2, 12])]), "attention_3d_no_heads.onnx")
    save(op23([helper.make_node("Attention", ["q", "k", "v"], ["y"], name="old")],
              [vi("q", F32, [1, 2, 2, 4]), vi("k", F32, [1, 2, 3, 4]), vi("v", F32, [1, 2, 3, 4])],
              [vi("y", F32, [1, 2, 2, 4])], opset=22), "attention_opset22.onnx")
    save(op23([helper.make_node("RotaryEmbedding", ["x", "cos", "sin"], ["y"], name="rope_odd",
                                rotary_embedding_dim=3)],
              [vi("x", F32, [1, 2, 3, 8]), vi("cos", F32, [1, 3, 1]), vi("sin", F32, [1, 3, 1])],
              [vi("y", F32, [1, 2, 3, 8])]), "rotary_odd_dim.onnx")
    save(op23([helper.make_node("RMSNormalization", ["x", "s"], ["y"], name="rms_stash",
                                stash_type=10)],
              [vi("x", F32, [2, 4]), vi("s", F32, [4])], [vi("y", F32, [2, 4])]),
         "rms_norm_stash.onnx")


if __name__ == "__main__":
    main()
