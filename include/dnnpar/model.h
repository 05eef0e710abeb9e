/*
 * dnnpar/model.h - the graph IR (ops, shapes, per-op costs), the model zoo and the
 * loaders (AccPar layer text, ONNX, model JSON) (src/model/).
 *
 * Part of libdnnpar's public API: include <dnnpar.h>, which includes each
 * header under dnnpar/, or this header alone (it includes what it needs).  Its
 * conventions are dnnpar.h's (status and error record, dnp_X_new / dnp_X_free
 * pairs, units in names; docs/library.md).
 * Ownership: a graph is created by dnp_graph_new or a loader (*out owns it)
 * and freed with dnp_graph_free; dnp_graph_op's pointer is borrowed until the
 * graph changes; texts (dnp_model_to_json) are freed with dnp_free.
 */
#ifndef DNNPAR_PUBLIC_MODEL_H
#define DNNPAR_PUBLIC_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core.h"

/* Default visibility for what this header declares (core.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------ */
/* Graph IR                                                             */
/* ------------------------------------------------------------------ */

typedef enum {
    DNP_OP_INPUT = 0,
    DNP_OP_CONV,
    DNP_OP_FC,
    DNP_OP_MAXPOOL,
    DNP_OP_AVGPOOL,
    DNP_OP_RELU,
    DNP_OP_ADD,
    DNP_OP_CONCAT,
    DNP_OP_BATCHNORM,
    DNP_OP_LRN,
    DNP_OP_FLATTEN,
    DNP_OP_SOFTMAX,
    DNP_OP_DROPOUT,
    DNP_OP_MATMUL,    /* product of two activations (batched), no weights */
    DNP_OP_EMBEDDING, /* table lookup: a V x D weight table indexed by its input */
    DNP_OP_LAYERNORM, /* normalisation over the feature axis, with scale and shift */
    DNP_OP_ELTWISE,   /* any other element-wise op (sigmoid, gelu, mul, sub, bias add, ...) */
    DNP_OP_RESHAPE,   /* data movement without arithmetic: reshape, transpose, slice, pad */
    DNP_OP_REDUCE,    /* reduction over some axes (mean) */
    /* Ops on named axes (src/model/graph_named.h, docs/models.md "Named axes") */
    DNP_OP_EINSUM,    /* contraction with named loop dims (equation), optional weight operand */
    DNP_OP_LSTM,      /* stacked LSTM over a (batch, sequence, feature) tensor */
    DNP_OP_STACK,     /* n equal tensors stacked along a new axis */
    DNP_OP_SELECT,    /* one slice of an axis (the axis disappears) */
    DNP_OP_KIND_COUNT
} dnp_op_kind;

#define DNP_MAX_RANK 6

typedef struct dnp_graph dnp_graph;

/* Per-sample activation shape: channels x height x width.  A vector of
 * features (fully connected layers) is c x 1 x 1.  Tensors that are not
 * images (e.g. sequence x features) are viewed with c = the last axis (the
 * feature axis a layer contracts or produces) and h = the product of the
 * other per-sample axes, w = 1.  An op stores only its output's axes
 * (out_rank, out_dims); this view is derived from them (dnp_op_out_view,
 * dnp_op_in_view; docs/model.md "Shapes"). */
typedef struct {
    int64_t c, h, w;
} dnp_shape;

/* How an op's out_dims give its c x h x w view (dnp_op_out_view). */
typedef enum {
    DNP_VIEW_CHW = 0, /* built on the view: out_dims = {c, h, w}, out_rank 3 (no axes given) */
    DNP_VIEW_IMAGE,   /* given axes C x H x W (an image): the view is the axes */
    DNP_VIEW_LAST     /* given axes: c = the last, h = the product of the others, w = 1 */
} dnp_view;

/* One operation.  Shapes are per sample; the batch is a parameter of every
 * query, never stored in the graph.  The output's shape is stored once, as
 * its per-sample axes (out_rank >= 1, out_dims); its c x h x w view and the
 * first input's are derived (dnp_op_out_view, dnp_op_in_view). */
