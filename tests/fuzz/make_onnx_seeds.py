#!/usr/bin/env python3
"""Writes the tiny ONNX seed models of tests/fuzz/corpus/onnx/ by encoding
onnx.ModelProto protobuf bytes directly (field numbers from onnx.proto),
so no onnx Python module is needed.  Run from the repository root."""
import struct

def varint(n):
    out = b""
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])

def key(field, wire):
    return varint(field << 3 | wire)

def ld(field, payload):          # length-delimited
    if isinstance(payload, str):
        payload = payload.encode()
    return key(field, 2) + varint(len(payload)) + payload

def vi(field, n):                 # varint field
    return key(field, 0) + varint(n)

def attr_ints(name, vals):        # AttributeProto: name=1, ints=8, type=20 (INTS=7)
    return ld(1, name) + b"".join(vi(8, v) for v in vals) + vi(20, 7)

def attr_int(name, v):            # i=3, type INT=2
    return ld(1, name) + vi(3, v) + vi(20, 2)

def attr_str(name, s):            # s=4, type STRING=3
    return ld(1, name) + ld(4, s) + vi(20, 3)

def node(op, ins, outs, attrs=()):  # NodeProto: input=1 output=2 name=3 op_type=4 attribute=5
    return (b"".join(ld(1, i) for i in ins) + b"".join(ld(2, o) for o in outs) +
            ld(3, outs[0]) + ld(4, op) + b"".join(ld(5, a) for a in attrs))

def value_info(name, dims):       # ValueInfoProto name=1 type=2; TypeProto tensor_type=1;
    shape = b"".join(ld(1, vi(1, d)) for d in dims)  # TensorShapeProto dim=1 {dim_value=1}
    tensor = vi(1, 1) + ld(2, shape)                 # elem_type=1 (FLOAT), shape=2
    return ld(1, name) + ld(2, ld(1, tensor))

def model(nodes, inputs, outputs, name):
    graph = (b"".join(ld(1, n) for n in nodes) + ld(2, name) +
             b"".join(ld(11, value_info(*i)) for i in inputs) +
             b"".join(ld(12, value_info(*o)) for o in outputs))
    opset = ld(1, "") + vi(2, 13)  # OperatorSetIdProto domain=1 version=2
    return vi(1, 7) + ld(2, "dnnpar-seed") + ld(7, graph) + ld(8, opset)

def write(path, data):
    with open(path, "wb") as f:
        f.write(data)

d = "tests/fuzz/corpus/onnx/"
write(d + "conv_relu_gemm.onnx", model(
    [node("Conv", ["x", "w1"], ["c1"], [attr_ints("kernel_shape", [3, 3]),
                                        attr_ints("pads", [1, 1, 1, 1]),
                                        attr_ints("strides", [1, 1])]),
     node("Relu", ["c1"], ["r1"]),
     node("MaxPool", ["r1"], ["p1"], [attr_ints("kernel_shape", [2, 2]),
                                      attr_ints("strides", [2, 2])]),
     node("Flatten", ["p1"], ["f1"], [attr_int("axis", 1)]),
     node("Gemm", ["f1", "w2"], ["y"], [attr_int("transB", 1)])],
    [("x", [1, 3, 8, 8]), ("w1", [4, 3, 3, 3]), ("w2", [10, 64])], [("y", [1, 10])], "tiny"))
write(d + "same_upper.onnx", model(
    [node("Conv", ["x", "w1"], ["c1"], [attr_ints("kernel_shape", [3, 3]),
                                        attr_str("auto_pad", "SAME_UPPER"),
                                        attr_ints("strides", [2, 2]),
                                        attr_ints("dilations", [1, 1])]),
     node("Add", ["c1", "c1"], ["a1"]),
     node("GlobalAveragePool", ["a1"], ["g1"]),
     node("Flatten", ["g1"], ["y"])],
    [("x", [1, 3, 9, 9]), ("w1", [4, 3, 3, 3])], [("y", [1, 4])], "same"))
# Issue 12 reproducer: SAME_UPPER with stride 0 divided by the stride
# before checking it (SIGFPE).
write(d + "crash_same_upper_stride0.onnx", model(
    [node("Conv", ["x", "w1"], ["y"], [attr_ints("kernel_shape", [3, 3]),
                                       attr_str("auto_pad", "SAME_UPPER"),
                                       attr_ints("strides", [0, 0])])],
    [("x", [1, 3, 9, 9]), ("w1", [4, 3, 3, 3])], [("y", [1, 4, 9, 9])], "stride0"))
