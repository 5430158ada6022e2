#!/usr/bin/python3
"""Numerics at the edges: every elementwise and reduction op over extreme inputs.

For each op (the ONNX ops that import to the graph dialect's elementwise, row and reduction
ops, see OPS below), each dtype (f32, f16, bf16) and each input class (+-0, the smallest
subnormals, +-1e-30, +-1e30, values near the overflow of exp, +-inf, NaN, rows with one NaN
or inf, ...; see CLASSES / ROW_CLASSES), this script

  1. writes a small ONNX model and one ONNX test data set per input class, whose expected
     outputs are computed here, independently of aicc, with mpmath at 50 digits (or exact
     rational / float64 arithmetic where that is exact) and IEEE 754 rules for the special
     values, rounded to the output dtype (docs/numerics.md states the rules);
  2. `cpu`: compiles the model for the CPU target, runs it with aicc-run on every data set,
     runs the float64 reference evaluator (aicc-run --reference) on the same data sets, and
     prints a table op x input class: `ok` when both match the expected values, `CPU` /
     `REF` / `BOTH` naming what does not, `ERR` when compiling or running failed, `xfail`
     for a documented known failure (KNOWN_FAILURES) and `XPASS` when one of those passes.
     Exit status 1 on any CPU, REF, BOTH, ERR or XPASS cell;
  3. `payload OUT --target sm_90`: compiles every model for a GPU target into OUT/cases/
     (model.aicc, tolerances, one test data set per class) for scripts/numerics-gpu.sh to
     run on the GPU machine with aicc-run --device=cuda.

A cell passes when every element satisfies aicc-run's rule |got - exp| <= atol + rtol |exp|
with NaN matching only NaN and an infinity only the same infinity, at the tolerances of
TOL (by dtype and op kind). Sign of zero is not checked.

Run with Debian's /usr/bin/python3 (numpy, onnx, mpmath):
  edge_sweep.py cpu --work DIR [--only REGEX] [--bin BUILD/bin] [-v]
  edge_sweep.py payload OUT --target sm_90 [--bin BUILD/bin]
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor

import mpmath
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

mp = mpmath.mp
mp.dps = 50
INF, NAN = math.inf, math.nan

#===------------------------------------------------------------------------===#
# Dtypes: rounding of a float64 to the format, and TensorProto encoding
#===------------------------------------------------------------------------===#
# (precision bits incl. the implicit one, min normal exponent, max exponent)
FORMATS = {"f32": (24, -126, 127), "f16": (11, -14, 15), "bf16": (8, -126, 127)}
ONNX_TYPE = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16,
             "bf16": TensorProto.BFLOAT16, "bool": TensorProto.BOOL,
             "i64": TensorProto.INT64}


def fmt_max(dt):
    p, _, emax = FORMATS[dt]
    return (2.0 - 2.0 ** (1 - p)) * 2.0 ** emax


def fmt_min_sub(dt):
    p, emin, _ = FORMATS[dt]
    return 2.0 ** (emin - p + 1)


def round_to(v, dt):
    """float64 (or mpf) v rounded to nearest-even in format dt; overflow gives +-inf."""
    v = float(v)
    if dt not in FORMATS or math.isnan(v) or math.isinf(v) or v == 0.0:
        return v
    p, emin, emax = FORMATS[dt]
    _, e = math.frexp(abs(v))  # |v| = m 2^e, m in [0.5, 1): leading bit 2^(e-1)
    q = max(e - 1, emin) - (p - 1)  # quantum of the format at |v|
    r = round(math.ldexp(abs(v), -q))  # exact scaling; round() is half-to-even
    r = math.ldexp(r, q) if r < 2 ** 1100 else INF
    if r > fmt_max(dt):
        r = INF
    return math.copysign(r, v)


def to_proto(name, values, dt, shape):
    """A TensorProto of dtype dt holding `values` (already representable) in `shape`."""
    a = np.asarray(values, dtype=np.float64).reshape(shape)
    if dt == "f32":
        return numpy_helper.from_array(a.astype(np.float32), name)
    if dt == "f16":
        return numpy_helper.from_array(a.astype(np.float16), name)
    if dt == "bf16":
        bits = (a.astype(np.float32).view(np.uint32) >> 16).astype("<u2")
        t = helper.make_tensor(name, TensorProto.BFLOAT16, list(shape), bits.tobytes(), raw=True)
        return t
    if dt == "bool":
        return numpy_helper.from_array(a.astype(np.bool_), name)
    if dt == "i64":
        return numpy_helper.from_array(np.asarray(values, np.int64).reshape(shape), name)
    raise ValueError(dt)


def from_proto(t):
    """A TensorProto's values as a flat float64 numpy array (bf16 decoded by hand)."""
    if t.data_type == TensorProto.BFLOAT16:
        if t.raw_data:
            bits = np.frombuffer(t.raw_data, "<u2")
        else:
            bits = np.array(t.int32_data, np.uint16)
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64).ravel()
    return numpy_helper.to_array(t).astype(np.float64).ravel()


#===------------------------------------------------------------------------===#
# Tolerances
#===------------------------------------------------------------------------===#
# Elementwise results are within a few ulp of the correctly rounded value (16-bit floats
# are computed in f32 and rounded once); reductions and rows accumulate. atol is 2^-8 of
# the smallest normal number: results deep in the subnormal range keep only a few bits
# (and composites through a subnormal intermediate, e.g. Mish(-100), lose them), so there
# the error is absolute; everything else is relative.
def _atol(dt):
    return 2.0 ** (FORMATS[dt][1] - 8)