typedef struct {
    char name[64];
    dnp_op_kind kind;
    int n_inputs;
    int *inputs;     /* indices of producer ops, owned by the graph */
    int kh, kw;      /* kernel (conv, pooling, LRN size in kh) */
    int sh, sw;      /* stride */
    int ph, pw;      /* padding */
    int groups;      /* conv groups (1 = dense) */
    int bias;        /* conv / FC has a bias vector */
    int keep_positions;   /* FC applied at every position (c = features), not flattening */
    int64_t contract;     /* matmul: length of the contracted axis */
    int64_t param_elems;  /* parameters of ops without a kernel (embedding table, norm
                           * scale and shift, element-wise bias or scale) */
    char src_type[24];    /* operator it was imported from ("Gelu"), "" if built-in */
    int out_rank;         /* per-sample axes of the output, 1 to DNP_MAX_RANK */
    int64_t out_dims[DNP_MAX_RANK];
    dnp_view view;        /* how out_dims give the c x h x w view; DNP_VIEW_CHW: the
                           * builder's c, h, w (dnp_op_has_axes is 0) */
    /* Named axes ("" on an op without; src/model/graph_named.h) */
    char axes[DNP_MAX_RANK + 2]; /* the output's axes, one letter each, 'b' the batch (the
                                  * per-sample ones are out_dims in this order) */
    char loops[DNP_MAX_RANK + 4];/* iteration-space dim names ("" = the kind's default) */
    char equation[40];    /* einsum "ble,shek->sbhlk"; one input: the second operand is
                           * a weight whose extents the input and output give */
    int axis;             /* stack, select: the axis (index into axes) */
    int index;            /* select: the slice taken */
    int layers;           /* lstm: stacked layers */
    char model_axis;      /* loop dim expert strategies split for model parallelism (0: default) */
    double ratio;         /* dropout: the probability of zeroing an element (0: not given) */
} dnp_op;

/* The c x h x w view of op's output, derived from its axes: DNP_VIEW_CHW
 * and DNP_VIEW_IMAGE read out_dims as c, h, w; DNP_VIEW_LAST takes c = the
 * last axis, h = the product of the others (bounded when the op was
 * built), w = 1.  O(out_rank), no allocation. */
dnp_shape dnp_op_out_view(const dnp_op *op);
/* The c x h x w view of op i's first input: the view of its producer's
 * output (an FC flattens it into c*h*w features), {0, 0, 0} for an op
 * without inputs (a graph input) or i out of range.  O(1) as
 * dnp_op_out_view. */
dnp_shape dnp_op_in_view(const dnp_graph *g, int i);
/* 1 if op's output axes were given (named axes, an importer's or a
 * transformer builder's real axes: view DNP_VIEW_IMAGE or DNP_VIEW_LAST),
 * 0 if they are the c x h x w of a builder (DNP_VIEW_CHW).  O(1). */
int dnp_op_has_axes(const dnp_op *op);

/* Attributes for dnp_graph_append (zero-initialise and set what applies). */
typedef struct {
    int kh, kw, sh, sw, ph, pw, groups, bias;
    int keep_positions;
    int64_t contract;
    int64_t param_elems;
    const char *src_type;
    int out_rank;
    int64_t out_dims[DNP_MAX_RANK];
    /* named axes: as the dnp_op fields of the same names */
    const char *axes, *loops, *equation;
    int axis, index, layers;
    char model_axis;
    double ratio;
} dnp_op_attrs;

/* Iteration-space dimension of an op: a name ("b", "c", "n", "h", "w",
 * "r", "s") and its extent for a given batch. */
typedef struct {
    char name[4];
    int64_t size;
} dnp_dim;

#define DNP_MAX_DIMS 7

/* Costs of one op for a batch (AccPar Table 6; conv entries times the
 * 2-D size, see docs/model.md). */
typedef struct {
    int64_t params;          /* trainable parameters (weights + bias + BN affine) */
    int64_t weight_elems;    /* A(W): kernel elements, no bias */
    int64_t macs_per_sample; /* multiply-accumulates of conv / FC, 0 for other ops */
    double fwd_flop;         /* forward, whole batch */
    double bwd_flop;         /* backward (input error), whole batch */
    double grad_flop;        /* weight gradient, whole batch */
    int64_t in_elems;        /* A(F_l): input activation elements, whole batch (first input) */
    int64_t out_elems;       /* A(F_l+1): output activation elements, whole batch */
} dnp_op_cost;

/* Create an empty graph named `name` (copied).  Returns NULL on allocation
 * failure.  Free with dnp_graph_free. */
