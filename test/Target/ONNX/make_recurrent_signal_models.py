#!/usr/bin/python3
"""Generates the .onnx models under Inputs/ for recurrent.test and signal.test
(RNN/GRU/LSTM unrolling; window, DFT, STFT, MelWeightMatrix imports) and their refusals.

Run with Debian's python3 (python3-onnx 1.12): /usr/bin/python3 make_recurrent_signal_models.py
Kept apart from make_test_models.py (same helpers) so the two scripts change independently.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from make_test_models import F32, model, save, vi

I64 = TensorProto.INT64
I32 = TensorProto.INT32


def scalar(name, value, dtype):
    return numpy_helper.from_array(np.array(value, dtype=dtype), name)


def recurrent():
    # LSTM, 2 steps, forward: X [T=2, N=1, I=3], hidden 2; W, R graph inputs, B an initializer.
    b = numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(1, 16) * 0.1, "B")
    save(model([helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h", "Y_c"], name="lstm",
                                 hidden_size=2)],
               [vi("X", F32, [2, 1, 3]), vi("W", F32, [1, 8, 3]), vi("R", F32, [1, 8, 2])],
               [vi("Y", F32, [2, 1, 1, 2]), vi("Y_h", F32, [1, 1, 2]), vi("Y_c", F32, [1, 1, 2])],
               [b], opset=14), "lstm_2step.onnx")

    # GRU, 2 steps, linear_before_reset, run-time sequence_lens, only Y_h.
    save(model([helper.make_node("GRU", ["X", "W", "R", "B", "lens"], ["", "Y_h"], name="gru",
                                 hidden_size=2, linear_before_reset=1)],
               [vi("X", F32, [2, 3, 1]), vi("W", F32, [1, 6, 1]), vi("R", F32, [1, 6, 2]),
                vi("B", F32, [1, 12]), vi("lens", I32, [3])],
               [vi("Y_h", F32, [1, 3, 2])], opset=14), "gru_2step_lens.onnx")

    # Refusals.
    def rnn(name, attrs, inputs=("X", "W", "R"), extra_vi=(), inits=()):
        save(model([helper.make_node("RNN", list(inputs), ["Y"], name="rnn", hidden_size=2,
                                     **attrs)],
                   [vi("X", F32, [2, 1, 3]), vi("W", F32, [1, 2, 3]), vi("R", F32, [1, 2, 2])]
                   + list(extra_vi), [vi("Y", F32, [2, 1, 1, 2])], list(inits), opset=14),
             name)
    rnn("rnn_bad_activation.onnx", {"activations": ["Swish"]})
    rnn("rnn_activation_count.onnx", {"activations": ["Tanh", "Relu"]})
    rnn("rnn_scaledtanh_no_params.onnx", {"activations": ["ScaledTanh"]})
    rnn("rnn_bad_clip.onnx", {"clip": -1.0})
    lens = numpy_helper.from_array(np.array([3], np.int32), "lens")
    rnn("rnn_lens_too_long.onnx", {}, ("X", "W", "R", "", "lens"), inits=[lens])
    save(model([helper.make_node("LSTM", ["X", "W", "R"], ["Y"], name="lstm", hidden_size=2)],
               [vi("X", F32, [2, 1, 3]), vi("W", F32, [1, 4, 3]), vi("R", F32, [1, 8, 2])],
               [vi("Y", F32, [2, 1, 1, 2])], opset=14), "lstm_bad_w.onnx")


def signal():
    # HannWindow (periodic, size 4 from an initializer) and BlackmanWindow (symmetric,
    # float64 output).
    save(model([helper.make_node("HannWindow", ["n"], ["hann"], name="hann"),
                helper.make_node("BlackmanWindow", ["n"], ["black"], name="blackman",
                                 periodic=0, output_datatype=TensorProto.DOUBLE)],
               [], [vi("hann", F32, [4]), vi("black", TensorProto.DOUBLE, [4])],
               [scalar("n", 4, np.int64)], opset=17, ir=8), "windows.onnx")
    # The size as a graph input: refused, naming --bind-input.
    save(model([helper.make_node("HammingWindow", ["n"], ["y"], name="hamming")],
               [vi("n", I64, [])], [vi("y", F32, [4])], opset=17, ir=8),
         "window_size_input.onnx")

    # DFT of a real signal along axis 1 ([1, 4, 1] -> [1, 4, 2]) then an inverse DFT along
    # axis 1 of a complex [2, 3, 2] input, onesided forward on [1, 4, 1].
    save(model([helper.make_node("DFT", ["x"], ["y"], name="dft", axis=1),
                helper.make_node("DFT", ["z"], ["zi"], name="idft", axis=1, inverse=1),
                helper.make_node("DFT", ["x"], ["y1"], name="rfft", axis=1, onesided=1)],
               [vi("x", F32, [1, 4, 1]), vi("z", F32, [2, 3, 2])],
               [vi("y", F32, [1, 4, 2]), vi("zi", F32, [2, 3, 2]), vi("y1", F32, [1, 3, 2])],
               opset=17, ir=8), "dft.onnx")
    save(model([helper.make_node("DFT", ["x"], ["y"], name="dft", axis=2)],
               [vi("x", F32, [1, 4, 1])], [vi("y", F32, [1, 4, 2])], opset=17, ir=8),
         "dft_bad_axis.onnx")

    # STFT: signal [1, 8, 1], frame_step 2, a Hann window of 4 -> [1, 3, 3, 2].
    save(model([helper.make_node("HannWindow", ["n"], ["w"], name="hann"),
                helper.make_node("STFT", ["x", "step", "w"], ["y"], name="stft")],
               [vi("x", F32, [1, 8, 1])], [vi("y", F32, [1, 3, 3, 2])],
               [scalar("n", 4, np.int64), scalar("step", 2, np.int64)], opset=17, ir=8),
         "stft.onnx")

    # MelWeightMatrix: 2 mel bins of a 16-point DFT at 8 kHz, 0..4000 Hz -> [9, 2].
    save(model([helper.make_node("MelWeightMatrix", ["m", "n", "sr", "lo", "hi"], ["y"],
                                 name="mel")],
               [], [vi("y", F32, [9, 2])],
               [scalar("m", 2, np.int64), scalar("n", 16, np.int64), scalar("sr", 8000, np.int64),
                scalar("lo", 0.0, np.float32), scalar("hi", 4000.0, np.float32)],
               opset=17, ir=8), "melweightmatrix.onnx")


if __name__ == "__main__":
    recurrent()
    signal()
