"""make_large_model.py OUT_DIR [--inline]

A model at protobuf's size limits: Gather from an embedding table [V, D] f32, then a small
inline-weight MatMul. Default: the table (2.21 GB, over the 2 GiB ModelProto limit) is external
data in a sparse file where only the rows the test reads are written. --inline: the table
(1.88 GB) is inline raw_data, a ModelProto just under the limit. OUT_DIR/test_data_set_0 holds
the row ids and the expected output (numpy, float64 accumulation)."""
import os, sys, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
inline = len(sys.argv) > 2 and sys.argv[2] == "--inline"
# external: 540000*1024*4 = 2.21e9 bytes > 2^31; inline: 460000*1024*4 = 1.88e9 bytes, a
# ModelProto just under protobuf's 2 GiB limit.
V, D = (460000, 1024) if inline else (540000, 1024)
rows = np.array([0, 7, 299999, V - 1], dtype=np.int64)
rng = np.random.default_rng(0)
vals = rng.standard_normal((len(rows), D)).astype(np.float32)
if inline:
    table = bytearray(V * D * 4)
    for r, v in zip(rows, vals):
        table[int(r) * D * 4:(int(r) + 1) * D * 4] = v.tobytes()
    emb = TensorProto(name="embedding", data_type=TensorProto.FLOAT, dims=[V, D],
                      raw_data=bytes(table))
    del table
else:
    with open(os.path.join(out, "embedding.bin"), "wb") as f:
        f.truncate(V * D * 4)
        for r, v in zip(rows, vals):
            f.seek(int(r) * D * 4); f.write(v.tobytes())
    emb = TensorProto(name="embedding", data_type=TensorProto.FLOAT, dims=[V, D],
                      data_location=TensorProto.EXTERNAL)
    emb.external_data.add(key="location", value="embedding.bin")
    emb.external_data.add(key="offset", value="0")
    emb.external_data.add(key="length", value=str(V * D * 4))
w = rng.standard_normal((D, 8)).astype(np.float32)
g = helper.make_graph(
    [helper.make_node("Gather", ["embedding", "ids"], ["e"], name="gather"),
     helper.make_node("MatMul", ["e", "w"], ["y"], name="proj")],
    "big", [helper.make_tensor_value_info("ids", TensorProto.INT64, [len(rows)])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [len(rows), 8])],
    initializer=[emb, numpy_helper.from_array(w, "w")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
open(os.path.join(out, "model.onnx"), "wb").write(m.SerializeToString())
ds = os.path.join(out, "test_data_set_0"); os.makedirs(ds, exist_ok=True)
open(os.path.join(ds, "input_0.pb"), "wb").write(numpy_helper.from_array(rows, "ids").SerializeToString())
open(os.path.join(ds, "output_0.pb"), "wb").write(
    numpy_helper.from_array((vals.astype(np.float64) @ w.astype(np.float64)).astype(np.float32), "y").SerializeToString())