dnp_graph *dnp_graph_new(const char *name);
void dnp_graph_free(dnp_graph *g);

/* A free-text note shown by `dnnpar info` (e.g. which AlexNet variant). */
void dnp_graph_set_note(dnp_graph *g, const char *note);
const char *dnp_graph_name(const dnp_graph *g);
const char *dnp_graph_note(const dnp_graph *g);
/* The optimizer whose update and state a step prices (docs/model.md,
 * "Default optimizer"). */
typedef enum {
    DNP_OPTIM_MOMENTUM = 0, /* SGD with momentum (default; ResNet training) */
    DNP_OPTIM_SGD,
    DNP_OPTIM_ADAM,
    DNP_OPTIM_COUNT
} dnp_optimizer;
const char *dnp_optimizer_name(dnp_optimizer o);
int dnp_optimizer_from_name(const char *s);

/* The optimizer a model of g's kind trains with unless told otherwise, so
 * that every planner prices the same update (docs/model.md, "Default
 * optimizer"): Adam when g has attention, a product of two activations
 * (DNP_OP_MATMUL) beside a softmax (transformers: GPT, BERT, LLaMA, ViT
 * train with Adam or AdamW), else SGD with momentum (the CNNs' reference
 * training).  O(ops). */
int dnp_graph_default_optimizer(const dnp_graph *g);
int dnp_graph_n_ops(const dnp_graph *g);
/* Borrowed pointer, valid until the graph is modified or freed. */
const dnp_op *dnp_graph_op(const dnp_graph *g, int i);
/* Index of the op called `name`, or -1.  A hash lookup: O(1) amortised. */
int dnp_graph_find(const dnp_graph *g, const char *name);

/*
 * Builders.  Each appends one op whose inputs must already exist, infers
 * the output shape (floor division as in PyTorch), and returns the new op's
 * index, or -1 with the reason in the graph's error (dnp_graph_error).
 * Names must be unique within the graph.  O(1) amortised.
 */
int dnp_graph_input(dnp_graph *g, const char *name, int64_t c, int64_t h, int64_t w);
int dnp_graph_conv(dnp_graph *g, const char *name, int in, int64_t out_c, int k, int stride,
                   int pad, int groups, int bias);
/* Rectangular conv with explicit geometry. */
int dnp_graph_conv2(dnp_graph *g, const char *name, int in, int64_t out_c, int kh, int kw,
                    int sh, int sw, int ph, int pw, int groups, int bias);
/* Conv whose output spatial size is given rather than inferred (used by the
 * AccPar reference format, whose output size already includes pooling). */
int dnp_graph_conv_explicit(dnp_graph *g, const char *name, int in, int64_t out_c, int k,
                            int64_t out_h, int64_t out_w);
/* Fully connected: flattens its input (c*h*w features) to out_features. */
int dnp_graph_fc(dnp_graph *g, const char *name, int in, int64_t out_features, int bias);
/* kind is DNP_OP_MAXPOOL or DNP_OP_AVGPOOL. */
int dnp_graph_pool(dnp_graph *g, const char *name, dnp_op_kind kind, int in, int k, int stride,
                   int pad);
/* Adaptive average pooling to out_h x out_w (PyTorch AdaptiveAvgPool2d). */
int dnp_graph_adaptive_avgpool(dnp_graph *g, const char *name, int in, int64_t out_h,
                               int64_t out_w);
/* Shape-preserving ops: DNP_OP_RELU, DNP_OP_BATCHNORM, DNP_OP_LRN,
 * DNP_OP_DROPOUT, DNP_OP_SOFTMAX. */
int dnp_graph_unary(dnp_graph *g, const char *name, dnp_op_kind kind, int in);
int dnp_graph_flatten(dnp_graph *g, const char *name, int in);
/* Element-wise sum of two tensors of equal shape (residual add). */
int dnp_graph_add(dnp_graph *g, const char *name, int a, int b);
/* Channel concatenation of n inputs of equal spatial size. */
int dnp_graph_concat(dnp_graph *g, const char *name, int n, const int *inputs);
/* Append an op whose output shape the caller has inferred (importers).
 * The input shape is taken from inputs[0].  out is the output's c x h x w
 * view; attrs (may be NULL) may give the output's real axes (out_rank,
 * out_dims), which must then have `out` as their view (an image's C x H x
 * W, or c = the last axis, h = the others: dnp_view), else -1 naming both.
 * No shape checks beyond that and positivity.  Returns the index or -1. */
