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
/* 1 for conv, FC and embedding: the layers with a weight tensor that
 * AccPar partitions. */
int dnp_op_is_weighted(dnp_op_kind k);

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
/* The JSON text of a model (caller frees with free()); NULL on allocation failure. */
char *dnp_model_to_json(const dnp_graph *g);

/* Load a model: a zoo name, "-" (model JSON on standard input) or a file,
 * recognised by content: JSON if its first non-blank byte is '{' (dnnpar
 * model JSON, docs/formats.md), ONNX if its first byte is not text, else by
 * extension (.onnx, .json) or the AccPar layer text format.  An unknown
 * name's error suggests the nearest zoo name.  O(size of the model). */
dnp_status dnp_model_load(const char *name_or_path, dnp_graph **out, dnp_error *err);
dnp_status dnp_model_load_opts(const char *name_or_path, const dnp_load_options *opt,
                               dnp_graph **out, dnp_error *err);

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
} dnp_device_type;

typedef struct {
    int n_types;
    dnp_device_type types[DNP_MAX_DEVICE_TYPES];
    int64_t counts[DNP_MAX_DEVICE_TYPES];
} dnp_cluster;

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
 * and node name: "1xdgx1+2xv100" has two v100 types.  Grammar and units in
 * docs/cluster.md; the canonical form always writes the count ("1xtpu-v3")
 * and writes node presets in node form ("2xdgx-a100").  O(length). */
dnp_status dnp_cluster_parse(const char *spec, dnp_cluster *out, dnp_error *err);
/* Canonical spec text of a cluster, e.g. "128xtpu-v2+128xtpu-v3"; parsing it
 * gives back *c exactly, every field. */
void dnp_cluster_format(const dnp_cluster *c, char *buf, size_t n);
int64_t dnp_cluster_devices(const dnp_cluster *c);

/* The dnnpar cluster JSON format (docs/formats.md): device types with
 * their figures in SI units and counts.  Writing then reading gives an
 * identical cluster.  The text is caller-owned (free()); NULL on
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
 * on the tiers the group spans, formulas and sources in
 * docs/collectives.md.  Units: bytes; out->time_s seconds; algbw_bps and
 * busbw_bps bytes/s (nccl-tests definitions; 0 when time_s is 0).
 * One member: time 0, algorithm "local"; bytes <= 0: time 0, "none";
 * a tier the group needs without bandwidth: time INFINITY,
 * "unavailable".  Never fails.  O(1) (O(sqrt(per_node)) on a torus). */
void dnp_coll_estimate(dnp_coll_op op, const dnp_comm_group *g, double bytes,
                       dnp_coll_cost *out);
/* The group of all devices of cluster c, from the device types' node
 * fields: per_node = min over types of min(count, devices_per_node)
 * (devices_per_node 0 or 1 = bare devices, one per node), n_nodes =
 * ceil(devices / per_node).  Mixed types: the slowest of each tier (least
 * bandwidth, largest latency; the topology of the slowest intra tier).
 * Inter tier: inter_bw_bps, or net_bw_bps when it is 0.  Intra tier (only
 * when per_node > 1): intra_bw_bps (inter rate if 0), topology NONE read
 * as SWITCH; per_node 1 leaves it zero.  Empty cluster: 1 x 1.  O(types). */
void dnp_cluster_comm_group(const dnp_cluster *c, dnp_comm_group *out);

/* ------------------------------------------------------------------ */
/* Partitioning: AccPar cost model, searches and baselines               */
/* ------------------------------------------------------------------ */

/* AccPar basic partition types (section 3.2). */
typedef enum { DNP_TYPE_I = 0, DNP_TYPE_II = 1, DNP_TYPE_III = 2 } dnp_ptype;

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
    int keep_over_memory;      /* 1: return the best plan even if it does not fit (flagged)
                                * instead of failing with DNP_ERR_INPUT */
    double time_limit_s;       /* wall-time limit of the search, seconds; 0 = none.  When it
                                * is reached the AccPar ratio searches keep their best ratio
                                * so far, the remaining splits take the equal split, the
                                * portfolio's other candidates are skipped and the plan says
                                * so (dnp_plan_summary.time_limit_hit).  A limit not reached
                                * changes nothing.  One level solve is not interrupted. */
} dnp_plan_options;

typedef struct dnp_plan dnp_plan;

/* Plan `g` on `c`.  On success *out owns the plan (dnp_plan_free).  The
 * plan borrows nothing: g and c may be freed afterwards.
 * Time complexity: O(L * V * 3^(w+1)) per distinct hierarchy node, where L
 * is the number of levels, V the number of weighted/join ops and w the
 * widest frontier of the topological order (1 for chains, 2 for ResNet). */
dnp_status dnp_plan_run(const dnp_graph *g, const dnp_cluster *c, const dnp_plan_options *opt,
                        dnp_plan **out, dnp_error *err);
