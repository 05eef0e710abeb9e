"""The model JSON of dnnpar (docs/formats.md "Model") as torch ops.

Every op acts on a tensor of shape [samples, channels, h, w] (or
[samples, features] after a flatten or an FC).  Planned ops (conv, fc) are
the ones the strategy splits; the others act on their input in whatever
layout it is in (docs/time-model.md "Device classes").
"""
import json

from .matmul import matmul_info
from .shards import InputError

PLANNED = ("conv", "fc")
JOINS = ("add", "concat", "matmul")
# Ops executed on a shard as they are: element-wise or per channel.
LOCAL = ("relu", "maxpool", "avgpool", "flatten", "dropout", "eltwise")
# Ops that need every channel of a sample (the whole row): a softmax over
# the channels, a layer norm over the features of each position.
ROW = ("softmax", "layernorm", "lrn")
# Ops whose statistics span the batch: an all-reduce over the ranks holding
# each channel (batchnorm.py).
STATS = ("batchnorm",)
# The single-input element-wise functions an `eltwise` op may name
# (src_type, as ONNX and the zoo's transformers write it).
ELTWISE = ("Gelu", "Relu", "Tanh", "Sigmoid", "SiLU", "Erf")


class Op:
    def __init__(self, i, d):
        self.index = i
        self.name = d["name"]
        self.kind = d["kind"]
        self.inputs = list(d.get("inputs", []))
        self.out = tuple(d["out"])
        self.kernel = tuple(d.get("kernel", [1, 1]))
        self.stride = tuple(d.get("stride", [1, 1]))
        self.pad = tuple(d.get("pad", [0, 0]))
        self.groups = d.get("groups", 1)
        self.bias = bool(d.get("bias", False))
        self.keep_positions = bool(d.get("keep_positions", False))
        self.param_elems = int(d.get("param_elems", 0))
        self.contract = int(d.get("contract", 0))
        self.src_type = d.get("src_type", "")