int dnp_graph_append(dnp_graph *g, const char *name, dnp_op_kind kind, int n_inputs,
                     const int *inputs, dnp_shape out, const dnp_op_attrs *attrs);
/* The first builder error since creation ("" if none). */
const char *dnp_graph_error(const dnp_graph *g);

/* Kind name ("conv", "fc", ...) and back (-1 if unknown). */
const char *dnp_op_kind_name(dnp_op_kind k);
int dnp_op_kind_from_name(const char *s);
/* 1 if op has a weight tensor that AccPar partitions (its D_in x D_out,
 * Table 4): conv, FC, embedding, LSTM, and an einsum with one activation
 * input (its second operand is a weight).  O(1). */
int dnp_op_is_weighted(const dnp_op *op);
/* 1 if op is a join the planner decides a layout for (AccPar's multi-path
 * joins): a residual add, a concat, or any op reading two or more tensors
 * (the product of two activations, a binary element-wise op, a stack).
 * O(1). */
int dnp_op_is_join(const dnp_op *op);
/* The op whose partition decision op i follows: i itself if it decides one
 * (dnp_op_is_weighted or dnp_op_is_join), else the decider of its first
 * input (a ReLU, pooling, normalisation, flatten or other one-input op
 * works on its producer's output, laid out as the producer leaves it), -1
 * if that chain starts at a model input, or for i out of range.  The
 * searches decide the deciding ops; every layer of a plan charges a
 * follower's work to its decider.  O(1) (kept as ops are appended). */
int dnp_graph_decider(const dnp_graph *g, int i);

/* Named iteration-space dimensions of op i for `batch`; returns the count
 * (<= DNP_MAX_DIMS).  conv: b c n h w r s (c input channels, n output
 * channels, h w output spatial, r s kernel); fc: b c n; others: b c h w. */
int dnp_op_dims(const dnp_graph *g, int i, int64_t batch, dnp_dim *dims);

/* Cost figures of op i for `batch`.  Per-sample sizes are bounded when
 * ops are built (2^40 elements per tensor, 2^53 multiply-accumulates);
 * element counts for a batch that dnp_graph_check_batch refuses saturate
 * at INT64_MAX rather than overflow.  O(1). */
void dnp_op_cost_get(const dnp_graph *g, int i, int64_t batch, dnp_op_cost *out);

typedef struct {
    int64_t params;
    int64_t macs_per_sample;
    double forward_flop;   /* whole batch */
    double training_flop;  /* forward + backward + gradient, whole batch */
    int64_t activation_elems; /* sum of op outputs, whole batch */
} dnp_graph_totals;

/* Sums of dnp_op_cost_get over the ops (integer sums saturate at
 * INT64_MAX).  O(ops). */
void dnp_graph_totals_get(const dnp_graph *g, int64_t batch, dnp_graph_totals *out);

/* DNP_OK if every element count of g's cost figures for `batch` (each
 * tensor and their sum) fits in int64; otherwise DNP_ERR_INPUT naming the
 * batch and the op.  Call before costing a batch read from input.  O(ops). */
dnp_status dnp_graph_check_batch(const dnp_graph *g, int64_t batch, dnp_error *err);

/* ------------------------------------------------------------------ */
/* Model zoo and loaders                                               */
/* ------------------------------------------------------------------ */

/* Build built-in model `name` (case-insensitive, e.g. "vgg19", "resnet50").
 * On success *out owns a new graph (dnp_graph_free).  O(size of model). */
dnp_status dnp_zoo_build(const char *name, dnp_graph **out, dnp_error *err);
/* Number of zoo models and the i-th canonical name. */
int dnp_zoo_count(void);
const char *dnp_zoo_name(int i);
/* One-line description of zoo model i (input size, variant). */
const char *dnp_zoo_description(int i);

/* Load the AccPar authors' layer text format (num_layers N, then per layer
 * "<name> CONV|FC" followed by key/value lines).  Errors name file:line.
 * On success *out owns a new graph (dnp_graph_free), as with every loader
 * below. */