void dnp_plan_free(dnp_plan *p);

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
 * "cost_model", "optimizer") or NULL. */
const char *dnp_strategy_option(const dnp_strategy *s, const char *key);
const char *dnp_strategy_model(const dnp_strategy *s);
const char *dnp_strategy_cluster(const dnp_strategy *s);
int64_t dnp_strategy_batch(const dnp_strategy *s);
int dnp_strategy_levels(const dnp_strategy *s);

/* Evaluate strategy s (instead of searching) for g on c with opt's batch;
 * opt->levels is ignored (the strategy's levels are used) and opt->scheme
 * only names the plan.  Every op of g must have a decision at every level
 * the strategy covers.  O(tree nodes x ops). */
dnp_status dnp_plan_run_strategy(const dnp_graph *g, const dnp_cluster *c,
                                 const dnp_plan_options *opt, const dnp_strategy *s,
                                 dnp_plan **out, dnp_error *err);

/* Maximum number of levels cluster `c` supports (every group above the
 * last level must hold at least two devices). */
int dnp_cluster_max_levels(const dnp_cluster *c);

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
     * comm_s is then the exposed communication (step time minus the
     * critical device's compute), comm_busy_s all its communication time,
     * overlapped or not. */
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

/* Along the hierarchy path that starts at the root and always takes child
 * `branch_bits` bit k at level k (0 = first group, 1 = second), the type of
 * `node` at `level` and that level's ratio (share of the first group). */
int dnp_plan_type(const dnp_plan *p, int level, unsigned branch_bits, int node);
double dnp_plan_ratio(const dnp_plan *p, int level, unsigned branch_bits);
/* Description of the two groups split at `level` on that path, e.g.
 * "128xtpu-v2 | 128xtpu-v3". */
void dnp_plan_level_groups(const dnp_plan *p, int level, unsigned branch_bits, char *buf,
                           size_t n);
/* 1 if the two groups split at `level` on that path are identical (same
 * devices and shares), so both halves share one sub-plan. */
int dnp_plan_level_identical(const dnp_plan *p, int level, unsigned branch_bits);
/* The plan's simulated step as Chrome trace events (chrome://tracing,
 * Perfetto): one process per device class, one thread per stream, times in
 * microseconds.  Under the paper's accounting, each op's communication and
 * compute on its critical path.  Caller frees the text with free(); NULL on
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

/* A Megatron-LM configuration. */
typedef struct {
    int tp, pp, dp;          /* tensor-, pipeline-, data-parallel degrees (>= 1) */
    int64_t microbatch;      /* sequences per micro-batch */
    int interleave;          /* model chunks per pipeline rank (1: 1F1B, > 1: interleaved) */
    dnp_recompute recompute;
    int seq_par;             /* 1: sequence parallelism */
} dnp_config3d;

/* tp = pp = dp = microbatch = interleave = 1, no recompute, no sequence
 * parallelism.  O(1). */
void dnp_config3d_defaults(dnp_config3d *c);
/* Parse "tp=8,pp=8,dp=1,microbatch=1,interleave=3,recompute=selective,
 * seq_par=1" (any subset, any order; the rest default).  DNP_ERR_INPUT
 * naming the bad item.  O(length). */
dnp_status dnp_config3d_parse(const char *text, dnp_config3d *out, dnp_error *err);

typedef struct {
    double step_time_s;      /* simulated step */
    double compute_busy_s;   /* the busiest pipeline rank's compute stream (kernels, the
                              * tensor-parallel collectives it waits for, the data-parallel
                              * all-reduce and the optimizer) */
    double bubble_s;         /* step time minus that: pipeline fill, drain and waits */
    double tp_comm_s;        /* tensor-parallel collectives per rank per step */
    double p2p_s;            /* one pipeline message (send and re-gather) */
    double dp_comm_s;        /* the gradient all-reduce */
    double optimizer_s;
    double model_flop;       /* forward + backward + gradient of the GEMMs, whole step */
    double mfu;              /* model_flop / (step x devices x peak FLOP/s) */
    double mem_weights_bytes, mem_activation_bytes, mem_bytes; /* first pipeline rank */
    double mem_capacity_bytes;
    int fits;
    int microbatches;        /* per data-parallel replica */
    double straggler_pace;   /* the device model's straggler factor (1 = none) */
} dnp_config3d_result;

/* Simulate one training step of transformer g (a gpt / bert / llama zoo
 * model) on cluster c (one device type) at global batch `batch` under
 * configuration cfg: per pipeline rank a compute stream running its
 * micro-batch chunks in Megatron's 1F1B or interleaved order, tensor-
 * parallel collectives in each chunk, pipeline messages on send streams,
 * the gradient all-reduce and the optimizer at the end.  opt gives the
 * precision, optimizer, memory limit and no_stragglers.  DNP_ERR_INPUT
 * when g is not such a model, tp x pp x dp differs from the devices, or
 * the batch or layers do not divide.  O(pp x micro-batches x interleave). */
dnp_status dnp_config3d_simulate(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                                 const dnp_plan_options *opt, const dnp_config3d *cfg,
                                 dnp_config3d_result *out, dnp_error *err);

/* The configuration cfg of zoo transformer g at global `batch` as
 * Megatron-LM command-line arguments (pretrain_gpt.py; pretrain_bert.py
 * for bert), one per line after '#' comment lines: model shape,
 * parallel degrees, micro and global batch, recompute, precision.  *out
 * is a new NUL-terminated text the caller frees with dnp_free.
 * DNP_ERR_INPUT if g is not a zoo transformer.  O(layers). */
dnp_status dnp_megatron_args(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                             dnp_precision precision, const dnp_config3d *cfg, char **out,
                             dnp_error *err);

typedef struct {
    int candidates;          /* configurations enumerated */
    int fitting;             /* of which within the memory limit */
    int simulated;           /* of which simulated (the others were bounded out) */
    double smallest_mem_bytes; /* the smallest footprint of those that did not fit */
} dnp_config3d_stats;

/* The fastest configuration of g on c at `batch` within the memory limit
 * (opt->memory_limit_bytes, else the device's capacity): tensor
 * parallelism in powers of two inside a node dividing the heads, every
 * pipeline depth dividing the layers, data parallelism for the rest,
 * micro-batches of 1 to 32 sequences, 1 to 8 chunks per rank, each
 * recompute mode, sequence parallelism on or off.  Exact over that space:
 * candidates are simulated in order of a lower bound (the busiest rank's
 * work without waits) until the bound reaches the best step found; ties
 * keep the first in enumeration order.  DNP_ERR_INPUT (naming the smallest
 * footprint) if none fits.  O(candidates + simulated x schedule). */
dnp_status dnp_config3d_search(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                               const dnp_plan_options *opt, dnp_config3d *best,
                               dnp_config3d_result *best_res, dnp_config3d_stats *stats,
                               dnp_error *err);

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

/* One row of a validation CSV (docs/validation.md) with its prediction. */
typedef struct {
    char id[64];
    char stack[64];           /* software stack: framework and version */
    char role[16];            /* "calibrate" or "validate" */
    char model[256], cluster[128], precision[16], search[16];
    int64_t batch;
    double measured_step_s;
    double predicted_step_s;  /* NAN if the row could not be predicted */
    double error_pct;         /* 100 (predicted - measured) / measured */
    double compute_eff;       /* efficiency used: fitted, else the device's or the model default */
    int calibrated;           /* 1: compute_eff was fitted on this stack's calibrate rows */
    double straggler_pace;    /* the prediction's straggler factor (dnp_plan_summary; 1 = none) */
    char config[160];         /* search "config": the configuration from the optional
                               * columns tp, pp, dp, microbatch, interleave, recompute,
                               * seq_par, as dnp_config3d_parse reads it; "" otherwise */
    char note[600];           /* why a row was skipped, or "" */
} dnp_validation_row;

/* A fitted efficiency: one per stack, device type and precision. */
typedef struct {
    char stack[64], device[32], precision[16];
    double compute_eff;
    int n_rows;               /* calibrate rows it was fitted on */
    double rms_log_error;     /* residual over those rows */
} dnp_calibration;

typedef struct {
    int n_rows;
    dnp_validation_row *rows;
    int n_fits;
    dnp_calibration *fits;
    int n_validate;           /* validate rows predicted */
    double mape_pct;          /* mean absolute percentage error over them (NAN if none) */
    double max_abs_error_pct;
    double spearman;          /* rank correlation of predicted and measured (NAN if < 2) */
} dnp_validation;

/* Read the CSV at `path` (columns id, stack, role, model, cluster, batch,
 * precision, search, measured_step_s, source; others ignored), fit each
 * stack's compute efficiency per device type and precision on its
 * calibrate rows (unless calibrate == 0: preset defaults), predict every
 * row with the default model, and summarise the validate rows.  Rows whose
 * model or search dnnpar cannot run are kept with a note and no
 * prediction.  Errors name file:line.  Free with dnp_validation_free.
 * O(rows x plan time x fit iterations). */
dnp_status dnp_validate_csv(const char *path, int calibrate, dnp_validation **out,
                            dnp_error *err);
/* From memory (see dnp_load_accpar_text_buffer). */
dnp_status dnp_validate_csv_buffer(const char *data, size_t len_bytes, const char *name,
                                   int calibrate, dnp_validation **out, dnp_error *err);
void dnp_validation_free(dnp_validation *v);

#endif /* DNNPAR_H */