class Model:
    """The ops in topological order, with for every planned op: its input
    units (the channels of the tensor's producer or of the model input),
    the elements per (sample, unit) of what it reads and its producer."""

    def __init__(self, path):
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise InputError("%s: %s" % (path, e))
        self.name = doc.get("name", "?")
        self.ops = [Op(i, d) for i, d in enumerate(doc.get("ops", []))]
        self.by_name = {o.name: o for o in self.ops}
        for o in self.ops:
            where = "%s: op '%s' (%s)" % (path, o.name, o.kind)
            if o.kind == "input":
                if o.inputs:
                    raise InputError("%s has inputs" % where)
                continue
            if o.kind not in PLANNED + JOINS + LOCAL + ROW + STATS:
                raise InputError("%s: the torch executor cannot run this kind "
                                 "(it runs conv, fc, add, concat, matmul, relu, maxpool, avgpool, "
                                 "flatten, "
                                 "dropout, softmax, layernorm, lrn, eltwise, batchnorm)"
                                 % where)
            if (len(o.inputs) != 1) != (o.kind in JOINS):
                raise InputError("%s: %d inputs" % (where, len(o.inputs)))
            for x in o.inputs:
                if x not in self_names(doc, o.index):
                    raise InputError("%s: input '%s' is not an earlier op" % (where, x))
            check_unplanned_params(o, where)
        inputs = [o for o in self.ops if o.kind == "input"]
        if len(inputs) != 1:
            raise InputError("%s: the torch executor needs exactly one input op, found %d"
                             % (path, len(inputs)))
        self.input = inputs[0]
        # dnnpar's planned ops (dnp_graph_decider, src/model/graph.c): weighted layers and joins.
        self.planned = [o for o in self.ops if o.kind in PLANNED + JOINS]
        self.node_of = {o.name: v for v, o in enumerate(self.planned)}
        # Per op: the planned op (index) whose output it is or acts on, or
        # None for the model input's chain; and the channel units it carries.
        self.owner, self.units = {}, {}
        for o in self.ops:
            if o.kind == "input":
                self.owner[o.name], self.units[o.name] = None, o.out[0]
            elif o.kind in PLANNED + JOINS:
                self.owner[o.name], self.units[o.name] = self.node_of[o.name], o.out[0]
            else:
                src = o.inputs[0]
                self.owner[o.name], self.units[o.name] = self.owner[src], self.units[src]
        self.info = []
        for o in self.planned:
            if o.kind == "concat":
                self.info.append(concat_info(self, path, o))
                continue
            if o.kind == "matmul":
                self.info.append(matmul_info(self, path, o))
                continue
            if o.kind in JOINS:
                for x in o.inputs:
                    src = self.by_name[x]
                    if elems(src.out) != elems(o.out) or self.units[x] != o.out[0]:
                        raise InputError("%s: op '%s' (add): input '%s' is not of its shape "
                                         "and channels (broadcasting is not executable)"
                                         % (path, o.name, x))
                self.info.append({"join": True, "in_units": o.out[0], "out_units": o.out[0],
                                  "in_cell": elems(o.out) // o.out[0], "in_shape": o.out,
                                  "producers": [self.owner[x] for x in o.inputs]})
                continue
            src = self.by_name[o.inputs[0]]
            in_units = self.units[src.name]
            in_elems = elems(src.out)
            if in_units <= 0 or in_elems % in_units:
                raise InputError("%s: op '%s': its input of %d elements per sample is not "
                                 "made of %d channels" % (path, o.name, in_elems, in_units))
            if o.kind == "conv" and o.groups > 1 and (
                    src.out[0] % o.groups or o.out[0] % o.groups
                    or (src.out[0] // o.groups) % (src.out[0] // in_units)):
                raise InputError("%s: op '%s': its %d groups do not take whole channels of "
                                 "its input's producer (%d input, %d output channels, %d "
                                 "units)" % (path, o.name, o.groups, src.out[0], o.out[0],
                                              in_units))
            self.info.append({"join": False, "in_units": in_units, "out_units": o.out[0],
                              "in_cell": in_elems // in_units,
                              "in_shape": src.out, "producer": self.owner[src.name]})
        for o in self.ops:
            if o.kind == "batchnorm" and o.out[0] % self.units[o.name]:
                raise InputError("%s: op '%s' (batchnorm): its %d channels are not made of "
                                 "the %d channel units of its input's producer"
                                 % (path, o.name, o.out[0], self.units[o.name]))
        self.output = self.ops[-1]


def concat_info(m, path, o):
    """A concat's planning facts: its inputs' channels follow one another
    (spans), each input made of whole channels of the concat's height and
    width; its units are its channels, each with h x w elements."""
    spans, at = [], 0
    for x in o.inputs:
        src = m.by_name[x]
        if tuple(src.out[1:]) != tuple(o.out[1:]) or m.units[x] != src.out[0]:
            raise InputError("%s: op '%s' (concat): input '%s' of shape %s is not whole "
                             "channels of its height and width %s (only a concat along the "
                             "channels is executable)" % (path, o.name, x, list(src.out),
                                                          list(o.out[1:])))
        spans.append((at, at + src.out[0]))
        at += src.out[0]
    if at != o.out[0]:
        raise InputError("%s: op '%s' (concat): its inputs have %d channels, it has %d"
                         % (path, o.name, at, o.out[0]))
    return {"join": True, "concat": spans, "in_units": o.out[0], "out_units": o.out[0],
            "in_cell": elems(o.out) // o.out[0], "in_shape": o.out,
            "producers": [m.owner[x] for x in o.inputs]}


def check_unplanned_params(o, where):
    """Of the ops other than conv / fc, the norms may have parameters
    (norms.py); an element-wise op's (a bias, a scale) would be trained
    without a gradient all-reduce dnnpar's executed accounting counts."""
    if o.kind == "eltwise" and o.param_elems:
        raise InputError("%s: has %d parameters (param_elems); dnnpar's executed accounting "
                         "syncs the gradients of conv and FC weights and of norms' scales and "
                         "shifts only, so only an eltwise without parameters is executable"
                         % (where, o.param_elems))
    if o.kind == "eltwise" and o.src_type not in ELTWISE:
        raise InputError("%s: element-wise function '%s' is not executable (src_type must be "
                         "one of %s)" % (where, o.src_type, ", ".join(ELTWISE)))


def self_names(doc, i):
    return set(d["name"] for d in doc["ops"][:i])


def elems(shape):
    n = 1
    for x in shape:
        n *= x
    return n