TOL = {}
for _dt, _ew, _red in (("f32", 1e-5, 1e-4), ("f16", 2e-3, 4e-3), ("bf16", 1.6e-2, 2e-2)):
    TOL[("ew", _dt)] = (_ew, _atol(_dt))
    TOL[("red", _dt)] = (_red, _atol(_dt))


#===------------------------------------------------------------------------===#
# Input classes
#===------------------------------------------------------------------------===#
def exp_edge(dt):
    """The largest |x| with exp(x) finite, in dt (ln(max) rounded down)."""
    return {"f32": 88.7, "f16": 11.0, "bf16": 88.5}[dt]


def pow_edges(dt):
    """Exponents near pow(2, y)'s overflow and underflow in dt."""
    p, emin, emax = FORMATS[dt]
    return [emax + 0.5, emax + 1.0, emin - p + 1, emin - p]


# Elementwise classes: name -> dt -> values (rounded to dt when written).
CLASSES = {
    "zero": lambda dt: [0.0, -0.0],
    "subn": lambda dt: [fmt_min_sub(dt), -fmt_min_sub(dt), 3 * fmt_min_sub(dt)],
    "tiny": lambda dt: [1e-30, -1e-30] if dt != "f16" else [2.0 ** -14, -(2.0 ** -14)],
    "norm": lambda dt: [0.5, -0.5, 1.5, -1.5],
    "mid": lambda dt: [5.0, -5.0, 10.0, -10.0],
    "exp": lambda dt: [exp_edge(dt), -exp_edge(dt)],
    "pastexp": lambda dt: ([89.0, -89.0, 100.0, -100.0] if dt != "f16"
                           else [11.5, -11.5, 16.0, -16.0]),
    "huge": lambda dt: [1e30, -1e30] if dt != "f16" else [6e4, -6e4],
    "inf": lambda dt: [INF, -INF],
    "nan": lambda dt: [NAN],
}


def partners(dt):
    """Second operands of binary ops: each class value is paired with every partner,
    both ways round."""
    big = 1e30 if dt != "f16" else 6e4
    return [0.0, -0.0, 0.5, -1.5, 3.0, big, -big, INF, -INF, NAN, fmt_min_sub(dt)]


def pow_partners(dt):
    return [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 10.0, -8.0, INF, -INF,
            NAN] + pow_edges(dt)


# Row classes (reductions, softmax, layer norm ...): name -> (dt, W, rng) -> rows of W
# values. Sums are kept well-conditioned (same-sign rows) so the tolerance is about the
# edge, not about cancellation.
def _rows_normal(dt, w, rng):
    return [list(rng.uniform(0.5, 2.0, w)), list(-rng.uniform(0.5, 2.0, w))]