dnp_status dnp_load_accpar_text(const char *path, dnp_graph **out, dnp_error *err);
/* The same from memory: `len_bytes` bytes at `data` (need not be
 * NUL-terminated), `name` standing for the file in the graph's name and in
 * messages.  Every loader below has such a _buffer form, for callers
 * (and fuzzers) that hold the bytes already; the path forms read the file
 * (at most the format's size limit; "-" = stdin where documented) and call
 * it.  A missing, unreadable or directory path is DNP_ERR_INPUT with
 * "cannot open PATH: <reason>" or "PATH: is a directory".  The data is
 * only borrowed.  O(len_bytes) plus the format's own cost. */
dnp_status dnp_load_accpar_text_buffer(const char *data, size_t len_bytes, const char *name,
                                       dnp_graph **out, dnp_error *err);

typedef struct {
    int skip_unknown; /* ONNX: unknown operators become free element-wise ops */
} dnp_load_options;

/* Import an ONNX model (docs/onnx.md).  Shapes are inferred; weights may be
 * initializers or shape-only graph inputs.  Errors name the file and the
 * node.  opt may be NULL.  O(nodes). */
dnp_status dnp_load_onnx(const char *path, const dnp_load_options *opt, dnp_graph **out,
                         dnp_error *err);
dnp_status dnp_load_onnx_buffer(const void *data, size_t len_bytes, const char *name,
                                const dnp_load_options *opt, dnp_graph **out, dnp_error *err);

/* Read / write the dnnpar model JSON format (docs/formats.md).  Writing
 * then reading gives back an identical graph.  Errors give file:line:column
 * or the op's index and name. */
dnp_status dnp_model_read_json(const char *path, dnp_graph **out, dnp_error *err);
dnp_status dnp_model_read_json_buffer(const char *data, size_t len_bytes, const char *name,
                                      dnp_graph **out, dnp_error *err);
/* The JSON text of a model (caller frees it with dnp_free); NULL on allocation failure. */
char *dnp_model_to_json(const dnp_graph *g);

/* The largest model a loader accepts: model JSON ops, ONNX nodes. */
#define DNP_MAX_MODEL_OPS 1000000

/* Load a model: a zoo name, "-" (model JSON on standard input) or a file,
 * recognised by content: JSON if its first non-blank byte is '{' (dnnpar
 * model JSON, docs/formats.md), ONNX if its first byte is not text, else by
 * extension (.onnx, .json) or the AccPar layer text format.  An unknown
 * name's error suggests the nearest zoo name.  On success *out owns a new
 * graph (dnp_graph_free).  O(size of the model). */
dnp_status dnp_model_load(const char *name_or_path, dnp_graph **out, dnp_error *err);
dnp_status dnp_model_load_opts(const char *name_or_path, const dnp_load_options *opt,
                               dnp_graph **out, dnp_error *err);

/* A model recognised as a transformer by its structure (src/model/
 * recognize.c, docs/config3d.md "Your own transformer"): the zoo spec of
 * the transformer of the same shape, for reference (the Megatron-LM (3D)
 * path plans the graph itself, its layers found by
 * dnp_graph_transformer_layout). */
typedef struct {
    char spec[256];          /* "gpt(hidden=768,heads=12,...)", or the zoo name when native */
    int native;              /* 1: the graph is a zoo transformer already (spec = its name) */
    int64_t params_model;    /* parameters of the given graph */
    int64_t params_spec;     /* parameters of the transformer built from spec */
    char assumed[256];       /* what spec assumes that the graph does not show ("" if nothing) */
} dnp_transformer_match;

/* Recognise g as a token transformer by structure, not by op names: the
 * token embedding (the largest EMBEDDING: vocabulary x hidden), one
 * attention per layer (a SOFTMAX between two activation products: heads x
 * sequence x sequence scores), the per-position fully connected layers
 * (fused or separate Q, K, V: the key-value heads; the projection; the MLP:
 * up and down, or gate, up and down for SwiGLU) and the output layer (an
 * untied FC to the vocabulary, a product with the table, or none).  Writes
 * *out and returns DNP_OK, or DNP_ERR_INPUT naming what is missing or the
 * op that fits no transformer layer; also DNP_ERR_INPUT when the spec's
 * model has more than 2% more or fewer parameters than g (the recognition
 * missed something; both counts in the message), and when g's layout
 * (dnp_graph_transformer_layout, which the simulator reads) is not found,
 * with its reason.  g is only read.  O(ops + edges). */
dnp_status dnp_graph_match_transformer(const dnp_graph *g, dnp_transformer_match *out,
                                       dnp_error *err);

