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