write(d + "matmul.onnx", model(
    [node("MatMul", ["x", "w"], ["m"]),
     node("Softmax", ["m"], ["y"], [attr_int("axis", -1)])],
    [("x", [1, 5, 16]), ("w", [16, 8])], [("y", [1, 5, 8])], "mm"))

def attr_ints_only(name, vals):   # value_ints of a Constant node
    return attr_ints(name, vals)

def const(out, vals):
    return node("Constant", [], [out], [attr_ints_only("value_ints", vals)])

# Shape arithmetic the importer folds: Shape -> Gather -> Mul -> Concat ->
# Reshape, then a weighted MatMul.
write(d + "shape_arith.onnx", model(
    [node("Shape", ["x"], ["s"]),
     const("i0", [0]),
     node("Gather", ["s", "i0"], ["b"], [attr_int("axis", 0)]),
     const("two", [2]),
     node("Mul", ["b", "two"], ["b2"]),
     node("Div", ["b2", "two"], ["b1"]),
     const("m1", [-1]),
     node("Concat", ["b1", "m1"], ["t"], [attr_int("axis", 0)]),
     node("Reshape", ["x", "t"], ["r"]),
     node("MatMul", ["r", "w"], ["y"])],
    [("x", [1, 4, 6, 6]), ("w", [144, 10])], [("y", [1, 10])], "shapes"))
# Data movement and reductions: Slice (inputs), Pad, Transpose, Split,
# Unsqueeze/Squeeze, ReduceMean, Concat of activations.
write(d + "movement.onnx", model(
    [node("Conv", ["x", "w1"], ["c"], [attr_ints("kernel_shape", [1, 1])]),
     const("st", [1]), const("en", [5]), const("ax", [2]), const("sp", [2]),
     node("Slice", ["c", "st", "en", "ax", "sp"], ["sl"]),
     node("Pad", ["sl"], ["pd"], [attr_ints("pads", [0, 0, 1, 1, 0, 0, 1, 1])]),
     node("Transpose", ["pd"], ["tr"], [attr_ints("perm", [0, 1, 3, 2])]),
     node("Split", ["tr"], ["p0", "p1"], [attr_int("axis", 1)]),
     node("Concat", ["p1", "p0"], ["cc"], [attr_int("axis", 1)]),
     node("ReduceMean", ["cc"], ["rm"], [attr_ints("axes", [2, 3]), attr_int("keepdims", 0)]),
     const("ua", [2]),
     node("Unsqueeze", ["rm", "ua"], ["us"]),
     node("Squeeze", ["us", "ua"], ["y"])],
    [("x", [2, 3, 6, 6]), ("w1", [4, 3, 1, 1])], [("y", [2, 4])], "move"))
# A tiny transformer block: embedding, layer norm, attention-like MatMuls,
# Softmax, unknown-ish ops (Erf) and a residual Add.
write(d + "transformer.onnx", model(
    [node("Gather", ["emb", "ids"], ["e"], [attr_int("axis", 0)]),
     node("LayerNormalization", ["e", "g", "bt"], ["ln"], [attr_int("axis", -1)]),
     node("MatMul", ["ln", "wq"], ["q"]),
     node("Transpose", ["q"], ["qt"], [attr_ints("perm", [0, 2, 1])]),
     node("MatMul", ["q", "qt"], ["s"]),
     node("Softmax", ["s"], ["p"], [attr_int("axis", -1)]),
     node("MatMul", ["p", "ln"], ["a"]),
     node("Erf", ["a"], ["er"]),
     node("Add", ["er", "e"], ["y"])],
    [("ids", [1, 8]), ("emb", [100, 16]), ("g", [16]), ("bt", [16]), ("wq", [16, 16])],
    [("y", [1, 8, 16])], "tf"))
# A 600-character tensor name in an error: the message must keep its reason.
long_name = "t" * 600
write(d + "long_name.onnx", model(
    [node("Reshape", ["x", long_name], ["y"])],
    [("x", [1, 4, 6, 6]), (long_name, [2])], [("y", [1, 144])], "long"))
