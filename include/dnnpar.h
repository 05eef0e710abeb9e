/*
 * dnnpar.h - public API of libdnnpar.
 *
 * dnnpar plans and simulates parallel DNN training on arrays of (possibly
 * heterogeneous) accelerators.  This header is the only one the CLI uses.
 *
 * Conventions
 *   - Every function that can fail returns a dnp_status and fills a
 *     caller-owned dnp_error with one human-readable line naming what and
 *     where.  Output parameters are written only on success.
 *   - Objects are created and destroyed in pairs (dnp_X_new / dnp_X_free);
 *     freeing NULL is a no-op.
 *   - Quantities carry their unit in the name: _s (seconds), _bytes,
 *     _flop (floating-point operations), _flops (FLOP per second),
 *     _elems (tensor elements), _bps (bytes per second).
 */
#ifndef DNNPAR_H
#define DNNPAR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Symbol visibility.  The library is compiled with -fvisibility=hidden:
 * only what this header declares is exported (from the shared library,
 * and from the static one, whose internal symbols are made local when it
 * is built), so every exported symbol carries the dnp_ prefix and no
 * internal name can clash with a program's own (docs/library.md). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define DNP_VERSION "0.1.0"

/* ------------------------------------------------------------------ */
/* Status and errors                                                   */
/* ------------------------------------------------------------------ */

typedef enum {
    DNP_OK = 0,
    DNP_ERR_INPUT = 2,   /* bad user input: unknown name, malformed spec, bad number */
    DNP_ERR_NOMEM = 3,   /* allocation failed */
    DNP_ERR_IO = 4,      /* file could not be read or written */
    DNP_ERR_INTERNAL = 5 /* a bug: an invariant did not hold */
} dnp_status;

/* The error record of every fallible call.  Pass a cleared one (zero-
 * initialised, or dnp_error_clear after a failure): a record that already
 * holds an error keeps it (dnp_error_set keeps the first), and calls that
 * check the record, such as the ONNX loader, then fail with it. */
typedef struct {
    dnp_status status;
    char msg[512];
} dnp_error;