def _with(dt, w, rng, v, where):
    rows = []
    for pos in where:
        r = list(rng.uniform(0.5, 2.0, w))
        r[{"first": 0, "mid": w // 2, "last": w - 1}[pos]] = v
        rows.append(r)
    return rows


def _scaled(dt, w, rng, s):
    return [list(s * rng.uniform(1.0, 3.0, w)), list(-s * rng.uniform(1.0, 3.0, w))]


ROW_CLASSES = {
    "norm": _rows_normal,
    "zero": lambda dt, w, rng: [[0.0 if i % 2 else -0.0 for i in range(w)]],
    "subn": lambda dt, w, rng: [[fmt_min_sub(dt) * (1 + i % 3) for i in range(w)],
                                [-fmt_min_sub(dt) * (1 + i % 3) for i in range(w)]],
    "tiny": lambda dt, w, rng: _scaled(dt, w, rng, 1e-30 if dt != "f16" else 2.0 ** -14),
    "huge": lambda dt, w, rng: _scaled(dt, w, rng, 1e30 if dt != "f16" else 1e4),
    "exp": lambda dt, w, rng: [[exp_edge(dt) - (i % 4) * 0.5 for i in range(w)],
                               [-exp_edge(dt) + (i % 4) * 0.5 for i in range(w)]],
    "inf1": lambda dt, w, rng: _with(dt, w, rng, INF, ["first", "last"]),
    "ninf1": lambda dt, w, rng: _with(dt, w, rng, -INF, ["first", "last"]),
    "allninf": lambda dt, w, rng: [[-INF] * w],
    "pminf": lambda dt, w, rng: [[INF if i == 1 else -INF if i == w - 2 else 1.0
                                  for i in range(w)]],
    "nan1": lambda dt, w, rng: _with(dt, w, rng, NAN, ["first", "mid", "last"]),
}


#===------------------------------------------------------------------------===#
# Expected values: independent of aicc. x, y: Python floats (the dt-rounded inputs).
#===------------------------------------------------------------------------===#
M = mpmath.mpf


def mpv(f, x, pinf=None, ninf=None):
    """f(x) at 50 digits; NaN -> NaN; +-inf -> the given values (the function's value
    there per IEEE 754 / C99, or its limit)."""
    if math.isnan(x):
        return NAN
    if x == INF:
        return pinf
    if x == -INF:
        return ninf
    return float(f(M(x)))


def sign(x):
    return NAN if math.isnan(x) else 1.0 if x > 0 else -1.0 if x < 0 else 0.0


def fmax(a, b):
    """NaN-propagating max (numpy.maximum, ONNX Max): docs/numerics.md's rule."""
    return NAN if math.isnan(a) or math.isnan(b) else max(a, b)


def fmin(a, b):
    return NAN if math.isnan(a) or math.isnan(b) else min(a, b)


def ieee(f, *args):
    """f on numpy float64 scalars with IEEE semantics (no exceptions)."""
    with np.errstate(all="ignore"):
        return float(f(*[np.float64(a) for a in args]))


def e_sqrt(x):
    if math.isnan(x) or x < 0:
        return NAN
    return x if x == 0 or x == INF else float(mp.sqrt(M(x)))


def e_log(x):
    if math.isnan(x) or x < 0:
        return NAN
    return -INF if x == 0 else INF if x == INF else float(mp.log(M(x)))


def e_recip(x):
    if x == 0:
        return math.copysign(INF, x)
    return ieee(lambda a: 1.0 / a, x) if math.isinf(x) or math.isnan(x) else float(1 / M(x))


def e_asin(x, f):
    return NAN if math.isnan(x) or abs(x) > 1 else float(f(M(x)))


def e_acosh(x):
    return NAN if math.isnan(x) or x < 1 else INF if x == INF else float(mp.acosh(M(x)))


def e_atanh(x):
    if math.isnan(x) or abs(x) > 1:
        return NAN
    return math.copysign(INF, x) if abs(x) == 1 else float(mp.atanh(M(x)))


def e_gelu(x):
    if x == -INF:
        return NAN  # -inf * 0, as the ONNX formula gives in IEEE arithmetic
    return mpv(lambda v: v / 2 * mp.erfc(-v / mp.sqrt(2)), x, INF)


def e_gelu_tanh(x):
    if x == -INF:
        return NAN
    k = mp.sqrt(2 / mp.pi)
    return mpv(lambda v: v / 2 * (1 + mp.tanh(k * (v + M("0.044715") * v ** 3))), x, INF)


def e_softplus(v):
    # log(1 + e^v) without overflow in the mp exponent for huge v.
    return v + mp.log1p(mp.exp(-v)) if v > 0 else mp.log1p(mp.exp(v))


def e_mish(x):
    if x == -INF:
        return NAN
    return mpv(lambda v: v * mp.tanh(e_softplus(v)), x, INF)


def e_sigmoid(v):
    return 1 / (1 + mp.exp(-v))


def e_pow(x, y):
    # C99 / IEEE 754 pow (numpy's float64 power is C's pow); huge finite results are
    # exact in float64 up to 1e308, then rounded to the dtype.
    return ieee(np.power, x, y)


SELU_A, SELU_G = 1.67326319217681884765625, 1.05070102214813232421875

# name: (ONNX node builder kwargs, expected(x) or expected(x, y), opset, extra)
# Unary ops: the expected function of x.
UNARY = {
    "Abs": (abs, {}),
    "Neg": (lambda x: -x, {}),
    "Sign": (sign, {}),
    "Ceil": (lambda x: ieee(np.ceil, x), {}),
    "Floor": (lambda x: ieee(np.floor, x), {}),
    "Round": (lambda x: ieee(np.rint, x), {}),
    "Sqrt": (e_sqrt, {}),
    "Reciprocal": (e_recip, {}),
    "Exp": (lambda x: mpv(mp.exp, x, INF, 0.0), {}),
    "Log": (e_log, {}),
    "Sin": (lambda x: mpv(mp.sin, x, NAN, NAN), {}),
    "Cos": (lambda x: mpv(mp.cos, x, NAN, NAN), {}),
    "Tan": (lambda x: mpv(mp.tan, x, NAN, NAN), {}),
    "Asin": (lambda x: e_asin(x, mp.asin), {}),
    "Acos": (lambda x: e_asin(x, mp.acos), {}),
    "Atan": (lambda x: mpv(mp.atan, x, math.pi / 2, -math.pi / 2), {}),
    "Sinh": (lambda x: mpv(mp.sinh, x, INF, -INF), {}),
    "Cosh": (lambda x: mpv(mp.cosh, x, INF, INF), {}),
    "Asinh": (lambda x: mpv(mp.asinh, x, INF, -INF), {}),
    "Acosh": (e_acosh, {}),
    "Atanh": (e_atanh, {}),
    "Tanh": (lambda x: mpv(mp.tanh, x, 1.0, -1.0), {}),
    "Sigmoid": (lambda x: mpv(e_sigmoid, x, 1.0, 0.0), {}),
    "Erf": (lambda x: mpv(mp.erf, x, 1.0, -1.0), {}),
    "Relu": (lambda x: fmax(x, 0.0), {}),
    "Softplus": (lambda x: mpv(e_softplus, x, INF, 0.0), {}),
    "Softsign": (lambda x: mpv(lambda v: v / (1 + abs(v)), x, 1.0, -1.0), {}),
    "HardSwish": (lambda x: NAN if x == -INF else
                  ieee(lambda v: v * np.fmin(1, np.fmax(0, v / 6 + 0.5)), x) if not
                  math.isnan(x) else NAN, {}),
    "HardSigmoid": (lambda x: fmax(0.0, fmin(1.0, ieee(lambda v: 0.2 * v + 0.5, x))),
                    {"alpha": 0.2, "beta": 0.5}),
    "LeakyRelu": (lambda x: ieee(lambda v: 0.1 * v, x) if x < 0 else x, {"alpha": 0.1}),
    "Elu": (lambda x: mpv(lambda v: mp.expm1(v) if v < 0 else v, x, INF, -1.0),
            {"alpha": 1.0}),
    "Selu": (lambda x: mpv(lambda v: SELU_G * (v if v > 0 else SELU_A * mp.expm1(v)), x, INF,
                           -SELU_G * SELU_A), {"alpha": SELU_A, "gamma": SELU_G}),
    "Celu": (lambda x: mpv(lambda v: max(v, 0) + min(0, 2 * mp.expm1(v / 2)), x, INF, -2.0),
             {"alpha": 2.0}),
    "Shrink": (lambda x: 0.0 if math.isnan(x) else x + 0.25 if x < -0.5 else
               x - 0.25 if x > 0.5 else 0.0, {"lambd": 0.5, "bias": 0.25}),
    "ThresholdedRelu": (lambda x: x if x > 1.0 else 0.0, {"alpha": 1.0}),
    "Gelu": (e_gelu, {}),
    "Gelu_tanh": (e_gelu_tanh, {"approximate": "tanh"}),
    "Mish": (e_mish, {}),
    "Swish": (lambda x: NAN if x == -INF else mpv(lambda v: v * e_sigmoid(v), x, INF),
              {"alpha": 1.0}),
    "IsNaN": (lambda x: float(math.isnan(x)), {}),
    "IsInf": (lambda x: float(math.isinf(x)), {}),
    "Clip": (lambda x: x if math.isnan(x) else min(max(x, -1.0), 1.0), {}),
    # Casts between float types round to nearest even, overflow to inf, keep NaN / inf.
    "Cast_f32": (lambda x: x, {"to": TensorProto.FLOAT}),
    "Cast_f16": (lambda x: x, {"to": TensorProto.FLOAT16}),
    "Cast_bf16": (lambda x: x, {"to": TensorProto.BFLOAT16}),
}
CAST_TO = {"Cast_f32": "f32", "Cast_f16": "f16", "Cast_bf16": "bf16"}
UNARY_OPSET = {"Gelu": 20, "Gelu_tanh": 20, "Mish": 18, "Swish": 24}
BOOL_OUT = {"IsNaN", "IsInf", "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}

BINARY = {
    "Add": lambda x, y: ieee(np.add, x, y),
    "Sub": lambda x, y: ieee(np.subtract, x, y),
    "Mul": lambda x, y: ieee(np.multiply, x, y),
    "Div": lambda x, y: ieee(np.divide, x, y),
    "Pow": e_pow,
    "Mod": lambda x, y: ieee(np.fmod, x, y),
    "Max": fmax,
    "Min": fmin,
    "PRelu": lambda x, s: ieee(np.multiply, s, x) if x < 0 else x,
    "Equal": lambda x, y: float(x == y),
    "Less": lambda x, y: float(x < y),
    "LessOrEqual": lambda x, y: float(x <= y),
    "Greater": lambda x, y: float(x > y),
    "GreaterOrEqual": lambda x, y: float(x >= y),
}
BINARY_ATTRS = {"Mod": {"fmod": 1}}
# Where(c, a, b) over the binary pairs, c true at even positions.
BINARY["Where"] = None


def out_dt(op, dt):
    return "bool" if op in BOOL_OUT else CAST_TO.get(op, dt)


# Reductions over a row (a list of floats) -> one float.
def r_sum(row):
    if any(math.isnan(v) for v in row) or (INF in row and -INF in row):
        return NAN
    if INF in row or -INF in row:
        return INF if INF in row else -INF
    return math.fsum(row)


def r_prod(row):
    if any(math.isnan(v) for v in row):
        return NAN
    if any(math.isinf(v) for v in row):
        if any(v == 0 for v in row):
            return NAN
        neg = sum(1 for v in row if math.copysign(1, v) < 0)
        return -INF if neg % 2 else INF
    return float(mp.fprod([M(v) for v in row]))


def r_max(row):
    return NAN if any(math.isnan(v) for v in row) else max(row)


def r_min(row):
    return NAN if any(math.isnan(v) for v in row) else min(row)


def r_sumsq(row):
    if any(math.isnan(v) for v in row):
        return NAN
    # v * v is exact in float64 for f32 / f16 / bf16 values, fsum rounds the sum once.
    return INF if any(math.isinf(v) for v in row) else math.fsum([v * v for v in row])


def r_lse(row):
    m = r_max(row)
    if math.isnan(m) or math.isinf(m):
        return m  # all -inf: -inf (log 0); a +inf: +inf
    return m + math.log(math.fsum([math.exp(v - m) for v in row]))


def r_argmax(row, sign_):
    for i, v in enumerate(row):
        if math.isnan(v):
            return float(i)  # the first NaN is the extreme (numpy.argmax / argmin)
    best = 0
    for i, v in enumerate(row):
        if sign_ * v > sign_ * row[best]:
            best = i
    return float(best)


REDUCE = {
    "ReduceSum": r_sum,
    "ReduceMean": lambda r: r_sum(r) / len(r) if not math.isinf(r_sum(r)) else r_sum(r),
    "ReduceMax": r_max,
    "ReduceMin": r_min,
    "ReduceProd": r_prod,
    "ReduceL1": lambda r: r_sum([abs(v) for v in r]),
    "ReduceL2": lambda r: e_sqrt(r_sumsq(r)),
    "ReduceSumSquare": r_sumsq,
    "ReduceLogSum": lambda r: e_log(r_sum(r)),
    "ReduceLogSumExp": r_lse,
    "ArgMax": lambda r: r_argmax(r, 1),
    "ArgMin": lambda r: r_argmax(r, -1),
}


# Row ops: a row -> a row.
def w_softmax(row, log):
    m = r_max(row)
    if math.isnan(m) or math.isinf(m):
        return [NAN] * len(row)  # x - m is NaN somewhere: inf - inf or -inf - -inf
    s = math.fsum([math.exp(v - m) for v in row])
    if log:
        return [v - m - math.log(s) if v != -INF else -INF for v in row]
    return [math.exp(v - m) / s if v != -INF else 0.0 for v in row]


LN_EPS = 1e-5


def w_layernorm(row, rms):
    if any(math.isnan(v) or math.isinf(v) for v in row):
        if rms and not any(math.isnan(v) for v in row) and any(math.isinf(v) for v in row):
            # x / sqrt(mean(x^2) + eps) with mean(x^2) = inf: finite / inf = 0, inf / inf = NaN
            return [NAN if math.isinf(v) else math.copysign(0.0, v) for v in row]
        return [NAN] * len(row)
    n = len(row)
    mean = 0.0 if rms else math.fsum(row) / n
    var = math.fsum([(v - mean) ** 2 for v in row]) / n
    inv = 1 / math.sqrt(var + LN_EPS)
    return [(v - mean) * inv for v in row]


def w_cumsum(row):
    out, seen_nan, pinf, ninf, fin = [], False, False, False, []
    for v in row:
        seen_nan |= math.isnan(v)
        pinf |= v == INF
        ninf |= v == -INF
        if not math.isinf(v) and not math.isnan(v):
            fin.append(v)
        out.append(NAN if seen_nan or (pinf and ninf) else INF if pinf else -INF if ninf
                   else math.fsum(fin))
    return out


def w_maxpool(row):
    # kernel 3, stride 1, pads 1 (padding never wins), NaN propagates.
    w = len(row)
    return [r_max(row[max(0, j - 1):min(w, j + 2)]) for j in range(w)]


ROW = {
    "Softmax": lambda r: w_softmax(r, False),
    "LogSoftmax": lambda r: w_softmax(r, True),
    "LayerNormalization": lambda r: w_layernorm(r, False),
    "RMSNormalization": lambda r: w_layernorm(r, True),
    "CumSum": w_cumsum,
    "MaxPool": w_maxpool,
}

# Row ops whose outputs near 0 are differences of O(scale) terms (x - mean, x - max - lse):
# their atol is rtol times the largest |expected| of the cell.
NORMWISE = {"LayerNormalization", "RMSNormalization", "LogSoftmax"}

DTYPES = ["f32", "f16", "bf16"]
# Row widths: short rows held in one tile, and rows longer than the templates' one-pass
# limits (4096 reduced elements, 16384 row elements), which take the chunked loops; "col":
# the reduced dim outermost with 64 kept columns (the column reduction kernel).
REDUCE_LAYOUTS = {"w8": 8, "w5000": 5000, "col": 8}
ROW_LAYOUTS = {"w8": 8, "w20000": 20000}
ROW_ONLY_SHORT = {"CumSum", "MaxPool"}  # no chunked template; long rows add nothing

# Known failures: (op, dtype or "*", layout or "*", class) -> reason. A listed cell that
# passes is an XPASS (remove it here). Keep this list short and each entry explained.
KNOWN_FAILURES = {}


#===------------------------------------------------------------------------===#
# Models and data sets
#===------------------------------------------------------------------------===#
def make_model(name, nodes, inputs, outputs, opset, inits=()):
    """inputs / outputs: [(name, dt, shape)]."""
    vi = lambda n, dt, s: helper.make_tensor_value_info(n, ONNX_TYPE[dt], list(s))
    graph = helper.make_graph(nodes, name, [vi(*i) for i in inputs], [vi(*o) for o in outputs],
                              list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="aicc edge_sweep.py")
    model.ir_version = 10 if opset >= 21 else 8
    return model


class Case:
    """One model (one or more ops on the same inputs) and its data sets, one per class."""

    def __init__(self, name, kind, dt, ops, model, cells, layout="-"):
        self.name, self.kind, self.dt, self.ops, self.model = name, kind, dt, ops, model
        self.cells = cells  # class -> (inputs [(name, dt, shape, values)], outputs [...])
        self.layout = layout

    def tol(self):
        return TOL[("ew" if self.kind in ("unary", "binary") else "red", self.dt)]

    def cell_tol(self, cname):
        """(rtol, atol) of one cell: the case's, with atol raised to rtol times the largest
        finite |expected| for the ops whose outputs near 0 carry the absolute error of
        the row's scale (NORMWISE: a normwise relative tolerance)."""
        rtol, atol = self.tol()
        if any(op in NORMWISE for op in self.ops):
            fin = [abs(v) for o in self.cells[cname][1] for v in o[3] if math.isfinite(v)]
            if fin:
                atol = max(atol, rtol * max(fin))
        return rtol, atol


def pad_cycle(vals, n):
    return [vals[i % len(vals)] for i in range(n)]


def unary_case(dt, ops):
    n = 16
    nodes, outs = [], []
    for k, op in enumerate(ops):
        attrs = dict(UNARY[op][1])
        onnx_op = op.split("_")[0]
        ins = ["x"]
        if onnx_op == "Clip":
            ins = ["x", "lo", "hi"]
        nodes.append(helper.make_node(onnx_op, ins, ["y%d" % k], name=op, **attrs))
        outs.append(("y%d" % k, out_dt(op, dt), [n]))
    opset = max([17] + [UNARY_OPSET.get(op, 17) for op in ops])
    inits = [to_proto("lo", [-1.0], dt, []), to_proto("hi", [1.0], dt, [])] \
        if "Clip" in ops else []
    model = make_model("unary_" + dt, nodes, [("x", dt, [n])], outs, opset, inits)
    cells = {}
    for cname, gen in CLASSES.items():
        xs = pad_cycle([round_to(v, dt) for v in gen(dt)], n)
        outputs = []
        for k, op in enumerate(ops):
            f = UNARY[op][0]
            odt = out_dt(op, dt)
            outputs.append(("y%d" % k, odt, [n], [round_to(f(x), odt) for x in xs]))
        cells[cname] = ([("x", dt, [n], xs)], outputs)
    return Case("unary_" + dt, "unary", dt, ops, model, cells)


def binary_case(dt, ops):
    pairs_by_class = {}
    for cname, gen in CLASSES.items():
        vals = [round_to(v, dt) for v in gen(dt)]
        pairs = []
        for op_partners in (partners(dt),):
            ps = [round_to(p, dt) for p in op_partners]
            pairs += [(a, b) for a in vals for b in ps] + [(b, a) for a in vals for b in ps]
        pairs_by_class[cname] = pairs
    n = max(len(p) for p in pairs_by_class.values())
    nodes, outs = [], []
    for k, op in enumerate(ops):
        ins = ["c", "a", "b"] if op == "Where" else ["a", "b"]
        nodes.append(helper.make_node(op, ins, ["y%d" % k], name=op,
                                      **BINARY_ATTRS.get(op, {})))
        outs.append(("y%d" % k, out_dt(op, dt), [n]))
    inputs = [("a", dt, [n]), ("b", dt, [n])] + ([("c", "bool", [n])] if "Where" in ops else [])
    model = make_model("binary_" + dt, nodes, inputs, outs, 17)
    cond = [float(i % 2 == 0) for i in range(n)]
    cells = {}
    for cname, pairs in pairs_by_class.items():
        pairs = pad_cycle(pairs, n)
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        outputs = []
        for k, op in enumerate(ops):
            odt = out_dt(op, dt)
            if op == "Where":
                ys = [x if c else y for (x, y), c in zip(pairs, cond)]
            else:
                ys = [round_to(BINARY[op](x, y), odt) for x, y in pairs]
            outputs.append(("y%d" % k, odt, [n], ys))
        ins = [("a", dt, [n], a), ("b", dt, [n], b)]
        if "Where" in ops:
            ins.append(("c", "bool", [n], cond))
        cells[cname] = (ins, outputs)
    return Case("binary_" + dt, "binary", dt, ops, model, cells)


def pow_case(dt):
    """Pow gets its own partner set: C99's special cases and pow's overflow edges."""
    pairs_by_class = {}
    for cname, gen in CLASSES.items():
        vals = [round_to(v, dt) for v in gen(dt)]
        ps = [round_to(p, dt) for p in pow_partners(dt)]
        pairs_by_class[cname] = [(a, b) for a in vals for b in ps] + \
                                [(b, a) for a in vals for b in ps]
    n = max(len(p) for p in pairs_by_class.values())
    model = make_model("pow_" + dt, [helper.make_node("Pow", ["a", "b"], ["y0"], name="Pow")],
                       [("a", dt, [n]), ("b", dt, [n])], [("y0", dt, [n])], 17)
    cells = {}
    for cname, pairs in pairs_by_class.items():
        pairs = pad_cycle(pairs, n)
        cells[cname] = ([("a", dt, [n], [p[0] for p in pairs]),
                         ("b", dt, [n], [p[1] for p in pairs])],
                        [("y0", dt, [n], [round_to(e_pow(x, y), dt) for x, y in pairs])])
    return Case("pow_" + dt, "binary", dt, ["Pow"], model, cells)


def row_data(dt, w, cname, rows_wanted=None):
    rng = np.random.default_rng(zlib.crc32(("%s/%d/%s" % (dt, w, cname)).encode()))
    rows = [[round_to(v, dt) for v in r] for r in ROW_CLASSES[cname](dt, w, rng)]
    return rows


def reduce_case(dt, op, layout):
    w = REDUCE_LAYOUTS[layout]
    R = 3  # rows per data set (classes with fewer rows repeat them)
    col = layout == "col"
    C = 64
    is_arg = op.startswith("Arg")
    odt = "i64" if is_arg else dt
    if col:
        in_shape, out_shape, axis = [w, C], [1, C], 0
    else:
        in_shape, out_shape, axis = [R, w], [R, 1], 1
    attrs = {"keepdims": 1}
    ins, inits, opset = ["x"], [], 18
    if is_arg:
        attrs["axis"] = axis
        opset = 13
    else:
        ins.append("axes")
        inits.append(numpy_helper.from_array(np.array([axis], np.int64), "axes"))
    node = helper.make_node(op, ins, ["y0"], name=op, **attrs)
    name = "%s_%s_%s" % (op, dt, layout)
    model = make_model(name, [node], [("x", dt, in_shape)], [("y0", odt, out_shape)], opset,
                       inits)
    cells = {}
    for cname in ROW_CLASSES:
        rows = row_data(dt, w, cname)
        ncols = C if col else R
        rows = pad_cycle(rows, ncols)
        res = [REDUCE[op](r) for r in rows]
        if col:
            xs = [rows[c][i] for i in range(w) for c in range(C)]
        else:
            xs = [v for r in rows for v in r]
        ys = [int(v) for v in res] if is_arg else [round_to(v, dt) for v in res]
        cells[cname] = ([("x", dt, in_shape, xs)], [("y0", odt, out_shape, ys)])
    return Case(name, "reduce", dt, [op], model, cells, layout)


def row_case(dt, op, layout):
    w = ROW_LAYOUTS[layout]
    R = 3
    name = "%s_%s_%s" % (op, dt, layout)
    inits, ins, attrs, opset = [], ["x"], {}, 17
    shape = [R, w]
    if op in ("Softmax", "LogSoftmax"):
        attrs = {"axis": -1}
    elif op in ("LayerNormalization", "RMSNormalization"):
        attrs = {"axis": -1, "epsilon": LN_EPS}
        ins.append("scale")
        inits.append(to_proto("scale", [1.0] * w, dt, [w]))
        if op == "RMSNormalization":
            opset = 23
    elif op == "CumSum":
        ins.append("axis")
        inits.append(numpy_helper.from_array(np.array(1, np.int64), "axis"))
    elif op == "MaxPool":
        shape = [R, 1, w]
        attrs = {"kernel_shape": [3], "pads": [1, 1], "strides": [1]}
    node = helper.make_node(op, ins, ["y0"], name=op, **attrs)
    model = make_model(name, [node], [("x", dt, shape)], [("y0", dt, shape)], opset, inits)
    cells = {}
    for cname in ROW_CLASSES:
        rows = pad_cycle(row_data(dt, w, cname), R)
        xs = [v for r in rows for v in r]
        ys = [round_to(v, dt) for r in rows for v in ROW[op](r)]
        cells[cname] = ([("x", dt, shape, xs)], [("y0", dt, shape, ys)])
    return Case(name, "row", dt, [op], model, cells, layout)


class Lazy:
    """A case not built yet: its name and ops (for --only) and the builder."""

    def __init__(self, name, ops, build):
        self.name, self.ops, self.build = name, ops, build


def all_cases(only=None):
    cases = []
    for dt in DTYPES:
        cases.append(Lazy("unary_" + dt, list(UNARY),
                          lambda dt=dt: unary_case(dt, list(UNARY))))
        bops = [op for op in BINARY if op != "Pow"]
        cases.append(Lazy("binary_" + dt, bops, lambda dt=dt, b=bops: binary_case(dt, b)))
        cases.append(Lazy("pow_" + dt, ["Pow"], lambda dt=dt: pow_case(dt)))
        for op in REDUCE:
            for layout in REDUCE_LAYOUTS:
                cases.append(Lazy("%s_%s_%s" % (op, dt, layout), [op],
                                  lambda dt=dt, op=op, l=layout: reduce_case(dt, op, l)))
        for op in ROW:
            for layout in ROW_LAYOUTS:
                if layout != "w8" and op in ROW_ONLY_SHORT:
                    continue
                cases.append(Lazy("%s_%s_%s" % (op, dt, layout), [op],
                                  lambda dt=dt, op=op, l=layout: row_case(dt, op, l)))
    if only:
        rx = re.compile(only)
        cases = [c for c in cases if rx.search(c.name) or any(rx.search(o) for o in c.ops)]
    return cases


def write_case(case, d):
    os.makedirs(d, exist_ok=True)
    onnx.save(case.model, os.path.join(d, "model.onnx"))
    for cname, (inputs, outputs) in case.cells.items():
        cd = os.path.join(d, "cells", cname)
        os.makedirs(cd, exist_ok=True)
        for kind, vals in (("input", inputs), ("output", outputs)):
            for k, (n, dt, shape, values) in enumerate(vals):
                with open(os.path.join(cd, "%s_%d.pb" % (kind, k)), "wb") as f:
                    f.write(to_proto(n, values, dt, shape).SerializeToString())


#===------------------------------------------------------------------------===#
# Running
#===------------------------------------------------------------------------===#
def tool(args, name):
    return os.path.join(args.bin, name) if args.bin else name


def parse_run(text):
    """aicc-run's report -> {cell: {output index: bool}}."""
    res, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"test data set (.*)$", line)
        if m:
            cur = os.path.basename(m.group(1).rstrip("/"))
            res[cur] = {}
            continue
        m = re.match(r"output (\d+) \('[^']*'\): .*\b(PASS|FAIL)\b", line)
        if m and cur is not None:
            res[cur][int(m.group(1))] = m.group(2) == "PASS"
    return res


def run_cmd(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def cell_groups(d, case):
    """aicc-run arguments per tolerance: [(tol args, data set args)]."""
    groups = {}
    for cname in case.cells:
        groups.setdefault(case.cell_tol(cname), []).append(cname)
    out = []
    for (rtol, atol), names in groups.items():
        sets = []
        for cname in names:
            sets += ["--test-data-set", os.path.join(d, "cells", cname)]
        out.append((["--rtol", repr(rtol), "--atol", repr(atol)], sets))
    return out


def run_groups(cmd, d, case, outdir):
    """Runs cmd (aicc-run ...) once per tolerance group; merged results and the output."""
    res, text = {}, ""
    for tolargs, sets in cell_groups(d, case):
        rc, out = run_cmd(cmd + ["--output-dir", outdir] + tolargs + sets)
        res.update(parse_run(out))
        text += out
    return res, text


def run_case(args, case):
    """Compiles and runs one case on the CPU and the reference; returns
    (cpu results, ref results, error text) with results {cell: {k: bool}}."""
    d = os.path.join(args.work, case.name)
    write_case(case, d)
    bundle = os.path.join(d, "model.aicc")
    err = ""
    rc, out = run_cmd([tool(args, "aicc-compile"), os.path.join(d, "model.onnx"), "-o", bundle])
    cpu = {}
    if rc != 0:
        err = "compile: " + out.strip()
    else:
        cpu, out = run_groups([tool(args, "aicc-run"), bundle], d, case, os.path.join(d, "got"))
        if not cpu:
            err = "run: " + out.strip()[-2000:]
    ref, out = run_groups([tool(args, "aicc-run"), "--reference", os.path.join(d, "model.onnx")],
                          d, case, os.path.join(d, "ref"))
    if not ref:
        err += (" | " if err else "") + "reference: " + out.strip()[-2000:]
    return cpu, ref, err


def known(op, dt, layout, cname):
    for key in ((op, dt, layout, cname), (op, "*", layout, cname), (op, dt, "*", cname),
                (op, "*", "*", cname)):
        if key in KNOWN_FAILURES:
            return KNOWN_FAILURES[key]
    return None


def detail(args, case, cname, k, which):
    """A few mismatching elements of output k of cell cname (input -> expected, got)."""
    d = os.path.join(args.work, case.name)
    path = os.path.join(d, which, cname, "output_%d.pb" % k)
    if not os.path.exists(path):
        return "    (no output written)"
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    got = from_proto(t)
    inputs, outputs = case.cells[cname]
    exp = np.asarray(outputs[k][3], np.float64).ravel()
    rtol, atol = case.cell_tol(cname)
    lines = []
    for i in range(len(exp)):
        e, g = exp[i], got[i]
        if math.isnan(e) or math.isnan(g):
            bad = math.isnan(e) != math.isnan(g)
        elif e == g:
            bad = False
        else:
            bad = not abs(g - e) <= atol + rtol * abs(e)
        if bad:
            if case.kind in ("unary", "binary"):
                ins = ", ".join("%.9g" % v[3][i] for v in inputs)
            else:
                ins = "element %d" % i
            line = "    %s(%s): expected %.9g, got %.9g" % (case.ops[k], ins, e, g)
            if line not in lines:
                lines.append(line)
        if len(lines) >= 4:
            break
    return "\n".join(lines)


def cmd_cpu(args):
    cases = all_cases(args.only)
    if os.path.isdir(args.work):
        shutil.rmtree(args.work)
    os.makedirs(args.work)
    def work(lazy):
        case = lazy.build()
        return case, run_case(args, case)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        done = list(pool.map(work, cases))
    cases = [c for c, _ in done]
    results = [r for _, r in done]
    bad = 0
    counts = {}
    details = []
    tables = {}
    for case, (cpu, ref, err) in zip(cases, results):
        for k, op in enumerate(case.ops):
            row = []
            for cname in case.cells:
                c_ok = cpu.get(cname, {}).get(k)
                r_ok = ref.get(cname, {}).get(k)
                why = known(op, case.dt, case.layout, cname)
                if c_ok is None or r_ok is None:
                    status = "ERR"
                elif c_ok and r_ok:
                    status = "XPASS" if why else "ok"
                elif why:
                    status = "xfail"
                else:
                    status = "BOTH" if not c_ok and not r_ok else "CPU" if not c_ok else "REF"
                counts[status] = counts.get(status, 0) + 1
                if status not in ("ok", "xfail"):
                    bad += 1
                    if status in ("CPU", "BOTH") or (status == "xfail" and args.verbose):
                        details.append("%s %s %s %s: CPU\n%s" % (
                            op, case.dt, case.layout, cname, detail(args, case, cname, k, "got")))
                    if status in ("REF", "BOTH"):
                        details.append("%s %s %s %s: REF\n%s" % (
                            op, case.dt, case.layout, cname, detail(args, case, cname, k, "ref")))
                    if status == "ERR":
                        details.append("%s %s %s: %s" % (op, case.dt, case.layout,
                                                         (err or "no result")[:600]))
                row.append(status)
            kind = "elementwise" if case.kind in ("unary", "binary") else case.kind
            tables.setdefault(kind, ([], list(case.cells)))[0].append(
                (op, case.dt, case.layout, row))
    for kind, (rows, cols) in tables.items():
        print("== %s: op x input class (ok: CPU and reference match the expected values)" % kind)
        print("%-20s %-5s %-7s" % ("op", "dtype", "layout") +
              "".join("%-8s" % c for c in cols))
        for op, dt, layout, row in rows:
            print("%-20s %-5s %-7s" % (op, dt, layout) + "".join("%-8s" % s for s in row))
        print()
    if details:
        print("== details (first mismatching elements)")
        # Dedupe identical error texts (a compile error is shared by the group's ops).
        seen = set()
        for d in details:
            if d not in seen:
                print(d)
                seen.add(d)
        print()
    print("cells: " + ", ".join("%s %d" % (k, v) for k, v in sorted(counts.items())))
    print("edge sweep: %s" % ("PASS" if bad == 0 else "FAIL (%d cells)" % bad))
    return 0 if bad == 0 else 1


def cmd_payload(args):
    cases = all_cases(args.only)
    out = os.path.join(args.out, "cases")
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)

    def one(lazy):
        case = lazy.build()
        d = os.path.join(out, case.name)
        write_case(case, d)
        with open(os.path.join(d, "classes"), "w") as f:
            f.write(" ".join(case.cells) + "\n")
        for cname in case.cells:
            with open(os.path.join(d, "cells", cname, "tol"), "w") as f:
                f.write("%r %r\n" % case.cell_tol(cname))
        with open(os.path.join(d, "ops"), "w") as f:
            f.write("\n".join("%d %s %s %s" % (k, op, case.dt, case.layout)
                              for k, op in enumerate(case.ops)) + "\n")
        rc, text = run_cmd([tool(args, "aicc-compile"), os.path.join(d, "model.onnx"),
                            "--target=" + args.target, "-o", os.path.join(d, "model.aicc")])
        with open(os.path.join(d, "compile.log"), "w") as f:
            f.write(text)
        return case.name, rc

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        res = list(pool.map(one, cases))
    failed = [n for n, rc in res if rc != 0]
    print("%d cases written to %s for %s, %d failed to compile%s" % (
        len(res), out, args.target, len(failed), (": " + ", ".join(failed)) if failed else ""))
    return 0 if not failed else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("cpu", help="run the sweep on the CPU target and the reference")
    c.add_argument("--work", required=True, help="scratch directory (replaced)")
    p = sub.add_parser("payload", help="compile the sweep for a GPU target")
    p.add_argument("out", help="payload directory (its cases/ is replaced)")
    p.add_argument("--target", default="sm_90")
    for s in (c, p):
        s.add_argument("--bin", default="", help="directory of aicc-compile / aicc-run "
                       "(default: PATH)")
        s.add_argument("--only", default="", help="only cases or ops matching this regex")
        s.add_argument("--jobs", type=int, default=2)
        s.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    return cmd_cpu(args) if args.cmd == "cpu" else cmd_payload(args)


if __name__ == "__main__":
    sys.exit(main())