/* What an op does in a transformer recognised by structure
 * (dnp_graph_transformer_layout; docs/config3d.md "How layers are found"). */
typedef enum {
    DNP_TF_OTHER = 0,     /* any other op (a bias add, the input) */
    DNP_TF_VIEW,          /* data movement only (reshape, transpose, slice) */
    DNP_TF_EMBED_TOKENS,  /* the token embedding (vocabulary x hidden) */
    DNP_TF_EMBED_POSITIONS, /* learned positions (the first other table before the layers) */
    DNP_TF_EMBED_OTHER,   /* another table before the layers (BERT's token types) */
    DNP_TF_QKV,           /* Q, K and V fused in one fully connected layer */
    DNP_TF_Q,             /* separate projections */
    DNP_TF_K,
    DNP_TF_V,
    DNP_TF_ATTN_PREP,     /* between the projections and the scores (bias, scale, rotation) */
    DNP_TF_SCORES,        /* Q K^T */
    DNP_TF_ATTN_MASK,     /* between the scores and the softmax (scale, mask) */
    DNP_TF_SOFTMAX,
    DNP_TF_ATTN_DROPOUT,  /* dropout on the attention probabilities */
    DNP_TF_CONTEXT,       /* the probabilities times V */
    DNP_TF_PROJ,          /* the attention's output projection */
    DNP_TF_MLP_UP,        /* hidden -> feed-forward (or both SwiGLU halves fused) */
    DNP_TF_MLP_GATE,      /* SwiGLU's gate (the first of two up projections) */
    DNP_TF_MLP_ACT,       /* between the up and down projections (activation, product, bias) */
    DNP_TF_MLP_DOWN,      /* feed-forward -> hidden */
    DNP_TF_NORM,          /* a layer norm, or a piece of a decomposed one */
    DNP_TF_RESIDUAL,      /* a residual add (two per layer) */
    DNP_TF_DROPOUT,       /* a dropout on the hidden states */
    DNP_TF_HEAD,          /* the output layer: an untied fully connected layer to the vocabulary */
    DNP_TF_HEAD_TIED,     /* the logits as a product with the embedding table */
    DNP_TF_POOLER,        /* BERT's pooler (first token: dense and its activation) */
    DNP_TF_ROLE_COUNT
} dnp_tf_role;

/* A transformer's ops by layer and role, read from its structure. */
typedef struct {
    int n_ops;            /* ops of the graph it was read from */
    int layers;           /* transformer layers */
    int first_op, last_op;/* the layers' ops are [first_op, last_op], in graph order */
    int *layer;           /* [n_ops]: the op's layer, -1 before the first or after the last */
    dnp_tf_role *role;    /* [n_ops] */
    int embed_op;         /* the token embedding */
    int post_ln;          /* 1: the norms follow the residual adds (BERT) */
    int64_t hidden, heads, seq, vocab; /* features, attention heads, tokens, table rows */
} dnp_transformer_layout;

/* Read g's layers and the role of each op by structure, never by names:
 * the token embedding (the largest EMBEDDING); per layer the attention (a
 * SOFTMAX fed by a product of activations: the scores, then the context
 * product), its Q/K/V projections (the fully connected layers between the
 * layer's input and the scores: one fused, or three), the projection (the
 * first fully connected layer after the context), two residual ADDs, the
 * MLP between them (up, or gate and up, then down back to the hidden
 * size); a layer spans the ops after its input (the first residual add's
 * other operand) up to the next layer's input; the last layer ends as
 * far after its second add as the first.  Ops are assumed in a
 * topological order that keeps each layer contiguous (the zoo's, ONNX
 * exporters').  On success *out owns a new layout (free it with
 * dnp_transformer_layout_free); on failure *out is NULL and DNP_ERR_INPUT
 * names what is missing (e.g. "no attention").  g is only read.  O(ops +
 * edges). */
dnp_status dnp_graph_transformer_layout(const dnp_graph *g, dnp_transformer_layout **out,
                                        dnp_error *err);
/* Free a layout (NULL is fine).  O(1). */
void dnp_transformer_layout_free(dnp_transformer_layout *lay);
/* A role's name ("qkv", "mlp.down", ...; static storage).  O(1). */
const char *dnp_tf_role_name(dnp_tf_role r);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_PUBLIC_MODEL_H */