/* Record an error (printf-style).  Keeps the first error if one is set. */
void dnp_error_set(dnp_error *err, dnp_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Clear an error record. */
void dnp_error_clear(dnp_error *err);

/* ------------------------------------------------------------------ */
/* Memory                                                               */
/* ------------------------------------------------------------------ */

/* The one allocator hook.  Every byte libdnnpar and the dnnpar CLI
 * allocate goes through it, including what jansson and protobuf-c allocate
 * on the library's behalf.  `alloc` returns NULL on failure; `resize` has
 * realloc's contract (on failure NULL, the old block untouched); `release`
 * takes NULL.  `ctx` is passed back to each call. */
typedef struct {
    void *(*alloc)(void *ctx, size_t size_bytes);
    void *(*resize)(void *ctx, void *ptr, size_t size_bytes);
    void (*release)(void *ctx, void *ptr);
    void *ctx;
} dnp_allocator;

/* Install `a` (copied); NULL restores malloc/realloc/free.  Not
 * thread-safe: call it while no other dnp_ call is running, and free every
 * block with the hook that allocated it.  O(1). */
void dnp_set_allocator(const dnp_allocator *a);

/* malloc/calloc/realloc/free/strdup through the hook.  A size of 0
 * allocates one byte, so NULL always means failure; dnp_calloc and
 * dnp_realloc_array check count x size for overflow (NULL).  Every pointer
 * the library hands to the caller to free is freed with dnp_free. */
void *dnp_malloc(size_t size_bytes);
void *dnp_calloc(size_t count, size_t size_bytes);
void *dnp_realloc(void *ptr, size_t size_bytes);
void *dnp_realloc_array(void *ptr, size_t count, size_t size_bytes);
void dnp_free(void *ptr);
char *dnp_strdup(const char *s);

/* ------------------------------------------------------------------ */
/* Output files (src/core/outfile.c)                                    */
/* ------------------------------------------------------------------ */

/* Every file dnnpar writes goes through one writer that behaves like a
 * Unix tool (docs/cli.md, "Output files").  What `path` is decides how:
 *   "-"                 standard output (flushed, never closed);
 *   missing, or a regular file
 *                       a new temporary file beside it, renamed over it by
 *                       dnp_output_close: readers never see a partial
 *                       file and a failure leaves the old file (or none).
 *                       A new file gets mode 0666 less the umask; a
 *                       replaced file keeps its permission bits (not its
 *                       owner, group or hard links);
 *   a symbolic link     followed: a regular target is replaced as above
 *                       (the link stays), any other target is written in
 *                       place; a dangling link creates its target;
 *   a device, FIFO or socket
 *                       opened and written in place, never replaced
 *                       (opening a FIFO waits for a reader);
 *   a directory         DNP_ERR_IO.
 * Errors are DNP_ERR_IO "cannot write 'PATH': REASON" ("error writing
 * standard output: REASON" for "-"), or DNP_ERR_NOMEM. */
typedef struct dnp_output dnp_output;

/* Open `path` (see above).  On success *out owns the output: end it with
 * dnp_output_close or dnp_output_abort.  O(length of path). */
dnp_status dnp_output_open(const char *path, dnp_output **out, dnp_error *err);
/* The stream to write to (borrowed; valid until close or abort).  Its
 * descriptor may be handed to a child process while nothing is buffered. */
FILE *dnp_output_stream(dnp_output *o);
/* Record that a write to the stream failed with errno `errnum` (0: EIO),
 * for writers that cannot return the error at once; close then fails. */
void dnp_output_fail(dnp_output *o, int errnum);
/* Flush and close (standard output: flush only), then put a temporary file
 * in place.  Any write, flush, close or rename failure - including one
 * recorded earlier or left on the stream's error flag - is reported and
 * the temporary file removed.  Frees o in every case (NULL: DNP_OK). */
dnp_status dnp_output_close(dnp_output *o, dnp_error *err);
/* Give up: a temporary file is removed (the target untouched); what was
 * written in place stays.  Frees o (NULL: no-op). */
void dnp_output_abort(dnp_output *o);
/* Write `len` bytes of `text` to `path` through one dnp_output.  O(len). */
dnp_status dnp_write_file(const char *path, const char *text, size_t len, dnp_error *err);

/* ------------------------------------------------------------------ */
/* Name suggestions                                                     */
/* ------------------------------------------------------------------ */

/* The candidate nearest to `word` for a "did you mean ...?" message, or
 * NULL when none is close.  Distance: optimal string alignment (Levenshtein
 * plus adjacent transpositions), case-insensitive; close means at most 1
 * edit for words of up to 3 characters, 2 up to 6, else 3, and less than
 * the word's length.  Ties go to the earlier candidate, so the answer is
 * deterministic.  NULL entries in `candidates` are skipped.  Returns a
 * pointer into `candidates` (not owned); allocates nothing for words and
 * candidates under 64 characters (longer ones count as not close).
 * O(n x len(word) x len(candidate)). */
const char *dnp_suggest(const char *word, const char *const *candidates, size_t n);
/* The edit distance dnp_suggest uses; -1 if either string is NULL or 64
 * characters or longer.  O(len(a) x len(b)). */
int dnp_edit_distance(const char *a, const char *b);

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

/* Per-sample activation shape: channels x height x width.  A vector of
 * features (fully connected layers) is c x 1 x 1.  Tensors that are not
 * images (e.g. sequence x features) are viewed with c = the last axis (the
 * feature axis a layer contracts or produces) and h = the product of the
 * other per-sample axes, w = 1; the op keeps their real axes (out_rank). */
typedef struct {
    int64_t c, h, w;
} dnp_shape;

/* One operation.  Shapes are per sample; the batch is a parameter of every
 * query, never stored in the graph. */
typedef struct {
    char name[64];
    dnp_op_kind kind;
    int n_inputs;
    int *inputs;     /* indices of producer ops, owned by the graph */
    dnp_shape in;    /* shape of the first input (for FC: flattened into in.c*in.h*in.w) */
    dnp_shape out;   /* output shape */
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
    int out_rank;         /* real per-sample axes of the output, 0 = the c x h x w view */
    int64_t out_dims[DNP_MAX_RANK];
    /* Named axes ("" / 0 on the c x h x w view; src/model/graph_named.h) */
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

typedef struct dnp_graph dnp_graph;

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
 * The input shape is taken from inputs[0].  No shape checks beyond
 * positivity; attrs may be NULL.  Returns the index or -1. */
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
 * On success *out owns a new graph.  O(size of model). */
dnp_status dnp_zoo_build(const char *name, dnp_graph **out, dnp_error *err);
/* Number of zoo models and the i-th canonical name. */
int dnp_zoo_count(void);
const char *dnp_zoo_name(int i);
/* One-line description of zoo model i (input size, variant). */
const char *dnp_zoo_description(int i);

/* Load the AccPar authors' layer text format (num_layers N, then per layer
 * "<name> CONV|FC" followed by key/value lines).  Errors name file:line. */
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
 * name's error suggests the nearest zoo name.  O(size of the model). */
dnp_status dnp_model_load(const char *name_or_path, dnp_graph **out, dnp_error *err);
dnp_status dnp_model_load_opts(const char *name_or_path, const dnp_load_options *opt,
                               dnp_graph **out, dnp_error *err);

/* A model recognised as a transformer by its structure (src/model/
 * recognize.c, docs/config3d.md "Your own transformer"): the zoo spec of
 * the transformer of the same shape, which the Megatron-LM (3D) path plans
 * in its place. */
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
 * missed something; both counts in the message).  g is only read.
 * O(ops + layers). */
dnp_status dnp_graph_match_transformer(const dnp_graph *g, dnp_transformer_match *out,
                                       dnp_error *err);

/* ------------------------------------------------------------------ */
/* Clusters                                                             */
/* ------------------------------------------------------------------ */

#define DNP_MAX_DEVICE_TYPES 8

/* Numeric precision of training (--precision).  DEFAULT is the device's
 * own dtype.  AMP: fp16 tensor-core compute and activations, fp32 master
 * weights, gradients and optimizer state (PyTorch torch.cuda.amp). */
typedef enum {
    DNP_PREC_DEFAULT = 0,
    DNP_PREC_FP32,
    DNP_PREC_TF32,
    DNP_PREC_FP16,
    DNP_PREC_BF16,
    DNP_PREC_AMP,
    DNP_PREC_COUNT
} dnp_precision;

const char *dnp_precision_name(dnp_precision p); /* "fp32", ...; "default" */
int dnp_precision_from_name(const char *s);      /* -1 if unknown */

/* How the devices of one node are joined (the intra-node link tier). */
typedef enum {
    DNP_TOPO_NONE = 0,   /* bare devices: one device per node, no intra tier */
    DNP_TOPO_SWITCH,     /* full-bandwidth switch (NVSwitch): any pattern at link rate */
    DNP_TOPO_RING,       /* rings over point-to-point links (DGX-1 hybrid cube-mesh, PCIe) */
    DNP_TOPO_TORUS2D     /* 2-D torus (TPU ICI) */
} dnp_link_topo;

/* A node's network beyond its two tiers' figures, as data (docs/cluster.md,
 * "Network kinds"): a kind name and named numbers that src/topo interprets
 * (topo/network.c: "rail", a rail-optimised fat tree; "torus", the node's
 * devices on an x x y torus).  src/hw parses, compares, prints and reads it
 * from JSON without interpreting it, so a new kind needs no change there:
 * spec keys net=KIND and net.NAME=NUMBER, each number stored as written
 * (its unit in its name, e.g. spine_lat_us).  kind "" = none: today's
 * flat network (every NIC on one non-blocking switch tier).  Whether a kind
 * and its numbers make sense is dnp_cluster_check's (src/topo). */
#define DNP_NET_MAX_PARAMS 4
typedef struct {
    char kind[16];                                /* "" = flat */
    int n_params;                                 /* 0..DNP_NET_MAX_PARAMS */
    char param_name[DNP_NET_MAX_PARAMS][16];      /* "oversub", "x", ... */
    double param_value[DNP_NET_MAX_PARAMS];       /* finite, >= 0, as written */
} dnp_net_desc;

typedef struct {
    char name[32];
    double peak_flops;        /* FLOP/s at `dtype` (the AccPar model's c_i) */
    double mem_bytes;         /* on-device memory capacity */
    double mem_bw_bps;        /* memory bandwidth, bytes/s */
    double net_bw_bps;        /* network bandwidth per device, bytes/s (AccPar's b_i) */
    int bytes_per_elem;       /* training data type size */
    char dtype[16];           /* "bfloat16", "fp16", "fp32" */
    /* Peak dense FLOP/s per precision; 0 = not supported by the device
     * (falls back as docs/cluster.md says). */
    double peak_fp32_flops, peak_tf32_flops, peak_fp16_flops, peak_bf16_flops;
    /* Achieved fractions of peak (docs/device-model.md): compute_eff on
     * conv / matmul, mem_eff of memory bandwidth on memory-bound ops;
     * kernel_overhead_s is a fixed time per kernel.  0 = model default. */
    double compute_eff, mem_eff, kernel_overhead_s;
    /* The kernel model by shape (docs/device-model.md, "GEMM tiles and
     * waves"): sm_count compute units (SMs, CUs) that run a GEMM's output
     * tiles concurrently, 0 = unknown (no tile or wave quantization);
     * l2_bw_bps the on-chip cache bandwidth that feeds the tiles' operands,
     * bytes/s, 0 = model default; host_kernel_s the host (framework) time to
     * issue one kernel, which the device cannot outrun, 0 = model default. */
    int sm_count;
    double l2_bw_bps;
    double host_kernel_s;
    /* What one device costs per hour of use, in the user's currency (spec
     * key price=, cluster JSON price_per_hour; 0 = unknown: presets carry
     * none).  Only the cost objective reads it (docs/config3d.md,
     * "Objectives"). */
    double price_per_hour;
    /* Spread of sustained speed across devices of this type: the relative
     * standard deviation of one device's kernel times (0 = identical
     * devices).  A synchronous step waits for the slowest of the devices it
     * uses (docs/device-model.md, "Stragglers"); GPU presets carry the
     * spread Sinha et al. (SC'22) measured, TPU presets 0. */
    double speed_cv;
    /* Node and link tiers.  Bare devices ("8xa100"): node "" and
     * devices_per_node 1, every transfer on the inter tier at net_bw_bps. */
    char node[32];            /* node preset name ("dgx-a100"), "" for bare devices */
    int devices_per_node;     /* >= 1 */
    dnp_link_topo intra_topo; /* how a node's devices are joined */
    double intra_bw_bps;      /* per device, one direction, inside a node */
    double intra_lat_s;       /* per message inside a node */
    double inter_bw_bps;      /* per device, one direction, between nodes (node NICs / devices) */
    double inter_lat_s;       /* per message between nodes */
    dnp_net_desc net;         /* the network's kind and numbers, src/topo reads them */
} dnp_device_type;

typedef struct {
    int n_types;
    dnp_device_type types[DNP_MAX_DEVICE_TYPES];
    int64_t counts[DNP_MAX_DEVICE_TYPES];
} dnp_cluster;

/* Predicted time in seconds of one GEMM kernel, batch_count independent
 * (m x k) . (k x n) products, at precision p (DEFAULT = d's dtype) on one
 * device of type d: max(FLOP / (peak x compute_eff x gemm_eff), operand
 * bytes / (mem_bw_bps x mem_eff)) + kernel_overhead_s, where FLOP =
 * 2 b m n k, gemm_eff is the shape's fraction of the ceiling from tile and
 * wave quantization on d's sm_count (1 when sm_count is 0) and the operand
 * bytes are b (m k + k n + m n) elements read or written once
 * (docs/device-model.md, "GEMM tiles and waves"; the roofline and defaults
 * of "The roofline").  The time the op-level models give a plain GEMM,
 * without host dispatch (host_kernel_s) or stragglers.  Dimensions are
 * real numbers >= 1 (NAN otherwise, or if d is NULL).  Nothing allocated.
 * O(30) (the tile and split candidates). */
double dnp_device_gemm_time_s(const dnp_device_type *d, dnp_precision p, double batch_count,
                              double m, double n, double k);

/* What bounds an op's kernels (dnp_op_roofline). */
typedef enum {
    DNP_BOUND_NONE = 0, /* no kernels (an input, a free reshape) */
    DNP_BOUND_COMPUTE,  /* arithmetic at the ceiling (tensor or vector math) */
    DNP_BOUND_MEMORY,   /* memory traffic at mem_bw_bps x mem_eff */
    DNP_BOUND_LAUNCH    /* the fixed time per kernel (kernel_overhead_s) */
} dnp_bound;
const char *dnp_bound_name(dnp_bound b); /* "-", "compute", "memory", "launch" */

/* One op's training passes (forward, input gradient, weight gradient) on
 * one device, as the device model prices them (docs/device-model.md,
 * "Per-layer roofline"). */
typedef struct {
    double flop;       /* arithmetic of the three passes, whole batch */
    double bytes;      /* their memory traffic, bytes */
    double intensity;  /* flop / bytes, FLOP per byte (0 without traffic) */
    double time_s;     /* device time of the three passes (no host dispatch, no stragglers) */
    double compute_s;  /* of time_s: kernels whose arithmetic sets their roofline time */
    double memory_s;   /* kernels whose memory traffic sets it */
    double launch_s;   /* the fixed time per kernel */
    double achieved;   /* flop / (time_s x the precision's peak FLOP/s), fraction of peak */
    dnp_bound bound;   /* the largest of compute_s, memory_s, launch_s */
    int kernels;
    dnp_precision precision; /* the precision resolved (never DEFAULT) */
    double peak_flops; /* its peak FLOP/s on the device, what `achieved` divides by */
} dnp_op_roofline;

/* Op `op` of g at global batch `batch` (the whole batch on one device) on
 * device type d at precision p (DEFAULT = d's dtype): *out as above.
 * DNP_ERR_INPUT if op is out of range, batch < 1 or d is NULL.  Nothing
 * allocated.  O(1). */
dnp_status dnp_op_roofline_get(const dnp_graph *g, int op, int64_t batch, const dnp_device_type *d,
                               dnp_precision p, dnp_op_roofline *out, dnp_error *err);

/* Device d's ridge point at precision p: the intensity (FLOP/byte) above
 * which a kernel at the GEMM ceiling is compute-bound, peak x compute_eff /
 * (mem_bw_bps x mem_eff) (the roofline model, Williams et al., CACM 2009);
 * 0 when the bandwidth is unknown.  O(1). */
double dnp_device_ridge_intensity(const dnp_device_type *d, dnp_precision p);

/* Look up preset `name` (case-insensitive). */
dnp_status dnp_device_preset(const char *name, dnp_device_type *out, dnp_error *err);
int dnp_device_preset_count(void);
const dnp_device_type *dnp_device_preset_at(int i);
/* Source of the preset's figures, one line. */
const char *dnp_device_preset_source(int i);

/* Node presets ("dgx1", "dgx-a100", "tpu-v3-32", ...): a device preset's
 * figures with the node fields filled (name = the device's name, node =
 * the node's name, devices_per_node, link tiers).  Same contracts as the
 * device preset functions: lookup case-insensitive, *out written only on
 * success, DNP_ERR_INPUT naming the known nodes if unknown; _at and
 * _source return NULL out of range.  Figures and sources in docs/cluster.md. */
int dnp_node_preset_count(void);
const dnp_device_type *dnp_node_preset_at(int i);
const char *dnp_node_preset_source(int i);
dnp_status dnp_node_preset(const char *name, dnp_device_type *out, dnp_error *err);

/* "none", "switch", "ring", "torus2d" ("?" out of range) and back (-1 if unknown). */
const char *dnp_link_topo_name(dnp_link_topo t);
int dnp_link_topo_from_name(const char *s);

/* Parse a cluster spec such as "128xtpu-v2+128xtpu-v3", "8xtpu-v3",
 * "2xdgx-a100+2xdgx1" (counts of nodes: 16 a100 and 16 v100 devices) or
 * "4xcustom(name=g,tflops=100,mem_gb=32,membw_gbps=900,net_gbps=100,dtype=fp16)".
 * Counts in the result are always devices.  Types are told apart by device
 * and node name: "1xdgx1+2xv100" has two v100 types.  A preset may carry
 * changed figures, "2xdgx-a100(inter_gbps=400)", and a custom(...) named like
 * a preset takes the preset's figures for the keys it omits.  Grammar and units in
 * docs/cluster.md; the canonical form always writes the count ("1xtpu-v3")
 * and writes node presets in node form ("2xdgx-a100").  O(length). */
dnp_status dnp_cluster_parse(const char *spec, dnp_cluster *out, dnp_error *err);
/* Canonical spec text of a cluster, e.g. "128xtpu-v2+128xtpu-v3"; parsing it
 * gives back *c exactly, every field.  Writes at most n bytes into buf
 * (NUL-terminated when n > 0; buf may be NULL when n is 0) and returns the
 * full text's length without its NUL, as snprintf does: a caller allocates
 * the returned length + 1 bytes for the whole text (custom device types
 * make it run to hundreds of bytes a type).  O(types). */
size_t dnp_cluster_format(const dnp_cluster *c, char *buf, size_t n);
/* Bytes that hold any cluster's canonical spec with its NUL (8 types of
 * custom(...) with every figure are under 6,000). */
#define DNP_CLUSTER_SPEC_MAX 8192
/* The whole canonical spec of *c (dnp_cluster_format) as a new text the
 * caller frees with dnp_free; NULL when out of memory.  Never cut.
 * O(types). */
char *dnp_cluster_spec(const dnp_cluster *c);
int64_t dnp_cluster_devices(const dnp_cluster *c);
/* Checks what the parser stores without reading (dnp_net_desc): each
 * type's network kind is one src/topo knows, with only its own numbers, in
 * range, fitting the type's node (e.g. a torus's x y = devices_per_node).
 * Returns DNP_OK, or DNP_ERR_INPUT with a message naming the type and the
 * number ("device type 1 (a100 in dgx-a100): network 'rail': ...").  The CLI
 * runs it on every cluster it loads.  O(types).  src/topo/network.c. */
dnp_status dnp_cluster_check(const dnp_cluster *c, dnp_error *err);
/* Change figures of the device types of *c as a preset override in a spec
 * would ("2xdgx-a100(inter_gbps=400)"; keys, units and checks of
 * docs/cluster.md): `pairs` is "KEY=VALUE[,KEY=VALUE...]" and applies to
 * every type whose device or node name is `type_name` (case-insensitive),
 * or to every type when type_name is NULL.  The keys an override cannot
 * change (name, node, per_node, topo) and node keys on bare devices are
 * refused.  DNP_ERR_INPUT with a message naming the key, the value or the
 * unmatched type; *c is unchanged on error.  O(length + types). */
dnp_status dnp_cluster_override(dnp_cluster *c, const char *type_name, const char *pairs,
                                dnp_error *err);

/* The dnnpar cluster JSON format (docs/formats.md): device types with
 * their figures in SI units and counts.  Writing then reading gives an
 * identical cluster.  The text is caller-owned (dnp_free); NULL on
 * allocation failure.  Errors give file:line:column or the device index. */
char *dnp_cluster_to_json(const dnp_cluster *c);
dnp_status dnp_cluster_read_json(const char *path, dnp_cluster *out, dnp_error *err);
/* From memory (see dnp_load_accpar_text_buffer). */
dnp_status dnp_cluster_read_json_buffer(const char *data, size_t len_bytes, const char *name,
                                        dnp_cluster *out, dnp_error *err);

/* ------------------------------------------------------------------ */
/* Collectives (src/net/collective.c, docs/collectives.md)              */
/* ------------------------------------------------------------------ */

typedef enum {
    DNP_COLL_ALLREDUCE = 0,
    DNP_COLL_REDUCE_SCATTER,
    DNP_COLL_ALLGATHER,
    DNP_COLL_ALLTOALL,
    DNP_COLL_BROADCAST,
    DNP_COLL_P2P,
    DNP_COLL_COUNT
} dnp_coll_op;

/* Canonical name of op: "allreduce", "reducescatter", "allgather",
 * "alltoall", "broadcast", "p2p" ("unknown" out of range).  O(1). */
const char *dnp_coll_name(dnp_coll_op op);
/* The op named s, case-insensitive, '-' and '_' ignored ("all-reduce",
 * "All_Reduce", "allreduce"; "sendrecv" is p2p), or -1 if unknown.
 * O(length of s). */
int dnp_coll_from_name(const char *s);

/* A group of devices taking part in one collective: n_nodes nodes with
 * per_node members each, on the two link tiers of those nodes. */
typedef struct {
    int64_t n_nodes;          /* >= 1 */
    int64_t per_node;         /* >= 1 */
    dnp_link_topo intra_topo;
    double intra_bw_bps, intra_lat_s; /* per device, one direction */
    double inter_bw_bps, inter_lat_s; /* per device, one direction */
    /* The members as a shape[0] x shape[1] grid on a 2-D torus intra tier
     * (intra_topo TORUS2D, shape[0] shape[1] = per_node, a dimension of 1
     * a single ring), when the topology knows it (src/topo, a "torus"
     * network); {0, 0}: unknown, a torus node's members are then taken as
     * the squarest grid (docs/collectives.md, "2-D torus"). */
    int64_t shape[2];
} dnp_comm_group;

typedef struct {
    double time_s;            /* predicted completion time */
    double algbw_bps;         /* bytes / time_s (nccl-tests "algbw") */
    double busbw_bps;         /* algbw x the op's bus factor (nccl-tests "busbw") */
    char algorithm[24];       /* "ring", "tree", "hierarchical", "direct", ... */
} dnp_coll_cost;

/* Predicted time of `op` on `bytes` (the nccl-tests size: all-reduce and
 * broadcast the whole buffer, reduce-scatter its input, all-gather its
 * output, all-to-all the buffer each rank sends, p2p one message) over
 * group g, the fastest algorithm as NCCL picks it (minimum predicted time
 * over the algorithms that apply; ties keep the first of ring, tree,
 * hierarchical, torus-2d, binomial, pairwise, direct).  Alpha-beta models
 * on the tiers the group spans at NCCL's achieved fraction of each link rate
 * (dnp_coll_link_efficiency), formulas and sources in
 * docs/collectives.md.  Units: bytes; out->time_s seconds; algbw_bps and
 * busbw_bps bytes/s (nccl-tests definitions; 0 when time_s is 0).
 * One member: time 0, algorithm "local"; bytes <= 0: time 0, "none";
 * a tier the group needs without bandwidth: time INFINITY,
 * "unavailable".  Never fails.  O(1) (O(sqrt(per_node)) on a torus). */
/* The fractions of the intra-node and network link rates that
 * dnp_coll_estimate moves data at (NCCL's achieved bandwidth as its
 * maintainers measured it; docs/collectives.md, "Link efficiency").
 * Either pointer may be NULL.  O(1). */
void dnp_coll_link_efficiency(double *intra, double *network);
void dnp_coll_estimate(dnp_coll_op op, const dnp_comm_group *g, double bytes,
                       dnp_coll_cost *out);
/* The group of all devices of cluster c, from the device types' node
 * fields (each type's devices fill its own nodes of devices_per_node in
 * order; 0 or 1 = bare devices, one per node): per_node = the fewest
 * devices any node holds (min over types of min(count, devices_per_node)
 * when the counts fill whole nodes, as every parsed cluster's do), n_nodes
 * = ceil(devices / per_node).  Mixed types: the slowest of each tier
 * (least bandwidth, largest latency; the topology of the slowest intra
 * tier).  Inter tier: inter_bw_bps, or net_bw_bps when it is 0.  Intra
 * tier (only when per_node > 1): intra_bw_bps (inter rate if 0), topology
 * NONE read as SWITCH; per_node 1 leaves it zero.  Empty cluster: 1 x 1.
 * docs/collectives.md, "The group of a cluster".  O(types). */
void dnp_cluster_comm_group(const dnp_cluster *c, dnp_comm_group *out);
/* The group of the n devices first, first + stride, ..., first + (n - 1)
 * stride of cluster c (global ranks: types in order, each filling its
 * nodes; stride >= 1), as src/topo maps a set of devices to the links it
 * spans (docs/collectives.md, "The group of a set of devices"): Megatron's
 * data-parallel group of 4 nodes of 8 is (0, 4, 8).  Ranks out of range
 * are ignored.  Same intra-tier convention as dnp_cluster_comm_group.
 * O(n x types). */
void dnp_cluster_comm_group_strided(const dnp_cluster *c, int64_t first, int64_t n,
                                    int64_t stride, dnp_comm_group *out);

/* ------------------------------------------------------------------ */
/* Partitioning: AccPar cost model, searches and baselines               */
/* ------------------------------------------------------------------ */

/* AccPar basic partition types (section 3.2), and R: the layer is not
 * split at that level, each half holding and computing all of it (PaSE
 * configurations that leave devices idle; docs/time-model.md "Replicated
 * layers").  The searches choose among I, II, III; R comes from strategies
 * (dnp_pase_run_strategy, strategy files).  dnp_plan_type returns these
 * for weighted layers and 0..2 (batch, channel, replicated) for joins. */
typedef enum { DNP_TYPE_I = 0, DNP_TYPE_II = 1, DNP_TYPE_III = 2, DNP_TYPE_R = 3 } dnp_ptype;

typedef enum {
    DNP_SCHEME_DP = 0,   /* data parallelism: every layer Type-I, equal split */
    DNP_SCHEME_OWT,      /* one weird trick: conv Type-I, FC Type-II, equal split */
    DNP_SCHEME_HYPAR,    /* HyPar: Types I/II, equal split, communication objective */
    DNP_SCHEME_ACCPAR,   /* AccPar: Types I/II/III, Eq. 10 ratio, time objective */
    DNP_SCHEME_COUNT
} dnp_scheme;

const char *dnp_scheme_name(dnp_scheme s);
int dnp_scheme_from_name(const char *s); /* -1 if unknown */

/* Which performance model judges a plan. */
typedef enum {
    DNP_COST_DEFAULT = 0,  /* roofline devices, collectives on link tiers, step simulator */
    DNP_COST_ACCPAR_PAPER, /* the AccPar paper's accounting (docs/time-model.md) */
    DNP_COST_PASE_PAPER,   /* the PaSE prototype's Eq. 1 in FLOP-equivalents (docs/pase.md);
                            * PaSE-space searches only: dnp_plan_run treats it as an error */
    DNP_COST_COUNT
} dnp_cost_model;
/* "default", "accpar-paper", "pase-paper" */
const char *dnp_cost_model_name(dnp_cost_model m);
int dnp_cost_model_from_name(const char *s);       /* -1 if unknown */

typedef enum {
    DNP_OPTIM_MOMENTUM = 0, /* SGD with momentum (default; ResNet training) */
    DNP_OPTIM_SGD,
    DNP_OPTIM_ADAM,
    DNP_OPTIM_COUNT
} dnp_optimizer;
const char *dnp_optimizer_name(dnp_optimizer o);
int dnp_optimizer_from_name(const char *s);

/* How AccPar sets the split ratio between two different halves
 * (dnp_plan_options.accpar_ratio; docs/time-model.md, "The ratio"). */
typedef enum {
    DNP_RATIO_MODEL = 0, /* the cost model's rule: EQ10 under accpar-paper, SEARCH under default */
    DNP_RATIO_EQ10,      /* Eq. 10 as printed: alpha E_a = beta E_b with per-unit costs (the
                          * group's whole-node compute and each accessed tensor once, Eq. 7-8),
                          * iterated with the level's types to a fixed point */
    DNP_RATIO_SEARCH,    /* the ratio minimising the predicted step of the node's subtree, the
                          * tables' true dependence on alpha (Eq. 10's balance points among
                          * the candidates) */
    DNP_RATIO_COUNT
} dnp_ratio_rule;

typedef struct {
    dnp_scheme scheme;
    int64_t batch;
    int levels;              /* hierarchy levels searched; 0 = as many as the cluster allows */
    /* Restricted mode reproducing the AccPar authors' code: costs counted in
     * tensor elements, communication only, split 1/2 at every level. */
    int reference_mode;
    dnp_cost_model cost_model;
    dnp_precision precision;
    dnp_optimizer optimizer;
    double memory_limit_bytes; /* 0 = each device's capacity */
    int no_overlap;            /* 1: gradient all-reduce after the backward pass, not overlapped */
    int no_stragglers;         /* 1: ignore the devices' speed spread (speed_cv): every device
                                * runs at its nominal speed */
    int grad_fp32;             /* 1: gradients all-reduced in fp32, 4 bytes per parameter
                                * whatever the precision (DeepSpeed fp32_allreduce); Megatron-LM
                                * configurations only (docs/config3d.md) */
    int keep_over_memory;      /* 1: return the best plan even if it does not fit (flagged)
                                * instead of failing with DNP_ERR_INPUT */
    int tp_across_nodes;       /* 1: a Megatron-LM configuration's tensor-parallel groups
                                * may span nodes (dnp_config3d_check; bare devices count
                                * as one per node) */
    double time_limit_s;       /* wall-time limit of the run, seconds; 0 = none.  One
                                * deadline per command (docs/cli.md "Time limits"): it
                                * counts from time_limit_from_s, and every call given these
                                * options reads the same deadline.  dnp_plan_run's search
                                * stops at half of the limit (counted from that start; the
                                * rest is kept for lowering and simulating the plans): the
                                * AccPar ratio searches keep their best ratio so far, the
                                * remaining splits take the equal split, the portfolio's
                                * other candidates are skipped and the plan says so
                                * (dnp_plan_summary.time_limit_hit).  Lowering and
                                * simulating a plan read the whole deadline: past it a
                                * baseline is dropped (the incumbent stays, flagged), and a
                                * plan with nothing simulated fails with DNP_ERR_INPUT
                                * ("time limit of S s reached while ...").  A limit not
                                * reached changes nothing.  One level solve is not
                                * interrupted. */
    int allow_idle;            /* accpar under the default model: 1 also weighs each device
                                * type alone and, when communication-bound, halves of it, and
                                * may leave devices idle (dnp_plan_run, dnp_plan_cluster); 0
                                * (default) uses every device */
    int config3d_top;          /* dnp_config3d_search: keep the n fastest configurations in
                                * the stats (1 .. DNP_CONFIG3D_TOP_MAX; 0 = 1) */
    int config3d_space;        /* dnp_config3d_search's space (dnp_config3d_space); 0 = full */
    int config3d_objective;    /* dnp_config3d_search_layouts: 0 the fastest step, 1 the least
                                * cost per step (every device type needs price_per_hour) */
    double config3d_deadline_s; /* > 0: the cheapest layout whose step is at most this many
                                 * seconds (prices needed); 0 = none */
    int accpar_ratio;          /* how an accpar search sets the ratio between two different
                                * halves (dnp_ratio_rule; docs/time-model.md "The ratio"):
                                * 0 = the cost model's rule (Eq. 10 as printed under
                                * accpar-paper, the searched ratio under default) */
    int no_portfolio;          /* 1: an accpar plan is AccPar's own tree, not the fastest of it
                                * and the dp, owt and hypar trees (the default) */
    int megatron_version;      /* the Megatron-LM whose micro-batch rule a configuration and
                                * the 3D search follow (dnp_megatron_version); 0 = current */
    const char *search_name;   /* what reports (exports) name the search, e.g. "given (pase)"
                                * for a plan read from a strategy file; NULL = the scheme's
                                * name.  Borrowed: must outlive the calls given the options. */
    double time_limit_from_s;  /* the dnp_clock_s() reading time_limit_s counts from: the
                                * command's start, so every call of one command shares one
                                * deadline; 0 = the start of each call */
} dnp_plan_options;

typedef struct dnp_plan dnp_plan;

/* The monotonic wall clock in seconds (CLOCK_MONOTONIC): what
 * dnp_plan_options.time_limit_from_s and dnp_pase_run_options'
 * time_limit_from_s are readings of.  A command reads it once at its start
 * and gives every call that reading with its --time-limit, so one deadline
 * bounds the whole command.  O(1). */
double dnp_clock_s(void);

/* Plan `g` on `c`.  On success *out owns the plan (dnp_plan_free).  The
 * plan borrows nothing: g and c may be freed afterwards.
 * Time complexity: O(L * V * 3^(w+1)) per distinct hierarchy node, where L
 * is the number of levels, V the number of weighted/join ops and w the
 * widest frontier of the topological order (1 for chains, 2 for ResNet). */
dnp_status dnp_plan_run(const dnp_graph *g, const dnp_cluster *c, const dnp_plan_options *opt,
                        dnp_plan **out, dnp_error *err);
void dnp_plan_free(dnp_plan *p);
/* The devices plan p runs on: the cluster it was planned on, or, for an
 * AccPar plan on a mixed cluster under the default model that was faster
 * on one device type alone, that type's devices (the others idle:
 * dnp_plan_summary.idle_devices; docs/time-model.md "Idle device
 * types").  Borrowed from p.  O(1). */
const dnp_cluster *dnp_plan_cluster(const dnp_plan *p);

/* A strategy read from a file written by `dnnpar plan --json` (docs/formats.md):
 * per level and branch of the device tree, a ratio and each op's type. */
typedef struct dnp_strategy dnp_strategy;

/* Read a strategy ("-" = stdin).  Errors give file:line:column or the
 * path/level that is wrong.  Free with dnp_strategy_free. */
dnp_status dnp_strategy_read(const char *path, dnp_strategy **out, dnp_error *err);
/* From memory (see dnp_load_accpar_text_buffer). */
dnp_status dnp_strategy_read_buffer(const char *data, size_t len_bytes, const char *name,
                                    dnp_strategy **out, dnp_error *err);
void dnp_strategy_free(dnp_strategy *s);
/* What the strategy was planned for: the model as given on the command
 * line, the cluster spec, the batch and the levels searched.
 * dnp_strategy_option gives a string field of the plan ("precision",
 * "cost_model", "optimizer"), else (version 3) of its "strategy" object
 * ("megatron_version", "tp_groups"), or NULL. */
const char *dnp_strategy_option(const dnp_strategy *s, const char *key);
const char *dnp_strategy_model(const dnp_strategy *s);
const char *dnp_strategy_cluster(const dnp_strategy *s);
int64_t dnp_strategy_batch(const dnp_strategy *s);
int dnp_strategy_levels(const dnp_strategy *s);
/* A version-3 plan file of the 3D search ("strategy": {"kind":
 * "megatron"}, docs/formats.md "Plan") holds a Megatron-LM configuration,
 * not a device tree: its text as dnp_config3d_parse reads it (borrowed
 * from s), else NULL.  dnp_plan_run_strategy refuses such a strategy
 * (dnp_config3d_simulate runs it); its levels are 0.  O(1). */
const char *dnp_strategy_config3d_text(const dnp_strategy *s);

/* A strategy file is untrusted input (docs/formats.md, "Strategy files are
 * untrusted"): the model (what = DNP_STRATEGY_MODEL) or cluster
 * (DNP_STRATEGY_CLUSTER) it names, made safe to load.  A zoo model (any
 * name dnp_zoo_build accepts) or a cluster spec that parses is copied to
 * out as is; anything else must be a path relative to the directory of
 * strategy_path (the current directory for "-"), without ".." components,
 * naming a regular file that stays inside that directory once symbolic
 * links are resolved (no FIFO, device, socket or "-").  On success out (n
 * bytes) holds what to load; errors name the field and the rule, never the
 * file's contents.  DNP_ERR_INPUT.  O(path length) plus one zoo build. */
enum { DNP_STRATEGY_MODEL = 0, DNP_STRATEGY_CLUSTER = 1 };
dnp_status dnp_strategy_source(const dnp_strategy *s, const char *strategy_path, int what,
                               char *out, size_t n, dnp_error *err);

/* Evaluate strategy s (instead of searching) for g on c with opt's batch;
 * opt->levels is ignored (the strategy's levels are used) and opt->scheme
 * only names the plan.  Every op of g must have a decision at every level
 * the strategy covers.  opt's time limit bounds the lowering and
 * simulation (DNP_ERR_INPUT past it, as dnp_plan_run).  O(tree nodes x
 * ops) plus the lowering, O(classes x (ops + levels x edges)). */
dnp_status dnp_plan_run_strategy(const dnp_graph *g, const dnp_cluster *c,
                                 const dnp_plan_options *opt, const dnp_strategy *s,
                                 dnp_plan **out, dnp_error *err);

/* The memory check `plan` applies, for a plan from any search or strategy
 * (p made on g): DNP_OK when every device's footprint is within the memory
 * limit (p's options' memory_limit_bytes, else each device's capacity),
 * else DNP_ERR_INPUT with dnp_plan_run's message ("no accpar plan of ...
 * fits in ... GB per device on ...: the smallest needs ... GB", the search
 * named as the options name it).  A plan under the AccPar paper's
 * accounting (no memory model) is lowered under the default model for its
 * footprint; p's options' time limit bounds that (DNP_ERR_INPUT past it).
 * Always DNP_OK with keep_over_memory or reference_mode.  dnp_export_text
 * applies it.  O(1) under the default model; else one lowering,
 * O(classes x (ops + levels x edges)). */
dnp_status dnp_plan_check_memory(const dnp_plan *p, const dnp_graph *g, dnp_error *err);

/* Maximum number of levels cluster `c` supports (every group above the
 * last level must hold at least two devices). */
int dnp_cluster_max_levels(const dnp_cluster *c);
/* Depth of c's device tree: the most splits from the root to a single
 * device (>= dnp_cluster_max_levels; larger when the branches differ, as
 * on 2xa100+4xv100).  A version-2 strategy may decide that many levels on
 * the branches that have them.  O(tree depth x types). */
int dnp_cluster_tree_depth(const dnp_cluster *c);

typedef struct {
    double step_time_s;      /* predicted time of one training step */
    double compute_s;        /* compute on the critical path */
    double comm_s;           /* communication on the critical path */
    double comm_bytes;       /* bytes received by the busiest device per step */
    double mem_bytes_max;    /* peak per-device footprint (weights, gradients, activations) */
    double mem_capacity_bytes; /* that device's capacity */
    int levels;              /* levels searched */
    int total_levels;        /* depth of the device tree (unsearched levels are Type-I) */
    double search_time_s;    /* wall time of the search (not deterministic; not printed in goldens) */
    int exact;               /* 1: each level solved by the exact DP; 0: by local search,
                              * the graph being too wide (docs/time-model.md) */
    int frontier_width;      /* tensors live at once in the DP's order */
    /* The performance model (docs/time-model.md).  Under the default model
     * step_time_s, compute_s and the memory come from the step simulator;
     * comm_s is then the exposed communication (the time the critical
     * device's compute idles while its communication is in flight; see
     * wait_s), comm_busy_s all its communication time, overlapped or not. */
    dnp_cost_model cost_model;
    dnp_precision precision;
    dnp_optimizer optimizer;
    double exposed_comm_s;
    double comm_busy_s;
    int mem_fits;            /* 1: every device within its memory limit */
    int sim_tasks;           /* tasks simulated (0 under the paper's accounting) */
    int device_classes;      /* distinct device workloads simulated */
    dnp_scheme chosen_scheme;/* whose assignment the plan is: an accpar plan reports a
                              * baseline's when that was faster (its space contains them) */
    int ratio_level_only;    /* accpar: the full ratio search was estimated over its budget,
                              * so every split ratio was chosen by the level objective alone
                              * (docs/time-model.md, "Search cost"); deterministic */
    double ratio_est_solves; /* accpar: estimated level solves of the ratio searches run */
    int time_limit_hit;      /* 1: options.time_limit_s was reached; this is the best plan
                              * found by then (not deterministic) */
    double time_limit_s;     /* the limit given (0 = none) */
    /* Stragglers (default model): the factor on device kernel times for
     * the expected slowest of a type's devices (1 = none), the largest over
     * the cluster's types, and that type's device count.  A factor above 1
     * rests on a measured input (Sinha et al., SC'22); reports say so. */
    double straggler_pace;
    int64_t straggler_devices;
    /* Default model: the time the critical device's compute idles with none
     * of its own communication in flight, waiting for other devices' work
     * (a heterogeneous or uneven split); compute_s + exposed_comm_s +
     * wait_s = step_time_s (a wait under 1 ns or 1e-9 of the step is
     * rounding, reported as 0).  exposed_comm_s is the time its compute idles
     * while some of its communication is in flight, so it never exceeds
     * comm_busy_s.  0 under the paper's accounting. */
    double wait_s;
    /* AccPar on a mixed cluster (default model): devices of the given
     * cluster the plan leaves idle because one device type alone was
     * faster (0: it uses every device), and the best plan's step on every
     * device for comparison (0 when none are idle). */
    int64_t idle_devices;
    double all_devices_step_s;
} dnp_plan_summary;

/* Where the GPU presets' speed spread comes from: every report whose figures
 * use a straggler factor above 1 names it (a measured input). */
#define DNP_SPEED_CV_SOURCE                                                                     \
    "per-GPU speed spread measured by Sinha et al., SC'22: 8% between GPUs of one SKU"


void dnp_plan_get_summary(const dnp_plan *p, dnp_plan_summary *out);

/* Planned ops (weighted layers and joins), in topological order. */
int dnp_plan_n_nodes(const dnp_plan *p);
const char *dnp_plan_node_name(const dnp_plan *p, int node);
/* 1 for conv/FC (types I/II/III), 0 for joins (layouts batch/channel/replicated). */
int dnp_plan_node_weighted(const dnp_plan *p, int node);
/* Layers (weighted ops) that some split of the device tree leaves unsplit
 * (R: both halves compute all of the layer, one half's work redundant;
 * from strategies, e.g. PaSE configurations that use fewer devices;
 * docs/time-model.md "Replicated layers").  A join's replicated layout, a
 * choice of the searches, is not counted.  -1 on allocation failure.
 * O(tree nodes x ops). */
int dnp_plan_replicated_nodes(const dnp_plan *p);

/* Along the hierarchy path that starts at the root and always takes child
 * `branch_bits` bit k at level k (0 = first group, 1 = second), the type of
 * `node` at `level` (dnp_ptype for a layer, R only from strategies; 0..2
 * for a join; -1 past the path's last split) and that level's ratio (share
 * of the first group). */
int dnp_plan_type(const dnp_plan *p, int level, unsigned branch_bits, int node);
double dnp_plan_ratio(const dnp_plan *p, int level, unsigned branch_bits);
/* Description of the two groups split at `level` on that path, e.g.
 * "128xtpu-v2 | 128xtpu-v3". */
void dnp_plan_level_groups(const dnp_plan *p, int level, unsigned branch_bits, char *buf,
                           size_t n);
/* 1 if the two groups split at `level` on that path are identical (same
 * devices and shares), so both halves share one sub-plan; also 1 where the
 * path has reached a single device (a shallower branch of the tree). */
int dnp_plan_level_identical(const dnp_plan *p, int level, unsigned branch_bits);
/* The plan's simulated step as Chrome trace events (chrome://tracing,
 * Perfetto): one process per device class, one thread per stream, times in
 * microseconds.  Under the paper's accounting, each op's communication and
 * compute on its critical path.  Caller frees the text with dnp_free; NULL on
 * allocation failure.  Deterministic.  O(tasks). */
char *dnp_plan_trace_json(const dnp_plan *p);

/* Per-node predicted time split at the root (critical path). */
void dnp_plan_node_times(const dnp_plan *p, int node, double *compute_s, double *comm_s);

/* ------------------------------------------------------------------ */
/* Transformer configurations: tensor x pipeline x data parallelism     */
/* (src/sim/config3d.c, docs/config3d.md)                               */
/* ------------------------------------------------------------------ */

typedef enum {
    DNP_RECOMPUTE_NONE = 0,
    DNP_RECOMPUTE_SELECTIVE, /* attention's scores, softmax and context (Korthikanti 2022) */
    DNP_RECOMPUTE_FULL,      /* every layer's forward again before its backward */
    DNP_RECOMPUTE_COUNT
} dnp_recompute;
const char *dnp_recompute_name(dnp_recompute r); /* "none", "selective", "full" */
int dnp_recompute_from_name(const char *s);      /* -1 if unknown */

#define DNP_CONFIG3D_MAX_STAGES 256 /* pipeline stages with a layer count of their own */

/* Which Megatron-LM's rules a configuration follows (dnp_plan_options.
 * megatron_version; docs/config3d.md, "Schedules and overlaps"): the
 * interleaved schedule's micro-batch rule changed in Megatron-Core
 * core_r0.10.0 (megatron/core/pipeline_parallel/schedules.py). */
typedef enum {
    DNP_MEGATRON_CURRENT = 0, /* core_r0.10.0 and later: micro-batch groups of N
                               * (--microbatch-group-size-per-virtual-pipeline-stage, default
                               * pp): pp <= N <= m and m mod N is 0 or at least pp */
    DNP_MEGATRON_LEGACY,      /* core_r0.9.0 and earlier: m a multiple of pp, no groups */
    DNP_MEGATRON_COUNT
} dnp_megatron_version;
const char *dnp_megatron_version_name(dnp_megatron_version v); /* "current", "legacy" */
/* "current" / "core_r0.10" ... and "legacy" / "core_r0.9" ...; -1 if unknown */
int dnp_megatron_version_from_name(const char *s);

/* A Megatron-LM configuration.  Pipeline stage s runs on ranks
 * [s tp dp, (s + 1) tp dp) in Megatron's order (tensor-parallel ranks
 * fastest, then data, then pipeline) over the cluster's devices (types in
 * the order the cluster lists them); a stage, a tensor-parallel group or a
 * data-parallel group may span device types (docs/config3d.md, "Mixed
 * clusters"). */
typedef struct {
    int tp, pp, dp;          /* tensor-, pipeline-, data-parallel degrees (>= 1) */
    int64_t microbatch;      /* sequences per micro-batch */
    int interleave;          /* model chunks per pipeline rank (1: 1F1B, > 1: interleaved) */
    dnp_recompute recompute;
    int seq_par;             /* 1: sequence parallelism */
    int zero;                /* ZeRO stage over the data-parallel group (Rajbhandari et al.
                              * 2020): 0 none, 1 optimizer state, 2 + gradients, 3 + weights */
    int gpipe;               /* 1: GPipe's schedule (every forward, then every backward;
                              * Huang et al. 2019), 0: 1F1B / interleaved */
    /* Transformer layers per pipeline stage (uneven stages, 1F1B only):
     * n_stage_layers = 0 splits the layers evenly; otherwise it equals pp,
     * every entry is >= 1 (0 allowed for the first stage, which then holds
     * only the embedding, and the last, only the final norm and head) and
     * they sum to the model's layers. */
    int n_stage_layers;
    int stage_layers[DNP_CONFIG3D_MAX_STAGES];
    int grad_fp32;           /* 1: gradient all-reduces in fp32 (grad_dtype=fp32; DeepSpeed's
                              * fp32_allreduce), 4 bytes per parameter */
    /* Schedules and overlaps (docs/config3d.md, "Schedules and overlaps"): */
    int overlap_grad;        /* 1: Megatron-LM --overlap-grad-reduce: the data-parallel
                              * gradient reduction in buckets during the last backward */
    int overlap_param;       /* 1: --overlap-param-gather (zero=1 and overlap_grad): the
                              * parameter all-gather during the next step's first forward */
    int tp_overlap;          /* 1: --tp-comm-overlap (Transformer Engine userbuffers; tp > 1
                              * and seq_par): tensor-parallel collectives pipelined with the
                              * GEMMs they feed */
    int vp_group;            /* interleaved schedule's micro-batches per group
                              * (--microbatch-group-size-per-virtual-pipeline-stage, current
                              * Megatron-LM only); 0 = pp */
} dnp_config3d;

/* tp = pp = dp = microbatch = interleave = 1, no recompute, no sequence
 * parallelism.  O(1). */
void dnp_config3d_defaults(dnp_config3d *c);
/* Parse "tp=8,pp=8,dp=1,microbatch=1,interleave=3,recompute=selective,
 * seq_par=1,zero=1,schedule=1f1b,layers=14:18:18:14,grad_dtype=fp32" (any
 * subset, any order; the rest default; `layers` lists the layers of each
 * pipeline stage, separated by ':'; schedule is 1f1b or gpipe; grad_dtype
 * is fp32 or default).  DNP_ERR_INPUT
 * naming the bad item.  O(length). */
dnp_status dnp_config3d_parse(const char *text, dnp_config3d *out, dnp_error *err);
/* cfg as the text dnp_config3d_parse reads back to the same
 * configuration: every key that differs from dnp_config3d_defaults, in
 * the order tp, pp, dp, microbatch, interleave, recompute, seq_par, zero,
 * schedule, layers, grad_dtype, overlap_grad, overlap_param, tp_overlap,
 * vp_group ("tp=1,pp=1,dp=1" at least).  Into buf[n], truncated;
 * returns the length it needed.  O(pp). */
size_t dnp_config3d_format(const dnp_config3d *cfg, char *buf, size_t n);

typedef struct {
    double step_time_s;      /* simulated step */
    double compute_busy_s;   /* the busiest pipeline rank's compute stream (kernels, the
                              * tensor-parallel collectives it waits for, the data-parallel
                              * all-reduce and the optimizer) */
    double bubble_s;         /* step time minus that: pipeline fill, drain and waits */
    double tp_comm_s;        /* tensor-parallel collectives per rank per step */
    double p2p_s;            /* one pipeline message (send and re-gather) */
    double dp_comm_s;        /* the gradient all-reduce (with overlap_grad / overlap_param:
                              * what stays exposed of it) */
    double dp_hidden_s;      /* of the data-parallel traffic, what overlap_grad and
                              * overlap_param hide behind compute (the busiest stage's) */
    double tp_hidden_s;      /* of the tensor-parallel collectives, what tp_overlap hides
                              * (per rank per step, the busiest stage's) */
    double embed_sync_s;     /* the tied word-embedding gradient all-reduce between the first
                              * and last stage (pp > 1, tied embeddings; 0 otherwise) */
    double optimizer_s;
    double model_flop;       /* forward + backward + gradient of the GEMMs, whole step */
    double mfu;              /* model_flop / (step x devices x peak FLOP/s) */
    double tokens;           /* tokens per step: the global batch x the sequence */
    /* memory of the pipeline stage nearest its device's capacity (the
     * largest share of it; the first stage on one device type with even
     * stages), which is stage mem_stage */
    double mem_weights_bytes, mem_activation_bytes, mem_bytes;
    double mem_capacity_bytes;
    int mem_stage;
    int fits;                /* every stage within its device's capacity */
    int stage_layers[DNP_CONFIG3D_MAX_STAGES]; /* layers per stage as simulated (pp entries) */
    int stage_type[DNP_CONFIG3D_MAX_STAGES];   /* the device type of each stage's first rank */
    unsigned stage_types[DNP_CONFIG3D_MAX_STAGES]; /* every device type of each stage's ranks
                                                    * (bit k: the cluster's type k) */
    int microbatches;        /* per data-parallel replica */
    double straggler_pace;   /* the device model's straggler factor (1 = none) */
} dnp_config3d_result;

/* Check configuration cfg of transformer g on cluster c at global `batch`
 * as every command does before it simulates, searches or exports one
 * (docs/config3d.md, "Checks"): g is a zoo transformer; tp x pp x dp equals
 * the devices; the batch divides into dp x microbatch; the layers divide
 * into pp x interleave chunks or layers= lists pp counts summing to them;
 * Megatron-LM's rules (the attention heads, key-value heads and MLP hidden
 * size multiples of tp, the sequence too with seq_par; the vocabulary is
 * padded, no rule); each tensor-parallel group inside one node unless
 * opt->tp_across_nodes (bare devices: one per node); every stage within
 * its devices' memory (opt->memory_limit_bytes, else each type's capacity)
 * unless opt->keep_over_memory.  DNP_ERR_INPUT with one message naming the
 * first rule broken and the figures; *out gets the memory figures (no step
 * time).  dnp_config3d_simulate, _trace, _search (as a filter) and the
 * exports apply exactly this.  O(ops x types + pp). */
dnp_status dnp_config3d_check(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                              const dnp_plan_options *opt, const dnp_config3d *cfg,
                              dnp_config3d_result *out, dnp_error *err);

/* Simulate one training step of transformer g (a gpt / bert / llama zoo
 * model) on cluster c (one or several device types; a stage paced by its
 * slowest replica, each collective on the links its group spans) at
 * global batch `batch` under configuration cfg: per pipeline rank a
 * compute stream running its micro-batch chunks in Megatron's 1F1B or
 * interleaved order, tensor-parallel collectives in each chunk, pipeline
 * messages on send streams, the gradient all-reduce, the tied-embedding
 * gradient all-reduce (pp > 1) and the optimizer at the end.  opt gives the
 * precision, optimizer, memory limit, no_stragglers, grad_fp32 and the time
 * limit (time_limit_s from time_limit_from_s: the simulation reads that
 * deadline every 2^16 micro-batch chunks and past it fails with
 * DNP_ERR_INPUT, "time limit of S s reached while simulating ...").
 * DNP_ERR_INPUT for every configuration dnp_config3d_check refuses, with
 * its message.  O(ops x types + pp x micro-batches x interleave). */
dnp_status dnp_config3d_simulate(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                 const dnp_plan_options *opt, const dnp_config3d *cfg,
                                 dnp_config3d_result *out, dnp_error *err);

/* The step dnp_config3d_simulate simulates, as Chrome trace events
 * (chrome://tracing, Perfetto): one process per pipeline stage, threads
 * for its compute stream and its two send streams, one event per
 * micro-batch chunk forward and backward, per message, and the gradient
 * all-reduce and optimizer at the end; microseconds.  *out is a new
 * NUL-terminated text the caller frees with dnp_free.  Errors as
 * dnp_config3d_simulate.  O(pp x micro-batches x interleave). */
dnp_status dnp_config3d_trace(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                              const dnp_plan_options *opt, const dnp_config3d *cfg, char **out,
                              dnp_error *err);

/* The configuration cfg of zoo transformer g at global `batch` as
 * Megatron-LM command-line arguments (pretrain_gpt.py; pretrain_bert.py
 * for bert), one per line after '#' comment lines: model shape,
 * parallel degrees, micro and global batch, recompute, precision.  *out
 * is a new NUL-terminated text the caller frees with dnp_free.
 * DNP_ERR_INPUT if g is not a zoo transformer.  O(layers). */
dnp_status dnp_megatron_args(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                             dnp_precision precision, const dnp_config3d *cfg, char **out,
                             dnp_error *err);

/* The spaces dnp_config3d_search can search (docs/config3d.md, "Search"). */
typedef enum {
    DNP_CONFIG3D_SPACE_FULL = 0, /* everything below */
    DNP_CONFIG3D_SPACE_AMP,      /* AMP's (Li et al., NeurIPS 2022): tp, pp, dp, micro-batch and
                                  * the layers per stage; no ZeRO, sequence parallelism,
                                  * interleaving or recompute */
    DNP_CONFIG3D_SPACE_UNIFORM,  /* every stage on one device type (every type's count a
                                  * multiple of tp x dp): the space before stop 29 */
    DNP_CONFIG3D_SPACE_COUNT
} dnp_config3d_space;

/* The most configurations a search ranks (dnp_plan_options.config3d_top). */
#define DNP_CONFIG3D_TOP_MAX 10
/* The largest number of device types whose orders and subsets
 * dnp_config3d_search_layouts enumerates (4 types: 64 layouts). */
#define DNP_CONFIG3D_LAYOUT_TYPES 4
#define DNP_CONFIG3D_LAYOUTS_MAX 64

/* One ranked configuration of a search. */
typedef struct {
    dnp_config3d cfg;
    double step_time_s;
    /* its layout (dnp_config3d_search_layouts): the given cluster's types
     * in the order its stages take them; n_types 0 = the cluster as given */
    int n_types;
    int types[DNP_CONFIG3D_LAYOUT_TYPES];
} dnp_config3d_ranked;
/* One point of a search's Pareto front (dnp_config3d_stats.pareto): a
 * layout's fastest plan as a compact record (its configuration without the
 * per-stage layer list, which dnp_config3d_stats.pareto_layers holds;
 * dnp_config3d_point_config rebuilds the whole configuration). */
typedef struct {
    double step_time_s, cost_per_step;
    int n_types;                            /* its layout, as dnp_config3d_ranked's */
    int types[DNP_CONFIG3D_LAYOUT_TYPES];
    int tp, pp, dp, interleave, zero, seq_par, gpipe, grad_fp32;
    int overlap_grad, overlap_param, tp_overlap, vp_group;
    int64_t microbatch;
    dnp_recompute recompute;
    int n_stage_layers;                     /* 0: even stages */
    int layers_at;                          /* its pp counts start at pareto_layers[layers_at];
                                             * -1: they did not fit there (even when
                                             * n_stage_layers is 0) */
} dnp_config3d_point;
/* stage layer counts kept for the whole Pareto front */
#define DNP_CONFIG3D_PARETO_LAYERS 1024
#define DNP_CONFIG3D_MAX_NARROWED 12  /* lines of dnp_config3d_stats.narrowed */
#define DNP_CONFIG3D_NARROWED_LEN 400 /* bytes of each, NUL included */

typedef struct {
    int candidates;          /* configurations enumerated */
    int weighed;             /* of which weighed: layers, memory and lower bound computed (the
                              * others' compute alone could not beat the best step; docs/
                              * config3d.md, "Search") */
    int fitting;             /* of those within the memory limit */
    int simulated;           /* of which simulated (the others were bounded out) */
    double smallest_mem_bytes; /* the smallest footprint of those that did not fit */
    /* dnp_config3d_search_layouts only (1, 0, 0 from dnp_config3d_search): */
    int layouts;             /* orders and subsets of the device types considered */
    int layouts_bounded;     /* of which skipped: their devices' GEMM ceilings cannot beat
                              * the best step found (docs/config3d.md, "Layouts") */
    int64_t idle_devices;    /* devices of the types the fastest plan leaves out */
    int reordered;           /* 1: its stages take the types in another order than given */
    /* the fastest configurations, fastest first (n_top <= the options'
     * config3d_top; by step time whatever the objective) */
    int n_top;
    dnp_config3d_ranked top[DNP_CONFIG3D_TOP_MAX];
    /* with prices on every device type (docs/config3d.md, "Objectives"):
     * the result's price of the devices it uses (per hour) and cost of one
     * step (price x step / 3600; 0 without prices), and the Pareto front of
     * step time against cost over the layouts' fastest plans (fastest
     * first; compact records: dnp_config3d_point_config gives each one's
     * configuration) */
    double price_per_hour, cost_per_step;
    int n_pareto;
    dnp_config3d_point pareto[DNP_CONFIG3D_LAYOUTS_MAX];
    int pareto_layers[DNP_CONFIG3D_PARETO_LAYERS];
    /* every rule that narrowed the space searched, one line each (no
     * newline): the fixed space, tensor-parallel degrees left out by
     * Megatron-LM's rules, the nodes or the device counts, pipeline depths
     * and data-parallel degrees left out */
    int n_narrowed;
    char narrowed[DNP_CONFIG3D_MAX_NARROWED][DNP_CONFIG3D_NARROWED_LEN];
    /* 1: opt->time_limit_s ran out: the result is the best configuration
     * weighed so far, not proven the fastest (docs/config3d.md, "Search") */
    int time_limit_hit;
} dnp_config3d_stats;

/* The configuration of point i of stats' Pareto front into *out.  Returns
 * 1, or 0 when its per-stage layer list was not kept (more uneven stages
 * on the front than DNP_CONFIG3D_PARETO_LAYERS; *out then has even
 * stages).  O(pp). */
int dnp_config3d_point_config(const dnp_config3d_stats *stats, int i, dnp_config3d *out);

/* The fastest configuration of g on c at `batch` within the memory limit
 * (opt->memory_limit_bytes, else each device's capacity): tensor
 * parallelism in powers of two that dnp_config3d_check's rules allow
 * (Megatron-LM's divisibility, each group inside a node unless
 * opt->tp_across_nodes) and that divide every device type's count, every
 * pipeline depth up to the layers, data parallelism for the rest (a stage
 * and its groups may span device types, docs/config3d.md "Mixed
 * clusters"; opt->config3d_space narrows the space),
 * micro-batches of 1 to 32 sequences, 1 to 8 chunks per rank (interleaving
 * with even stages; micro-batch groups under opt->megatron_version's rule),
 * each recompute mode, sequence parallelism on or off, overlap_grad and
 * overlap_param off or on, tp_overlap on wherever it applies (never slower
 * in this model; docs/config3d.md "Schedules and overlaps").
 * With one chunk per rank the layers per stage are balanced (c3_balance in
 * src/sim/config3d.c: the slowest stage's compute minimised within each
 * stage's memory; on a mixed cluster faster types get more layers), with
 * more chunks they are even.  Exact over that space:
 * candidates are simulated in order of a lower bound (the busiest rank's
 * work without waits) until the bound reaches the best step found; ties
 * keep the first in enumeration order.  DNP_ERR_INPUT (naming the smallest
 * footprint) if none fits.  stats->narrowed says every rule that left
 * part of the space out.  Every configuration returned passes
 * dnp_config3d_check.  opt's time limit (one deadline from
 * time_limit_from_s, else from this call) stops enumeration and
 * simulation: the best weighed so far (stats->time_limit_hit), or
 * DNP_ERR_INPUT when none was.  O(candidates + simulated x schedule). */
dnp_status dnp_config3d_search(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                               const dnp_plan_options *opt, dnp_config3d *best,
                               dnp_config3d_result *best_res, dnp_config3d_stats *stats,
                               dnp_error *err);

/* dnp_config3d_search over the layouts of a mixed cluster c
 * (docs/config3d.md, "Layouts"): the stages follow the cluster's order of
 * device types, so every order of the types is searched, and every
 * non-empty subset of them (the others' devices left idle); the fastest
 * plan of all wins, ties keeping the first layout in the order (all types,
 * as given; then other orders; then subsets by size, largest first).
 * *used receives the cluster the plan runs on (c's types in the chosen
 * order, without the idle ones; c itself when c has one type or more than
 * DNP_CONFIG3D_LAYOUT_TYPES types, which are searched as given); stats sum
 * the searches and say the layout (layouts, idle_devices, reordered).
 * Objectives (opt->config3d_objective, config3d_deadline_s; docs/config3d.md
 * "Objectives"): the cost of a step is its time x the price per hour of the
 * layout's devices / 3600; within a layout every device works, so its
 * cheapest plan is its fastest, and the cost objective takes the layout of
 * least cost (ties: the faster), the deadline the cheapest layout whose
 * fastest step meets it.  DNP_ERR_INPUT if no layout fits, if a cost
 * objective meets a device type without a price, or if no layout meets the
 * deadline (naming the fastest step).  O(layouts x one search); a layout
 * whose search fails for memory is skipped. */
dnp_status dnp_config3d_search_layouts(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                       const dnp_plan_options *opt, dnp_config3d *best,
                                       dnp_config3d_result *best_res, dnp_cluster *used,
                                       dnp_config3d_stats *stats, dnp_error *err);

/* What a mixed cluster's plan is compared with (docs/config3d.md, "Mixed
 * clusters"). */
typedef struct {
    int slowest_type, fastest_type;   /* indices into the cluster's types: lowest / highest
                                       * peak FLOP/s at the precision, then least / most memory */
    /* every device taken as the slowest type: the search's plan there, its
     * predicted step on that homogeneous cluster, and the same
     * configuration simulated on the real cluster (when it fits every
     * device there; its stages may span device types) */
    int slowest_ok, slowest_on_cluster_ok;
    dnp_config3d slowest_cfg;
    dnp_config3d_result slowest_planned, slowest_on_cluster;
    /* the fastest type's devices alone, searched */
    int fastest_ok;
    dnp_config3d fastest_cfg;
    dnp_config3d_result fastest_res;
    /* the search restricted to AMP's space and to stages of one type each,
     * on the cluster as given (DNP_CONFIG3D_SPACE_AMP, _UNIFORM) */
    int amp_ok, uniform_ok;
    dnp_config3d amp_cfg, uniform_cfg;
    dnp_config3d_result amp_res, uniform_res;
    /* 1: the options' time limit (one deadline with the search before them)
     * ran out in some baseline search: its figure is the best weighed so
     * far, or it has none (_ok 0, not "nothing fits") */
    int time_limit_hit;
} dnp_config3d_baselines;

/* The baselines of a mixed cluster c (at least two device types) for g at
 * `batch`: the plan that treats every device as the slowest type, the
 * fastest type alone, and the search in AMP's space and in the space of
 * one-type stages, each from dnp_config3d_search.  A baseline that finds
 * no fitting configuration is left with its _ok flag 0.  DNP_ERR_INPUT
 * for a one-type cluster, DNP_ERR_NOMEM.  O(four searches). */
dnp_status dnp_config3d_mixed_baselines(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                        const dnp_plan_options *opt,
                                        dnp_config3d_baselines *out, dnp_error *err);

/* 1 if g is a transformer the 3D path recognises (a gpt, bert or llama
 * zoo model: numbered layers with attention and an MLP beside token
 * embeddings), the models dnp_config3d_search plans and `plan --search
 * auto` gives to it; else 0.  O(layers). */
int dnp_config3d_recognises(const dnp_graph *g);

/* Executed accounting: what each device sends and receives when the     */
/* plan runs (src/sim/devcomm.c, docs/time-model.md "Executed            */
/* accounting", docs/torch.md)                                           */
/* ------------------------------------------------------------------ */

/* The largest cluster dnp_plan_device_comm accounts device by device. */
#define DNP_DEVCOMM_MAX_DEVICES 64

/* Point-to-point traffic of one kind. */
typedef enum {
    DNP_XFER_LAYOUT_FWD = 0, /* forward layout change of an op's input (Table 5, F) */
    DNP_XFER_LAYOUT_BWD,     /* backward layout change of its input error (Table 5, E) */
    DNP_XFER_PSUM_FWD,       /* Type-II partial sums of the output, one exchange per level */
    DNP_XFER_PSUM_BWD,       /* Type-III partial sums of the input error, one per level */
    DNP_XFER_COUNT
} dnp_xfer_kind;
/* "layout_fwd", "layout_bwd", "psum_fwd", "psum_bwd". */
const char *dnp_xfer_kind_name(dnp_xfer_kind k);

/* One device's communication in one training step.  Devices are the
 * leaves of the plan's device tree in depth-first order (the first group
 * first): device d sits at depth `depth` and took group bit k of
 * `branch_bits` at level k (dnp_plan_type, dnp_plan_ratio). */
typedef struct {
    int device;
    int depth;
    unsigned branch_bits;
    int64_t p2p_sent_bytes[DNP_XFER_COUNT];
    int64_t p2p_received_bytes[DNP_XFER_COUNT];
    /* Gradient bytes this device all-reduces in groups of p members, p = 2 ..
     * DNP_DEVCOMM_MAX_DEVICES (entries 0 and 1 stay 0). */
    int64_t allreduce_bytes[DNP_DEVCOMM_MAX_DEVICES + 1];
    /* Totals: the point-to-point bytes, then for p = 2, 3, ... in turn the
     * ring all-reduce's 2 (p-1) x allreduce_bytes[p] / p (sent and received
     * alike), added in that order so that a reimplementation gets the same
     * double bit for bit. */
    double sent_bytes, received_bytes;
    /* For comparison: what the step simulator (docs/time-model.md "The
     * default model") has one device of this device's class receive, at
     * the plan's precision and continuous shares; NAN under the paper's
     * accounting.  docs/time-model.md "Executed accounting" says where the
     * two differ. */
    double sim_received_bytes;
} dnp_device_comm;

/* Number of devices of plan p (leaves of its device tree).  O(1). */
int dnp_plan_n_devices(const dnp_plan *p);

/* The bytes every device of plan p (made for graph g, the same model) sends
 * and receives in one training step when the plan is executed with shards
 * of whole samples, channels and features: every dimension a level splits
 * with ratio alpha gives its first group floor(alpha x n + 1/2) of the n
 * indices the parent holds (nested contiguous ranges), and
 * bytes_per_elem-byte elements (4 for float32).  The collectives and their
 * accounting are those of docs/time-model.md "Executed accounting": layout
 * changes as point-to-point transfers of the missing elements, Type-II and
 * Type-III partial sums as an exchange between the two halves per level,
 * gradients as one ring all-reduce per set of devices holding the same
 * weights.  On success *out (n_devices entries, free with dnp_free) is
 * owned by the caller.  Fails with DNP_ERR_INPUT, naming the op or the
 * limit, for more than DNP_DEVCOMM_MAX_DEVICES devices, a device tree
 * deeper than 32 levels, a join other than an add of equal shapes (concat)
 * or a weighted op other than a dense conv or FC.  O(ops x devices^2 x A), A the pieces a device's
 * shard is cut into (small: at most 16 x devices^2). */
dnp_status dnp_plan_device_comm(const dnp_plan *p, const dnp_graph *g, int bytes_per_elem,
                                dnp_device_comm **out, int *n_devices, dnp_error *err);

/* ------------------------------------------------------------------ */
/* Validation against measured runs (src/report/validate.c)             */
/* ------------------------------------------------------------------ */

/* One row of a validation CSV (docs/validation.md) with its prediction.
 * Every string is NUL-terminated, of any length, and owned by the
 * dnp_validation holding the row (freed by dnp_validation_free). */
typedef struct {
    char *id;
    char *stack;              /* software stack: framework and version */
    char *role;               /* "calibrate" or "validate" */
    char *model, *cluster, *precision, *search;
    int line;                 /* the row's line in the file (the header is line 1) */
    int64_t batch;
    double measured_step_s;
    double predicted_step_s;  /* NAN if the row could not be predicted */
    double error_pct;         /* 100 (predicted - measured) / measured */
    double compute_eff;       /* efficiency used: fitted, else the device's or the model default */
    int calibrated;           /* 1: compute_eff was fitted on this stack's calibrate rows */
    double straggler_pace;    /* the prediction's straggler factor (dnp_plan_summary; 1 = none) */
    char *config;             /* search "config": the configuration from the columns tp, pp,
                               * dp, microbatch, interleave, recompute, seq_par, layers, zero,
                               * schedule, grad_dtype as "KEY=VALUE,..." for
                               * dnp_config3d_parse; "" otherwise */
    char note[600];           /* why a row was not predicted, or a remark on its prediction;
                               * "" if none */
    /* The predicted step's parts (NAN where the row's search has no such
     * figure, or the row was not predicted).  search "config", from
     * dnp_config3d_result: busy_s (the busiest pipeline rank's compute
     * stream: kernels, the tensor-parallel collectives it waits for, the
     * gradient all-reduce, the optimizer) + bubble_s = the step; tp_comm_s,
     * dp_comm_s, p2p_s (one pipeline message), optimizer_s.  Other searches,
     * from dnp_plan_summary: compute_s (compute on the critical path) and
     * exposed_comm_s (communication the critical device's compute waits
     * for).  Both: mem_bytes (the fullest device's footprint: weights,
     * gradients, optimizer state, activations), mem_capacity_bytes (that
     * device's memory) and fits (1 within capacity, 0 not, -1 not
     * predicted). */
    double busy_s, bubble_s, tp_comm_s, dp_comm_s, p2p_s, optimizer_s;
    double compute_s, exposed_comm_s;
    double mem_bytes, mem_capacity_bytes;
    int fits;
} dnp_validation_row;

/* A stack's fitted parameters: one fit per stack, device type and
 * precision, by least squares on log step times over its calibrate rows
 * (docs/validation.md "Calibration").  A parameter the rows do not
 * constrain is not fitted and reads 0 (the model default applies). */
typedef struct {
    const char *stack;        /* the stack of its rows (owned by the dnp_validation) */
    char device[32], precision[16];
    double compute_eff;       /* the GEMM ceiling, fraction of peak; 0: not fitted */
    double host_kernel_s;     /* host time to issue one kernel (s); 0: not fitted */
    int eff_at_bound;         /* 1: the ceiling sits at 1 (slower than measured at peak) */
    double eff_rejected;      /* > 0: one row, whose fit of the ceiling alone (this value)
                               * fell below a physical ceiling, so the host time was
                               * fitted instead (docs/validation.md "Calibration") */
    int n_rows;               /* calibrate rows it was fitted on */
    double rms_log_error;     /* residual over those rows */
} dnp_calibration;

typedef struct {
    int n_rows;
    dnp_validation_row *rows;
    int n_fits;
    dnp_calibration *fits;
    int n_validate;           /* validate rows predicted */
    int n_not_predicted;      /* rows of either role without a prediction (see their notes) */
    double mape_pct;          /* mean absolute percentage error over them (NAN if none) */
    double max_abs_error_pct;
    double spearman;          /* rank correlation of predicted and measured (NAN if < 2) */
    /* Header columns validate neither reads nor knows as context (source,
     * note), in file order, each named once (owned by the dnp_validation). */
    int n_unread_columns;
    char **unread_columns;
} dnp_validation;

/* Read the CSV at `path` (columns in docs/validation.md: id, stack, role,
 * model, cluster, batch, precision, search, measured_step_s; for search
 * "config" the configuration columns; a UTF-8 byte order mark is skipped;
 * lines and fields of any length), fit each stack's compute efficiency
 * per device type and precision on its calibrate rows (unless calibrate
 * == 0: preset defaults), predict every row with the default model, and
 * summarise the validate rows.  A row dnnpar cannot run (model, cluster,
 * search or configuration refused by the loaders or the simulator) is
 * kept with the reason in its note and no prediction; the others still
 * run.  The input is refused (DNP_ERR_INPUT, naming file:line and the
 * column) for a missing or duplicate column, a header column without a
 * name, a row whose field count differs from the header's, a batch that
 * is not decimal digits in 1 .. 2^40, a measured_step_s that is not a
 * plain decimal number in [1e-9, 1e9] s, or a configuration value holding
 * ',' or '='.  On success *out is owned by the caller: free it with
 * dnp_validation_free.  O(rows x plan time x fit iterations). */
dnp_status dnp_validate_csv(const char *path, int calibrate, dnp_validation **out,
                            dnp_error *err);
/* dnp_validate_csv under a time limit: every row's plan or simulation
 * reads limit's one deadline (limit->time_limit_s from
 * limit->time_limit_from_s, the command's start; the other fields are not
 * read; NULL = none), and a validation that passes it fails with
 * DNP_ERR_INPUT ("time limit of S s reached while validating FILE ...")
 * rather than leave rows out.  O(as dnp_validate_csv), bounded by it. */
dnp_status dnp_validate_csv_limited(const char *path, int calibrate,
                                    const dnp_plan_options *limit, dnp_validation **out,
                                    dnp_error *err);
/* From memory (see dnp_load_accpar_text_buffer). */
dnp_status dnp_validate_csv_buffer(const char *data, size_t len_bytes, const char *name,
                                   int calibrate, dnp_validation **out, dnp_error *err);
/* Frees v, its rows, fits and every string they hold.  NULL is a no-op. */
void dnp_validation_free(dnp_validation *v);

/* ------------------------------------------------------------------ */
/* PaSE: per-op iteration-space strategies (Elango, "PaSE", IPDPS      */
/* 2021; src/search/pase/, docs/pase.md)                               */
/* ------------------------------------------------------------------ */

/* PaSE splits every op's iteration space (any dimension, any divisor)
 * over p identical devices and minimises Eq. 1's F = sum of layer costs
 * t_l + sum of transfer costs t_x.  Two cost models (dnp_pase_options):
 *   DNP_COST_DEFAULT     t_l and t_x in seconds on the shared performance
 *                        model: roofline kernels of the device model,
 *                        collectives on the link tiers a split spans, the
 *                        device memory (configurations over it pruned); a
 *                        cluster of several device types also gets a batch
 *                        split across the types (docs/pase.md "Shared
 *                        model", "Heterogeneous clusters")
 *   DNP_COST_PASE_PAPER  the prototype's Eq. 1 in FLOP-equivalents: moving
 *                        w words costs r x w FLOP with r = peak FLOP/s /
 *                        (link words/s); `reproduce pase` and `compare` use it
 * The driver below is what `dnnpar plan --search pase|mcmc` and `dnnpar
 * reproduce pase` run: build a problem (model, hardware, batch, cutoff,
 * cost model), run a search and the baselines in the same space, report. */

/* PaSE's hardware: p devices of one peak and one link (Eq. 1's r). */
typedef struct {
    int p;                   /* devices */
    double peak_flops;       /* per device, FLOP/s */
    double link_bps;         /* per device link, bytes/s */
    int word_bytes;          /* bytes per word moved (8 in the prototype) */
    char description[320];   /* one line for reports */
    int device_types;        /* types with devices: 0 from dnp_pase_hw_uniform (the default
                              * cost model then sees one bare fp32 device of that peak and
                              * link, memory unknown), else 1 or more */
    dnp_cluster cluster;     /* dnp_pase_hw_from_cluster's c (a copy); zero otherwise */
} dnp_pase_hw;

/* p devices of peak_flops FLOP/s with links of link_bps bytes/s moving
 * 8-byte words (the prototype's; 10 TFLOP/s and 16 GB/s give its r =
 * 5000 FLOP per word).  DNP_ERR_INPUT unless 1 <= p <= 65536 and both
 * figures are positive and finite.  O(1). */
dnp_status dnp_pase_hw_uniform(int p, double peak_flops, double link_bps, dnp_pase_hw *out,
                               dnp_error *err);
/* Cluster c as PaSE sees it: all its devices, the weakest peak and link of
 * its device types (a mixed cluster is planned for its weakest device,
 * paper section V) and the widest element type as the word.
 * DNP_ERR_INPUT for more than 65536 devices or a type without a positive
 * peak and network bandwidth.  O(device types). */
dnp_status dnp_pase_hw_from_cluster(const dnp_cluster *c, dnp_pase_hw *out, dnp_error *err);
/* Eq. 1's r in FLOP per word: peak_flops x word_bytes / link_bps.  O(1). */
double dnp_pase_hw_r_flop_per_word(const dnp_pase_hw *hw);

/* A model bound to hardware: every op's configurations and layer costs,
 * every edge's projections (opaque; src/search/pase/pase_setup.c). */
typedef struct dnp_pase_problem dnp_pase_problem;

typedef struct {
    int64_t batch;           /* mini-batch; 0: a reference graph's (128 for the CNNs, 64
                              * for pase-rnnlm and pase-transformer), else 128 */
    int cutoff;              /* smallest per-device extent of a split dimension; 0: the
                              * graph's (4; 1 for pase-rnnlm and pase-transformer) */
    int prototype_edges;     /* 1: an op feeding two inputs of one consumer counts once,
                              * as in the prototype */
    double max_memory_bytes; /* refuse configurations and DP tables needing more; 0:
                              * 2048 MiB */
    int skip_unknown;        /* ONNX: unknown operators become free element-wise ops */
    dnp_cost_model cost_model; /* DNP_COST_DEFAULT (0): seconds on the shared model;
                              * DNP_COST_PASE_PAPER: Eq. 1 in FLOP-equivalents; any other:
                              * DNP_ERR_INPUT */
    /* The default cost model only (DNP_ERR_INPUT with pase-paper unless zero): */
    dnp_precision precision; /* 0: the devices' dtype */
    dnp_optimizer optimizer; /* the optimizer state each device holds; 0: momentum */
    double memory_limit_bytes; /* per device; 0: the device's capacity (none for the bare
                              * device of dnp_pase_hw_uniform) */
    int no_stragglers;       /* 1: ignore the devices' speed spread */
    /* Either cost model: */
    int strategy_space;      /* 1: search only configurations a dnnpar strategy holds
                              * (dnp_pase_run_strategy): every op the strategy decides splits
                              * its batch, input or output dimension (joins: batch or
                              * channel), by powers of two (docs/pase.md "The strategy's
                              * space") */
} dnp_pase_options;

/* Build the problem of `model`: a PaSE reference graph (pase-alexnet,
 * pase-inception3, pase-rnnlm, pase-transformer, pase-resnet101), else a
 * zoo name or model file (dnp_model_load_opts) converted to PaSE's
 * iteration spaces (docs/pase.md "Iteration spaces"); opt may be NULL (all
 * defaults: the default cost model).  On success *out is the caller's
 * (dnp_pase_problem_free); it keeps a copy of `model` as the reports'
 * source and the loaded model (the type split rebuilds it at other
 * batches).  The default cost model plans for hw's one device type, or
 * for the field-wise weakest of several (docs/pase.md).  Errors: a
 * loader's own; "MODEL: reason" for an op without a PaSE iteration space
 * (DNP_ERR_INPUT); DNP_ERR_INPUT for tables over max_memory_bytes, an
 * unknown cost model, default-model options under pase-paper, a device
 * type without a positive peak; DNP_ERR_NOMEM.  O(sum over ops of
 * configurations x rank + sum over edges of the endpoints'
 * configurations). */
dnp_status dnp_pase_problem_load(const char *model, const dnp_pase_hw *hw,
                                 const dnp_pase_options *opt, dnp_pase_problem **out,
                                 dnp_error *err);
/* The same from a core graph g (borrowed: it must outlive the problem,
 * whose type split rebuilds it at other batches; the source is its name);
 * conversion errors are not prefixed. */
dnp_status dnp_pase_problem_from_graph(const dnp_graph *g, const dnp_pase_hw *hw,
                                       const dnp_pase_options *opt, dnp_pase_problem **out,
                                       dnp_error *err);
/* Free a problem; NULL is a no-op.  Free its runs first.  O(ops + edges). */
void dnp_pase_problem_free(dnp_pase_problem *pb);
/* Its ops (vertices), active edges and mini-batch.  O(1). */
int dnp_pase_problem_n_ops(const dnp_pase_problem *pb);
int dnp_pase_problem_n_edges(const dnp_pase_problem *pb);
int64_t dnp_pase_problem_batch(const dnp_pase_problem *pb);

typedef enum {
    DNP_PASE_SEARCH_DP = 0,  /* GenerateSeq + FindBestStrategy (Figs. 3, 4): exact */
    DNP_PASE_SEARCH_BFS,     /* the breadth-first DP (recurrence 2): exact, larger tables */
    DNP_PASE_SEARCH_MCMC     /* FlexFlow-style MCMC from the expert strategy */
} dnp_pase_search;

/* Progress of a long search: `what` names the search ("searching", or the
 * model and p in a reproduction), done of total ops eliminated after
 * elapsed_s seconds.  Called once a search has run for a second, and with
 * done == total at its end if it was called before. */
typedef void (*dnp_pase_progress_fn)(void *user, const char *what, int done, int total,
                                     double elapsed_s);

typedef struct {
    dnp_pase_search search;
    int threads;             /* DP worker threads; 0: the online CPUs, at most 8 */
    long mcmc_iters;         /* MCMC budget; 0: 250,000 (FlexFlow's) */
    uint64_t seed;           /* MCMC seed; 0: 1 */
    int optimum;             /* with MCMC: also run the exact search and compare */
    double time_limit_s;     /* wall time; 0: none.  MCMC then keeps its best so far; the
                              * exact search fails with DNP_ERR_INPUT */
    dnp_pase_progress_fn progress; /* may be NULL */
    void *progress_user;
    int no_refine;           /* default model, one device type: keep PaSE's optimum; else
                              * it is refined in the step simulator (docs/pase.md "The
                              * plan, refined in the step simulator") */
    double time_limit_from_s; /* the dnp_clock_s() reading time_limit_s counts from (the
                              * command's start: one deadline, as dnp_plan_options); 0 =
                              * the call's start */
} dnp_pase_run_options;

/* A search's strategy with the baselines in the same space and cost model
 * (opaque; src/search/pase/pase_run.c). */
typedef struct dnp_pase_run dnp_pase_run;

/* Run search o->search on pb (o may be NULL: the DP, defaults) and
 * evaluate the baselines: data parallelism, the expert strategy of the
 * paper's section IV and, after an exact search, MCMC from the expert.
 * Under the default cost model the DP keeps the plan within the device
 * memory (docs/pase.md "Memory": configurations over the limit pruned,
 * per-op budgets if the optimum does not fit; the breadth-first DP and
 * MCMC do not prune), and on a cluster of several device types the DP
 * also splits the batch across the types, PaSE inside each
 * (dnp_pase_run_type_split).  The run borrows pb (read only: runs on one
 * problem may proceed in parallel): free it before pb.  On success *out
 * is the caller's (dnp_pase_run_free).  Errors: DNP_ERR_INPUT (DP tables
 * over the memory limit, time limit of an exact search, no strategy fits
 * in the device memory, naming the figures; a type split that fits
 * nowhere is no error: the plan over all devices stays),
 * DNP_ERR_NOMEM.  O(the search: sum over ops of K_v x prod of K over its
 * dependent set; the type split: one per share evaluated and type). */
dnp_status dnp_pase_run_new(const dnp_pase_problem *pb, const dnp_pase_run_options *o,
                            dnp_pase_run **out, dnp_error *err);
/* Free a run; NULL is a no-op.  O(1). */
void dnp_pase_run_free(dnp_pase_run *r);

/* Costs: a *_flop figure is Eq. 1's FLOP-equivalents under pase-paper and
 * -1 under the default cost model; a *_s figure is seconds under both
 * (pase-paper: the FLOP figure / peak FLOP/s). */
typedef struct {
    dnp_cost_model cost_model; /* the problem's */
    double cost_flop;        /* F of the strategy found (Eq. 1) */
    double cost_s;           /* F in seconds: the step time under the default model */
    double transfer_flop;    /* its transfer part, sum of t_x */
    double transfer_s;
    double optimum_flop;     /* MCMC with o->optimum: the exact search's F; else -1 */
    double optimum_s;        /* the same in seconds; else -1 */
    double search_s;         /* wall time of the search (varies run to run) */
    int n_baselines;         /* 2 after MCMC, 3 after an exact search */
    int best_baseline;       /* index of the cheapest that fits the memory (of all
                              * if none does; the first of ties) */
    int dp_split_min, dp_split_max; /* batch splits data parallelism uses (< p: idle
                              * devices) */
    int time_limit_hit;      /* 1: MCMC (the search or the baseline) stopped at the
                              * time limit and kept its best so far */
    int devices_used;        /* the most devices any op of the strategy uses (the rest
                              * idle all step) */
    /* The default model's DP (else -1, -1, 0, 0): */
    double mem_bytes;        /* the plan's per-device footprint */
    double min_mem_bytes;    /* the least footprint of any strategy */
    double mem_limit_bytes;  /* the limit it was planned for; 0: none */
    int mem_budgeted;        /* 1: the optimum did not fit; per-op budgets were used */
    int has_type_split;      /* 1: a batch split across device types was searched */
} dnp_pase_summary;
/* The run's figures.  O(edges x rank). */
void dnp_pase_run_summary(const dnp_pase_run *r, dnp_pase_summary *out);

typedef struct {
    const char *name;        /* "data parallel", "expert (owt)", "mcmc (from the
                              * expert)"; borrowed from the run */
    double cost_flop;        /* F, FLOP-equivalents (pase-paper; -1 under the default) */
    double cost_s;           /* F in seconds */
    long iterations;         /* MCMC's, else 0 */
    double mem_bytes;        /* per-device footprint (default model; 0 under pase-paper) */
    int fits;                /* 1 unless over the run's memory limit; the best baseline
                              * (dnp_pase_summary.best_baseline) is the fastest that fits */
} dnp_pase_baseline;
/* Baseline i (0 .. n_baselines - 1); DNP_ERR_INPUT out of range.  O(1). */
dnp_status dnp_pase_run_baseline(const dnp_pase_run *r, int i, dnp_pase_baseline *out,
                                 dnp_error *err);

typedef struct {
    const char *name;        /* borrowed from the problem */
    const char *kind;        /* "Conv", "FC", ... (the prototype's class names) */
    char dims[64];           /* iteration-space dimension names, e.g. "bchwrsn" */
    char config[96];         /* split count per dimension, e.g. "(4,1,1,1,1,1,2)" */
    double layer_cost_flop;  /* t_l under that configuration (pase-paper; -1 under the
                              * default model) */
    double layer_cost_s;     /* t_l in seconds */
} dnp_pase_op;
/* Op v (0 .. n_ops - 1) of the strategy; DNP_ERR_INPUT out of range.
 * O(rank). */
dnp_status dnp_pase_run_op(const dnp_pase_run *r, int v, dnp_pase_op *out, dnp_error *err);

/* The batch split across device types of a default-model DP run on a
 * cluster of several types (docs/pase.md "Heterogeneous clusters"): one
 * group per type with devices, step = max over groups of their PaSE
 * optimum at their share + the gradient all-reduce across the groups. */
typedef struct {
    char device[32];         /* the type's name */
    int devices;
    int64_t batch;           /* its share (0: the group idles) */
    int64_t plan_batch;      /* the share its plan was searched at: batch, unless the step
                              * simulator moved the share with the plan kept (in the
                              * strategy's space; docs/pase.md "The type level, refined in
                              * the step simulator") */
    double time_s;           /* its PaSE optimum at plan_batch */
    double mem_bytes;        /* that plan's per-device footprint at plan_batch */
    int devices_used;        /* the most devices an op of that plan uses (0 if idle) */
} dnp_pase_type_group;
typedef struct {
    int n_groups;
    dnp_pase_type_group group[DNP_MAX_DEVICE_TYPES];
    double sync_s;           /* the gradient all-reduce across the groups */
    double grad_bytes;       /* the gradient bytes it sums */
    double step_s;           /* the step with the split */
    int candidates;          /* group plans searched (one PaSE search of one group at
                              * one share; shares searched before are not counted) */
    int exhaustive;          /* 1: every integer split was tried (two types) */
    int chosen;              /* 1: faster than the plan on the weakest device */
} dnp_pase_type_split;
/* The run's type split; DNP_ERR_INPUT if it has none.  O(types). */
dnp_status dnp_pase_run_type_split(const dnp_pase_run *r, dnp_pase_type_split *out,
                                   dnp_error *err);
/* The configuration of op v (0 .. n_ops - 1) in group g's plan, "(b,c,...)",
 * borrowed from the run; NULL out of range or for an idle group.  O(1). */
const char *dnp_pase_run_type_config(const dnp_pase_run *r, int g, int v);

/* Under the default cost model: a warning line on f for the chosen plan's
 * devices idle all step (the weakest-device plan, or each group of the
 * chosen type split), as the report also shows; the CLI writes them to
 * stderr.  Returns the lines written.  O(groups). */
int dnp_pase_run_warn(const dnp_pase_run *r, FILE *f);

/* The report `dnnpar plan --search pase|mcmc` prints, to f: the model and
 * hardware (and cost model), every op's configuration and t_l, F or the
 * step time, the memory, the baselines, idle devices, the type split and
 * the table sizes; with timing, the search time (without it, the bytes are
 * the same on every run).  Write errors stay on f's error flag.  O(ops). */
void dnp_pase_run_print(const dnp_pase_run *r, int timing, FILE *f);
/* The same as JSON (docs/formats.md): a new NUL-terminated text the caller
 * frees with dnp_free; NULL on allocation failure.  Deterministic (no
 * times).  O(ops). */
char *dnp_pase_run_json(const dnp_pase_run *r);

/* What dnp_pase_run_strategy wrote. */
typedef struct {
    int idle_ops;            /* ops whose configuration leaves devices idle: their unused
                              * levels are R (layers) / "replicated" (joins) */
    int type_split;          /* 1: the run's batch split across device types is the top
                              * levels (Type-I with ratio b_t / samples) */
    char idle_types[128];    /* device types the split gives no samples ("2xv100"; "" none):
                              * dropped, the strategy is for the rest */
    char cluster[DNP_CLUSTER_SPEC_MAX]; /* the cluster spec the strategy names, whole */
} dnp_pase_strategy_info;

/* Run r's strategy as a dnnpar strategy, version 2 (docs/formats.md
 * "Strategy", the file `plan --json` writes and `simulate --strategy`,
 * `export --strategy` read) for model g (the core graph r's problem was
 * converted from; its source text model_source, NULL for its name) on
 * cluster c at `batch`: per level of c's binary device tree each weighted
 * op's type (I batch, II input, III output, R not split) and each join's
 * ("batch", "channel", "replicated").  Exact for configurations that split
 * only those dimensions, in powers of two: levels a configuration leaves
 * unused are R / "replicated" (each half computes all of the op, the time
 * of one half working while the other idles; info->idle_ops counts those
 * ops).  When r chose the batch split across device types, the levels
 * separating the types split the batch with ratio b_t / samples and each
 * type's group takes its own plan below them (paths of different lengths);
 * a type with no samples is dropped (info->idle_types) and the strategy
 * names the cluster without it (info->cluster).  Other splits, a group
 * that is not a power of two, or a tree that does not halve the plan's
 * devices evenly are refused (DNP_ERR_INPUT naming the op or the group).
 * *out is a new NUL-terminated JSON text the caller frees with dnp_free.
 * O(ops x levels x distinct paths). */
dnp_status dnp_pase_run_strategy(const dnp_pase_run *r, const dnp_graph *g,
                                 const char *model_source, const dnp_cluster *c, int64_t batch,
                                 char **out, dnp_pase_strategy_info *info, dnp_error *err);

/* A PaSE run whose plan is a dnnpar strategy (dnp_pase_search_strategy). */
typedef struct {
    dnp_pase_problem *problem;   /* owned (dnp_pase_strategy_search_free) */
    dnp_pase_run *run;           /* owned; a run of problem */
    char *strategy;              /* the run's strategy JSON (dnp_pase_run_strategy; owned) */
    dnp_pase_strategy_info info;
    int in_space;                /* 1: the run is the search in the strategy's space: PaSE's
                                  * optimum was no strategy, or (faster) it was but the
                                  * strategy's space simulates faster */
    int faster;                  /* 1: in_space because on several device types the type
                                  * split of the strategy's space, chosen and refined in the
                                  * step simulator, simulates faster than PaSE's optimum */
    char cost[64];               /* the run's cost in its unit ("21.733 ms", "F = ... FLOP") */
    char optimum[64];            /* in_space: the optimum's cost, the same way */
    char why[512];               /* in_space: why the optimum is no strategy, or (faster)
                                  * both simulated step times */
} dnp_pase_strategy_search;

/* PaSE with opt and ro on a model, its plan written as a dnnpar strategy
 * for cluster c (dnp_pase_run_strategy).  The model is g when given (its
 * strategy names g), else the file, zoo or reference model `model`
 * (dnp_pase_problem_load; the strategy names `model` as its source).  When
 * the optimum splits what a strategy cannot hold and opt did not ask for
 * the strategy's space, the search runs again in that space
 * (dnp_pase_options.strategy_space) and out->in_space, optimum and why
 * say so (docs/pase.md "The strategy's space").  On a cluster of several
 * device types under the default model, when the DP's optimum is a strategy,
 * the strategy's space is searched too and its plan kept when the step
 * simulator runs it faster (out->faster; docs/pase.md "The type level,
 * refined in the step simulator").  Errors: the loaders' and
 * searches' own; DNP_ERR_INPUT when no strategy exists even in that space
 * (the message names the op or the group).  On success *out owns the
 * problem, the run and the text (dnp_pase_strategy_search_free); on
 * failure *out holds nothing.  O(one or two searches + ops x levels, and
 * two plans simulated on several device types). */
dnp_status dnp_pase_search_strategy(const char *model, const dnp_graph *g, const dnp_pase_hw *hw,
                                    const dnp_pase_options *opt, const dnp_pase_run_options *ro,
                                    const dnp_cluster *c, dnp_pase_strategy_search *out,
                                    dnp_error *err);
/* s's strategy as a plan (named "pase" or "mcmc") of its model on cluster
 * c, evaluated by the step simulator as dnp_pase_run_plan does, without
 * writing the strategy again (the model is the problem's core graph, or
 * loaded again for a reference graph's problem).  Errors: the loader's and
 * the simulator's own.  *out is the caller's (dnp_plan_free).  O(the
 * simulation). */
dnp_status dnp_pase_search_plan(const dnp_pase_strategy_search *s, const dnp_cluster *c,
                                dnp_plan **out, dnp_error *err);
/* Free what s owns (NULL-safe) and zero it.  O(ops). */
void dnp_pase_strategy_search_free(dnp_pase_strategy_search *s);

/* `dnnpar reproduce pase`: the paper's Table I (search per model and p = 4
 * .. 64 beside the paper's and the prototype's times and totals) and
 * Table II (strategies at p = 32) on our implementation (opaque;
 * src/search/pase/pase_repro.c). */
typedef struct dnp_pase_repro dnp_pase_repro;

typedef struct {
    int max_p;               /* only device counts p (4, 8, 16, 32, 64) up to this; Table
                              * II at min(max_p, 32); 0: 64 */
    int threads;             /* 0: the online CPUs, at most 8 */
    dnp_pase_progress_fn progress; /* may be NULL */
    void *progress_user;
} dnp_pase_repro_options;

/* Run the evaluation (10 TFLOP/s, 16 GB/s, 8-byte words: r = 5000; each
 * model at its paper batch); o may be NULL.  On success *out is the
 * caller's (dnp_pase_repro_free).  Errors: DNP_ERR_INTERNAL naming the
 * model and p if a reference search fails, DNP_ERR_NOMEM.  O(the searches:
 * minutes for p = 64). */
dnp_status dnp_pase_reproduce(const dnp_pase_repro_options *o, dnp_pase_repro **out,
                              dnp_error *err);
/* Free it; NULL is a no-op.  O(1). */
void dnp_pase_repro_free(dnp_pase_repro *r);
/* Table I's cell of `model` (e.g. "pase-alexnet") at p: our best F and the
 * prototype's total (-1 if unknown).  DNP_ERR_INPUT if the cell was not
 * run.  O(cells). */
dnp_status dnp_pase_repro_cell(const dnp_pase_repro *r, const char *model, int p,
                               double *cost_flop, double *prototype_flop, dnp_error *err);
/* The tables as `dnnpar reproduce pase` prints them, to f; with timing,
 * our search times.  O(ops of the four models). */
void dnp_pase_repro_print(const dnp_pase_repro *r, int timing, FILE *f);
/* The same as JSON (no times): new text, dnp_free; NULL on allocation
 * failure.  O(ops). */
char *dnp_pase_repro_json(const dnp_pase_repro *r);

/* `dnnpar compare`'s PaSE block: g at `batch` on cluster c as one flat
 * mesh of all its devices, each counted at the weakest type's peak and
 * link, moving words of the widest element type, with
 * PaSE, MCMC (default budget, seed 1), data parallelism and the expert
 * strategy in that one space, in seconds of the device's peak (F / peak
 * FLOP/s). */
typedef struct {
    double pase_s;           /* the best PaSE strategy */
    double mcmc_s;           /* MCMC from the expert strategy */
    double dp_s;             /* data parallelism */
    double expert_s;         /* the expert strategy */
    char expert[32];         /* its name, e.g. "owt", "mesh 8x4" */
    double search_s;         /* wall time of the PaSE search (varies run to run) */
    int time_limit_hit;      /* MCMC stopped at opt's deadline: mcmc_s is its best so far */
} dnp_pase_compare_result;
/* opt (may be NULL: no limit) gives the time limit and its start
 * (time_limit_s, time_limit_from_s; the command's one deadline): the DP
 * past it fails (DNP_ERR_INPUT, "time limit of S s reached in the PaSE
 * search ..."), MCMC keeps its best so far (time_limit_hit).
 * Errors: DNP_ERR_INPUT (unsupported op, too many devices, tables over 2
 * GiB, the deadline), DNP_ERR_NOMEM.  O(the search). */
dnp_status dnp_pase_compare(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                            const dnp_plan_options *opt, dnp_pase_compare_result *out,
                            dnp_error *err);

/* Run r's strategy as a dnnpar plan: written as dnp_pase_run_strategy does
 * (for g, the core graph r's problem was converted from, on cluster c at
 * the problem's batch) and evaluated by the step simulator like any plan
 * (dnp_plan_run_strategy, with the problem's precision, optimizer, memory
 * limit and stragglers; a plan over memory is returned, flagged).  info
 * (may be NULL) as dnp_pase_run_strategy's.  Errors: DNP_ERR_INPUT when r
 * is of the pase-paper model or its strategy cannot be written (the
 * message names the op or the group), the simulator's own.  *out is the
 * caller's (dnp_plan_free).  O(ops x levels + the simulation). */
dnp_status dnp_pase_run_plan(const dnp_pase_run *r, const dnp_graph *g, const dnp_cluster *c,
                             dnp_plan **out, dnp_pase_strategy_info *info, dnp_error *err);

/* PaSE's search s (DP or MCMC) on g over cluster c as a dnnpar plan: the
 * search on the shared performance model with opt's batch, precision,
 * optimizer, memory limit, stragglers and time limit, its strategy
 * written as a dnnpar strategy (dnp_pase_run_strategy) and evaluated like
 * any plan by the step simulator (dnp_plan_run_strategy; the plan names
 * its search "pase" or "mcmc").  When the optimum splits what a strategy
 * cannot hold, the strategy's space is searched instead
 * (dnp_pase_options.strategy_space) and *in_space (may be NULL) is 1.  A
 * device type the batch split leaves idle is dropped: the plan is for the
 * other devices (info, may be NULL, says which and counts the ops that
 * leave devices idle, as dnp_pase_run_strategy).  Errors: DNP_ERR_INPUT (no strategy even in that space:
 * a device tree that does not halve evenly, tables over 2 GiB), the
 * searches' own; *out is the caller's (dnp_plan_free).  O(the search +
 * the simulation). */
dnp_status dnp_pase_plan_run(const dnp_graph *g, const dnp_cluster *c,
                             const dnp_plan_options *opt, dnp_pase_search s, dnp_plan **out,
                             int *in_space, dnp_pase_strategy_info *info, dnp_error *err);

/* ------------------------------------------------------------------ */
/* Text formatting shared by the reports (src/core/fmt.c)               */
/* ------------------------------------------------------------------ */

/* A count with an SI prefix and 3 significant digits, the prefix after a
 * blank: "1.85 G", "235 M", "12 " (no prefix: a trailing blank).  Writes
 * at most n bytes to buf.  O(1). */
void dnp_fmt_si(double x, char *buf, size_t n);
/* A time in seconds as "1.234 s", "12.345 ms" or "56.700 us" (three
 * decimals in the largest unit below the value).  Writes at most n bytes.
 * O(1). */
void dnp_fmt_time(double time_s, char *buf, size_t n);
/* One unit for a column of times (docs/cli.md: a column of times has one
 * unit, named in its header): the one dnp_fmt_time picks for the column's
 * largest value max_s.  Returns "s", "ms" or "us" and sets *per_s to the
 * factor from seconds (1, 1e3, 1e6).  O(1). */
const char *dnp_time_unit(double max_s, double *per_s);
/* `text` broken at blanks into lines of at most max_cols columns, written
 * to f and ended with a newline: every report's prose (the CLI's notes,
 * PaSE's notes, the preset sources).  `col` is how many columns the current
 * line already holds (what was printed before the text); each continuation
 * line starts with `cont`.  Blanks between words are kept as written, except
 * at a break; a word longer than a line is not cut; a '\n' in the text
 * starts a new line at column 0.  UTF-8 continuation bytes take no column.
 * O(length). */
void dnp_fmt_wrap(FILE *f, int col, int max_cols, const char *cont, const char *text);

/* ------------------------------------------------------------------ */
/* Pictures and exports of models and plans (src/report/report_api.c,   */
/* docs/reports.md)                                                     */
/* ------------------------------------------------------------------ */

/* Picture format from a file name: DNP_PLOT_PNG for "*.png", DNP_PLOT_SVG
 * for "*.svg" (case-insensitive), -1 for anything else: lets a command
 * refuse a bad name before it plans.  O(length). */
enum { DNP_PLOT_PNG = 0, DNP_PLOT_SVG = 1 };
int dnp_plot_format(const char *path);

/* `compare --plot`: bars of each scheme's speedup, labelled with the
 * speedup and the step time, titled with the model and cluster.  names[i],
 * step_time_s[i] (seconds) and speedup[i] (times faster than the baseline)
 * for i < n, 1 <= n <= 64; fits[i] 0 marks a plan over the memory limit
 * (drawn grey, "over memory" under its figures; fits NULL: every plan
 * fits); everything is borrowed.  Writes `path` (.png or
 * .svg) through dnp_output.  Errors: DNP_ERR_INPUT (a name that is not
 * .png/.svg, bad arguments), DNP_ERR_IO (gnuplot missing or failing - its
 * first stderr line quoted - or the file cannot be written),
 * DNP_ERR_NOMEM.  Runs gnuplot once. */
dnp_status dnp_plot_compare(const char *path, const char *model, const char *cluster, int n,
                            const char *const *names, const double *step_time_s,
                            const double *speedup, const int *fits, dnp_error *err);

/* `plan --plot`: the decided ops (x, plan order) by searched levels (y),
 * each cell coloured by the op's type at that level, one panel per
 * distinct path of a heterogeneous plan (at most 4).  model, cluster and
 * scheme only label the picture; batch 0 leaves it out.  Errors as
 * dnp_plot_compare.  O(nodes x levels x panels) plus one gnuplot run. */
dnp_status dnp_plot_plan(const char *path, const dnp_plan *p, const char *model,
                         const char *cluster, const char *scheme, int64_t batch, dnp_error *err);

/* `scale --plot`: throughput (samples/s, log scale) and scaling
 * efficiency (%) against the number of devices (log scale): n points,
 * 1 <= n <= 256, arrays borrowed.  Errors as dnp_plot_compare. */
dnp_status dnp_plot_scale(const char *path, const char *model, const char *node, int n,
                          const double *devices, const double *throughput_per_s,
                          const double *efficiency, dnp_error *err);

/* `simulate --config --plot`, `plan --search 3d --plot`: the timeline of a
 * simulated step from its Chrome trace text (dnp_config3d_trace,
 * dnp_plan_trace_json; borrowed): one row per stream (process and thread
 * of the trace), one box per event from its start to its end, coloured by
 * forward, backward, pipeline send, gradient all-reduce, optimizer or other
 * compute / communication (docs/reports.md, "Timelines"); `title` labels
 * it.  Errors as dnp_plot_compare, and DNP_ERR_INPUT for a text that is
 * not a trace or one past 100,000 events or 256 streams.  O(events x
 * streams) plus one gnuplot run. */
dnp_status dnp_plot_trace(const char *path, const char *trace_json, const char *title,
                          dnp_error *err);

/* The model graph g in Graphviz DOT to `path` ("-" = standard output; a
 * name ending in .svg or .png: Graphviz's picture of it), coloured by plan
 * p's types when p (planned on g) is not NULL, edges labelled with the
 * bytes they carry per step at the plan's batch (batch 1, 4-byte elements
 * without a plan); see docs/reports.md.  Errors: DNP_ERR_IO (cannot write;
 * dot failed), DNP_ERR_INPUT (dot missing), DNP_ERR_NOMEM.
 * O(ops + edges + plan nodes x ops). */
dnp_status dnp_dot_write(const char *path, const dnp_graph *g, const dnp_plan *p,
                         dnp_error *err);

/* dnp_dot_write with the edges' bytes per step at `batch` samples of
 * bytes_per_elem-byte elements (<= 0: the plan's batch and activation
 * element size, or 1 and 4 without a plan; docs/reports.md).  A path
 * ending in .svg or .png receives Graphviz's picture of the graph (its
 * `dot` program; missing: DNP_ERR_INPUT naming the Debian package).
 * Errors as dnp_dot_write.  O(ops + edges + plan nodes x ops), plus one
 * dot run. */
dnp_status dnp_dot_write_batch(const char *path, const dnp_graph *g, const dnp_plan *p,
                               int64_t batch, int bytes_per_elem, dnp_error *err);

/* Export formats of `dnnpar export` (docs/reports.md). */
typedef enum {
    DNP_EXPORT_JAX = 0, /* JAX PartitionSpec per tensor (Python) */
    DNP_EXPORT_DTENSOR, /* PyTorch DTensor placements per tensor (Python) */
    DNP_EXPORT_ASTRA,   /* ASTRA-sim 1.0 text workload */
    DNP_EXPORT_COUNT
} dnp_export_format;
/* "jax", "dtensor", "astra" ("?" out of range) and back (-1 if unknown).
 * O(1). */
const char *dnp_export_name(dnp_export_format f);
int dnp_export_from_name(const char *s);

/* The text of plan p (made by dnp_plan_run(g, cl, opt)) in format f.  On
 * success *out owns a NUL-terminated string (dnp_free).  Errors:
 * DNP_ERR_INPUT (a plan over the memory limit, refused by
 * dnp_plan_check_memory with plan's message; a plan the format cannot
 * describe: a device tree deeper than 31 levels, or an unknown format),
 * DNP_ERR_INTERNAL (plan and graph disagree), DNP_ERR_NOMEM.
 * O(nodes x (levels + ops) x paths) plus the memory check. */
dnp_status dnp_export_text(dnp_export_format f, const dnp_graph *g, const dnp_cluster *cl,
                           const dnp_plan_options *opt, const dnp_plan *p, char **out,
                           dnp_error *err);

/* ------------------------------------------------------------------ */
/* SynergyFlow accelerator (Li et al., TODAES 2018; src/arch/synergyflow/,
 * docs/synergyflow.md): `dnnpar synergy` and `dnnpar reproduce synergyflow` */
/* ------------------------------------------------------------------ */

/* Architectures a SynergyFlow run simulates (section 6.1). */
typedef enum {
    DNP_SYNERGY_SF = 0, /* SynergyFlow: the analytical split (Eq. 9) */
    DNP_SYNERGY_MONO,   /* MonoArch: all cores one engine, layers in turn */
    DNP_SYNERGY_ATA1,   /* ATA(32,32) .. ATA(63,1): fixed splits defined for 64 cores */
    DNP_SYNERGY_ATA2,
    DNP_SYNERGY_ATA3,
    DNP_SYNERGY_ATA4,
    DNP_SYNERGY_ATA5,
    DNP_SYNERGY_SPLIT,  /* the split given in the options (have_split) */
    DNP_SYNERGY_ARCH_COUNT
} dnp_synergy_arch;
/* "sf", "mono", "ata1" .. "ata5", "split" ("?" out of range); the
 * architecture named s, case-insensitive ("split" not accepted), or -1.
 * O(1). */
const char *dnp_synergy_arch_name(dnp_synergy_arch a);
int dnp_synergy_arch_from_name(const char *s);

/* "GB" in the paper's bandwidths, and our GiB: 2^30 bytes. */
#define DNP_SYNERGY_GIB_BYTES 1073741824.0

/* The platform (Table 2). */
typedef struct {
    int cores;      /* N: cores in the array */
    int tn;         /* Tn: each core is a Tn x Tn PE mesh */
    double bw_bps;  /* DRAM bandwidth, bytes per second */
    double freq_hz; /* core clock, Hz */
    int dw_bytes;   /* bytes per data word */
    int tr, tc;     /* spatial tile of CONV outputs (Fig. 8a) */
    int tnn;        /* FC weight tile side (Fig. 8b) */
} dnp_synergy_platform;

/* What `dnnpar synergy` computes.  Strings are borrowed for the call. */
typedef struct {
    const char *workload;          /* MODEL[:COUNT]('+'MODEL[:COUNT])* or batch1..3 (Table 6) */
    dnp_synergy_platform platform; /* default: the paper's P395-AB FPGA */
    int have_split, nc, nf;        /* 1: simulate the split (nc, nf), not Eq. 9's */
    int arch;                      /* dnp_synergy_arch to simulate, -1: SF (or SPLIT) */
    int dse;                       /* 1: the design space of every split (Fig. 9) */
    int blocks;                    /* 1: per layer the instruction blocks (Table 3) */
    int simulate;                  /* 1: simulate `arch` (implied by compare and trace_path) */
    int compare;                   /* 1: also MonoArch and ATA-1..5 (ATA only at 64 cores) */
    int training;                  /* 1: FF, BP and GD per instance; 0: inference */
    int in_order;                  /* 1: finish each instance before the next */
    int round_robin;               /* 1: round-robin DRAM; 0: C-Engine priority (Fig. 12) */
    int epochs;                    /* training passes (1) */
    int batch_size;                /* weights change per batch of a model (50) */
    int max_blocks;                /* merge each layer into at most this many blocks (0: none) */
    int64_t sample;                /* estimate from counts/K and 2 counts/K (1: whole) */
    const char *trace_path;        /* Chrome trace of the one simulation (no compare, sample 1),
                                    * or NULL */
    int64_t trace_max_spans;       /* spans written at most (2000000) */
    int skip_unknown;              /* ONNX workloads: unknown operators become free
                                    * element-wise ops (dnp_load_options) */
} dnp_synergy_options;

/* The defaults above: the P395-AB platform, Eq. 9's split, nothing but the
 * characterisation and split, inference out of order with priority, 1
 * epoch, batch 50, sample 1, no trace.  O(1). */
void dnp_synergy_options_default(dnp_synergy_options *o);
/* DNP_ERR_INPUT naming the first field of p out of range (a count not in
 * 1..its limit, a non-positive bandwidth or clock, Tnn not a multiple of
 * Tn).  O(1). */
dnp_status dnp_synergy_platform_check(const dnp_synergy_platform *p, dnp_error *err);

/* One finished analysis (opaque). */
typedef struct dnp_synergy_run dnp_synergy_run;

/* Characterise workload o->workload on o->platform (Eqs. 1, 3-5, 10),
 * split the cores (Eq. 9), and, as o asks, map the design space and
 * simulate (writing o->trace_path through dnp_output).  On success *out
 * owns the run (dnp_synergy_run_free).  Errors: DNP_ERR_INPUT (a bad
 * workload, platform or split; "simulating ARCH: ..." when a simulation
 * refuses the configuration), DNP_ERR_IO (the trace cannot be written),
 * DNP_ERR_NOMEM.  Deterministic.  Cost: O(N x sublayers) for the design
 * space, O(blocks x log(events)) per simulation. */
dnp_status dnp_synergy_analyse(const dnp_synergy_options *o, dnp_synergy_run **out,
                               dnp_error *err);
void dnp_synergy_run_free(dnp_synergy_run *r);

/* Figures of a run (for tests and callers; the reports print them all). */
typedef struct {
    double conv_ops, fc_ops;     /* whole workload, FF, operations (2 per MAC) */
    double r_ctf;                /* Eq. 10 (INFINITY without FC work) */
    int k, s;                    /* kernel size and stride, CONV-op-weighted, rounded */
    int nc, nf;                  /* Eq. 9's split */
    int dse_best_nc, dse_best_nf;/* Fig. 9's best split (-1 without o->dse) */
    double dse_best_gops;        /* its estimate, 10^9 op/s (0 without o->dse) */
    int n_sims;                  /* simulations run (dnp_synergy_sim_at) */
} dnp_synergy_summary;
void dnp_synergy_get_summary(const dnp_synergy_run *r, dnp_synergy_summary *out);

/* One simulation of a run. */
typedef struct {
    dnp_synergy_arch arch;
    int nc, nf;          /* 0, 0 for MonoArch */
    double time_s;
    double ops;          /* useful operations, 2 per MAC */
    double gops;         /* ops / time_s / 10^9 */
    double bytes;        /* DRAM bytes moved */
    double pe_util, bw_util;
    int64_t instances, events, preemptions;
} dnp_synergy_sim;
/* Simulation i < n_sims in run order (--compare: MonoArch, ATA-1..5, then
 * the chosen one).  DNP_ERR_INPUT if i is out of range.  O(1). */
dnp_status dnp_synergy_sim_at(const dnp_synergy_run *r, int i, dnp_synergy_sim *out,
                              dnp_error *err);

/* The report of `dnnpar synergy` as text and as JSON (docs/synergyflow.md,
 * docs/formats.md).  On success *out owns a NUL-terminated string
 * (dnp_free).  Errors: DNP_ERR_NOMEM.  Deterministic.  O(layers + N^2 +
 * simulations); --blocks adds O(sublayers). */
dnp_status dnp_synergy_text(const dnp_synergy_run *r, char **out, dnp_error *err);
dnp_status dnp_synergy_json(const dnp_synergy_run *r, char **out, dnp_error *err);

/* The paper's evaluation (section 6) on the P395-AB preset (opaque):
 * Table 6, Figs. 9, 13(a), 15, 16, 17, Table 7 and section 4.1.2. */
typedef struct dnp_synergy_repro dnp_synergy_repro;
/* Run it: every Table 6 workload characterised, split and simulated.  On
 * success *out owns the result (dnp_synergy_repro_free).  Errors:
 * DNP_ERR_NOMEM, DNP_ERR_INTERNAL.  Deterministic; about 10^7 simulated
 * events (seconds). */
dnp_status dnp_synergy_reproduce(dnp_synergy_repro **out, dnp_error *err);
void dnp_synergy_repro_free(dnp_synergy_repro *r);
/* Its tables beside the paper's as text and as JSON; *out as
 * dnp_synergy_text.  O(workloads x bandwidths). */
dnp_status dnp_synergy_repro_text(const dnp_synergy_repro *r, char **out, dnp_error *err);
dnp_status dnp_synergy_repro_json(const dnp_synergy_repro *r, char **out, dnp_error *err);

/* ------------------------------------------------------------------ */
/* MPT: multi-dimensional parallel training of Winograd layers on near-
 * data-processing workers (Hong et al., MICRO 2018; src/arch/mpt/,
 * docs/mpt.md): `dnnpar mpt` and `dnnpar reproduce mpt` */
/* ------------------------------------------------------------------ */

#define DNP_MPT_MAX_CONFIGS 32  /* --config values per run */
#define DNP_MPT_MAX_HW 16       /* hardware overrides per run */

/* What `dnnpar mpt` evaluates.  Strings are borrowed for the call. */
typedef struct {
    const char *target;   /* a Table II layer (early, mid-1, late-1, mid-2, late-2) or a
                           * model (zoo name or file) */
    int workers;          /* P (256) */
    int64_t batch;        /* total batch, samples (256) */
    int kernel;           /* Table II layers: 3 or 5 (3) */
    int tile;             /* Winograd tile forced (4 or 6), 0: per layer */
    int fp16;             /* 1: FP16 workers with 96x96 arrays (the paper's whole-CNN setting) */
    const char *hardware_path; /* JSON object of hardware keys (docs/mpt.md), or NULL */
    /* Hardware overrides applied after the file, in order: names as the
     * file's keys with '-' for '_' ("array", "array-split", "clock-ghz",
     * "dram-gbps", "full-link-gbps", "narrow-link-gbps", "full-links",
     * "input-buffer-kb", "output-buffer-kb", "hop-ns") and values as text
     * in the units the names say; messages call them "--NAME". */
    int n_hw;
    const char *hw_name[DNP_MPT_MAX_HW];
    const char *hw_value[DNP_MPT_MAX_HW];
    const char *prediction_shares; /* "ours" (NULL: measured by dnnpar) or "paper" */
    /* Grids, in order: "NgxNc" sets the fixed grid of w_mp and w_mp+,
     * "dynamic[:G,...]" the group counts dynamic clustering chooses from.
     * Defaults: the paper's 1, 4, 16 that divide P; the fixed grid the most
     * groups of those. */
    int n_configs;
    const char *configs[DNP_MPT_MAX_CONFIGS];
} dnp_mpt_options;

/* The defaults above (target NULL).  O(1). */
void dnp_mpt_options_default(dnp_mpt_options *o);

/* One evaluation (opaque). */
typedef struct dnp_mpt_run dnp_mpt_run;

/* Evaluate o->target under the six configurations of Table IV (d_dp,
 * w_dp, w_mp, w_mp+, w_mp*, w_mp+*) and w_dp on one worker.  On success
 * *out owns the run (dnp_mpt_run_free).  Errors: DNP_ERR_INPUT naming the
 * option, layer or model ("--config '3x5': ...", "layer 'late-2': ...",
 * "unknown layer or model ..."), DNP_ERR_IO, DNP_ERR_NOMEM.  Measuring our
 * prediction shares (the default) measures a small trained network (act_digits.c) first.
 * O(configurations x layers x group choices). */
dnp_status dnp_mpt_evaluate(const dnp_mpt_options *o, dnp_mpt_run **out, dnp_error *err);
void dnp_mpt_run_free(dnp_mpt_run *r);

/* Figures of one configuration of a run: c is 0 .. DNP_MPT_CONFIG_COUNT-1
 * in Table IV's order; seconds and bytes per worker per iteration. */
#define DNP_MPT_CONFIG_COUNT 6
typedef struct {
    char config[8];             /* "d_dp", "w_dp", "w_mp", "w_mp+", "w_mp*", "w_mp+*" */
    double forward_s, backward_s, total_s;
    double speedup_over_w_dp;
    double speedup_over_one_worker;
    double weight_bytes, tile_bytes; /* sent per worker */
} dnp_mpt_config_result;
/* DNP_ERR_INPUT if c is out of range.  O(1). */
dnp_status dnp_mpt_config_at(const dnp_mpt_run *r, int c, dnp_mpt_config_result *out,
                             dnp_error *err);

/* The report of `dnnpar mpt` as text and as JSON (docs/mpt.md).  On
 * success *out owns a NUL-terminated string (dnp_free).  Errors:
 * DNP_ERR_NOMEM.  Deterministic.  O(layers x configurations). */
dnp_status dnp_mpt_text(const dnp_mpt_run *r, char **out, dnp_error *err);
dnp_status dnp_mpt_json(const dnp_mpt_run *r, char **out, dnp_error *err);

/* The paper's evaluation on our model (opaque): Figs. 6, 7, 12, a real
 * intra-tile x data-parallel run, Figs. 15, 16, 17 and sensitivities. */
typedef struct dnp_mpt_repro dnp_mpt_repro;
/* Run it.  On success *out owns the result (dnp_mpt_repro_free).  Errors:
 * DNP_ERR_NOMEM, DNP_ERR_INTERNAL.  Deterministic; seconds (the real run
 * uses 4 threads). */
dnp_status dnp_mpt_reproduce(dnp_mpt_repro **out, dnp_error *err);
void dnp_mpt_repro_free(dnp_mpt_repro *r);
/* Its figures beside the paper's as text and as JSON; *out as
 * dnp_mpt_text.  O(figures). */
dnp_status dnp_mpt_repro_text(const dnp_mpt_repro *r, char **out, dnp_error *err);
dnp_status dnp_mpt_repro_json(const dnp_mpt_repro *r, char **out, dnp_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_H */
