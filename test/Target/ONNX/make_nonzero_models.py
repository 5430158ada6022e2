"""Models for nonzero.test (run with /usr/bin/python3 from this directory)."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

def save(m, name):
    open("Inputs/" + name, "wb").write(m.SerializeToString())

x = np.array([[1.0, 0.0, 2.0], [0.0, np.nan, 0.0]], dtype=np.float32)
g = helper.make_graph([helper.make_node("NonZero", ["x"], ["y"], name="nz")], "nz", [],
                      [helper.make_tensor_value_info("y", TensorProto.INT64, [2, 3])],
                      initializer=[numpy_helper.from_array(x, "x")])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8),
     "nonzero_const.onnx")
g = helper.make_graph([helper.make_node("NonZero", ["x"], ["y"], name="nz_dyn")], "nz",
                      [helper.make_tensor_value_info("x", TensorProto.BOOL, [2, 2])],
                      [helper.make_tensor_value_info("y", TensorProto.INT64, None)])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8),
     "nonzero_input.onnx")
