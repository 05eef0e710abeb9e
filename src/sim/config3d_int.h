/*
 * config3d_int.h - the step of a Megatron-LM configuration shared by the
 * simulator (config3d.c) and the search (src/search/config3d_search.c,
 * which declares its own internals in search/config3d_search.h): per device
 * type layer costs, per stage memory, the lower bound and the schedule
 * (docs/config3d.md).
 */
#ifndef DNNPAR_CONFIG3D_INT_H
#define DNNPAR_CONFIG3D_INT_H

#include "dnnpar.h"
#include "perf/device_model.h"

/* The shape of a transformer, read from its layout
 * (dnp_graph_transformer_layout: by structure, not by op names). */
typedef struct {
    int layers;
    int64_t hidden, heads, kv_heads, ffn, seq, vocab, positions;
    int llama, bert;
    int untied;                          /* an output layer of its own (DNP_TF_HEAD) */
    int tied;                            /* logits: a product with the table (HEAD_TIED) */
    int embed_op;                        /* the token embedding's op */
    double hidden_dropout, attn_dropout; /* dropout probabilities, 0: none */
    int flash;                           /* 1: the attention core is one fused kernel */
} c3_shape;

/* What tensor parallelism does to an op of a transformer (Shoeybi et
 * al. section 3; Korthikanti section 4.2.2 for the sequence): column- and
 * row-parallel GEMMs (Q/K/V, MLP up and gate, an untied output layer; the
 * projection, MLP down), attention ops split by heads, the MLP's
 * point-wise ops by features, the token embedding and tied logits by the
 * vocabulary, and everything else replicated or, with sequence
 * parallelism, split over the sequence; views cost nothing.  The
 * simulator's shares and the sharding exports both read it. */
typedef enum {
    C3_TP_SKIP = 0, /* a view (reshape) or the input */
    C3_TP_NONE,     /* replicated */
    C3_TP_COLUMN,   /* output features split */
    C3_TP_ROW,      /* input features split; the output a partial sum */
    C3_TP_HEADS,    /* attention heads split */
    C3_TP_FEATURES, /* the MLP's features split */
    C3_TP_VOCAB,    /* the vocabulary split (embedding table, logits) */
    C3_TP_SEQUENCE  /* the sequence split (sequence parallelism) */
} c3_tp_role;
/* Op i of g by its role in lay (g's dnp_graph_transformer_layout): the
 * simulator's classification, for any transformer.  O(1). */
c3_tp_role c3_tp_role_at(const dnp_transformer_layout *lay, const dnp_graph *g, int i,
                         int seq_par);
/* The classification of an op of role `role` (c3_tp_role_at's mapping;
 * exposed for the unit tests).  O(1). */
c3_tp_role c3_tp_role_for(const dnp_op *op, dnp_tf_role role, int seq_par);

/* Read g's shape into *t from its layout (dnp_graph_transformer_layout).
 * Returns 0 (t zeroed but for layers) if g is not a transformer the
 * layout reads (no token embedding, attention, Q/K/V, MLP ...).  O(ops);
 * allocates and frees the layout. */
int c3_shape_of(const dnp_graph *g, c3_shape *t);
/* c3_shape_of with the reason: DNP_OK, DNP_ERR_INPUT (what the structure
 * lacks, in err) or DNP_ERR_NOMEM.  O(ops). */
dnp_status c3_shape_read(const dnp_graph *g, c3_shape *t, dnp_error *err);
/* The same from a layout already read (lay of g).  O(ops). */
int c3_shape_from_layout(const dnp_graph *g, const dnp_transformer_layout *lay, c3_shape *t);

/* What rules out tensor-parallel degree tp (with sequence parallelism
 * seq_par) for a model of shape sh on cl, as Megatron-LM would refuse it
 * or as it would leave a node: C3_RULE_OK, or the rule with its reason
 * (no "config tp N:" prefix, e.g. "gpt2 has 12 attention heads, not a
 * multiple of tp ...") in why[n].  across_nodes: a group may span nodes.
 * Bare devices (no node preset) count as one device per node.  O(types). */
enum { C3_RULE_OK = 0, C3_RULE_HEADS, C3_RULE_KV, C3_RULE_FFN, C3_RULE_SEQ, C3_RULE_NODE };
int c3_rule_tp(const dnp_graph *g, const c3_shape *sh, const dnp_cluster *cl, int tp,
               int seq_par, int across_nodes, char *why, size_t n);

/* Compute of one tensor-parallel rank's share of a part of the model for
 * one micro-batch. */
typedef struct {
    double fwd_s, bwd_s;        /* compute of one micro-batch (bwd: input + weight gradient),
                                 * never ahead of the host issuing its kernels */
    double fwd_device_s, bwd_device_s; /* the device's kernel times alone */
    double attn_core_fwd_s;     /* the part selective recompute redoes (scores, softmax, context) */
    double params;              /* parameters held by one tensor-parallel rank */
    double fwd_flop;            /* model FLOP of the forward, whole micro-batch, all ranks */
    /* the four GEMMs a tensor-parallel collective feeds or drains
     * (C3_GEMM_*), the device's kernel times of one micro-batch: forward,
     * input gradient (dgrad) and weight gradient (wgrad) */
    double gemm_fwd_s[4], gemm_dgrad_s[4], gemm_wgrad_s[4];
} c3_part;
/* The GEMMs of a layer whose tensor-parallel collectives Transformer
 * Engine's userbuffers overlap (--tp-comm-overlap; docs/config3d.md,
 * "Schedules and overlaps"). */
enum { C3_GEMM_QKV = 0, C3_GEMM_PROJ, C3_GEMM_FC1, C3_GEMM_FC2 };

/* Layer costs of one (tensor-parallel degree, sequence parallelism,
 * micro-batch) on every device type of the cluster: [type][0] a layer,
 * [1] what precedes the layers, [2] what follows them. */
typedef struct {
    int valid;
    c3_part part[DNP_MAX_DEVICE_TYPES][3];
    double pace[DNP_MAX_DEVICE_TYPES]; /* each type's straggler factor */
    int L;                             /* the model's layers and shape (c3_shape_of) */
    c3_shape shape;
} c3_cache;

/* One device type under a configuration. */
typedef struct {
    const dnp_device_type *d;
    perf_rates r;                 /* with the type's straggler pace */
    perf_rates r_state;           /* the weights' and optimizer state's precision (mixed) */
    c3_part lay, pre, post;
    double recompute_s;           /* compute a layer's recompute adds to its backward */
    double act_layer_bytes;       /* activations one layer keeps per micro-batch in flight */
    double bytes_per_param;       /* weights, gradients, optimizer state held (after ZeRO) */
    double weight_bytes_pp;       /* per parameter: the weights the kernels read */
    double grad_bytes_pp;         /* per parameter: its gradient */
    double grad_comm_bytes_pp;    /* per parameter: the gradient the all-reduces move
                                   * (4 with grad_fp32) */
    double capacity_bytes;        /* memory limit (0: unknown, unlimited) */
} c3_type;

#define C3_MAX_GROUPS 4 /* distinct data-parallel link groups kept per stage */

/* One pipeline stage under a configuration: its ranks' device types and
 * links (src/topo/topology.h), paced by its slowest replica. */
typedef struct {
    unsigned types;               /* bit k: type k holds ranks of the stage */
    double layer_f_s, layer_b_s;  /* one layer, one micro-batch: the slowest tensor-parallel
                                   * group's, collectives, recompute and ZeRO traffic in */
    double tp_fwd_s, tp_bwd_s;    /* tensor-parallel collectives of one layer (slowest group) */
    double tp_hidden_f_s, tp_hidden_b_s; /* of those, hidden behind the GEMMs by tp_overlap */
    double recompute_tp_s;        /* those redone by full recompute */
    double zero_layer_f_s;        /* ZeRO-2/3 traffic of one layer, forward and backward */
    double zero_layer_b_s;
    double pre_f_s, pre_b_s;      /* the embedding (first stage), slowest type */
    double post_f_s, post_b_s;    /* the final norm and head (last stage), slowest type */
    double grad_comm_bytes_pp;    /* the largest of the types' */
    double weight_bytes_pp;
    double to_next_s, to_prev_s;  /* one pipeline message to the next / previous stage */
    int n_dp_grp;                 /* distinct links of its data-parallel groups */
    dnp_comm_group dp_grp[C3_MAX_GROUPS];
} c3_stage;

/* A configuration prepared on a cluster: everything but the layers per
 * stage. */
typedef struct {
    const dnp_graph *g;
    const dnp_cluster *cl;
    dnp_config3d cfg;
    int L;                        /* transformer layers */
    int64_t batch, m;             /* global batch; micro-batches per replica */
    dnp_optimizer optimizer;
    double hidden, seq, heads;
    c3_shape shape;               /* the model's shape (Megatron-LM's rules) */
    c3_type ty[DNP_MAX_DEVICE_TYPES];
    c3_stage st[DNP_CONFIG3D_MAX_STAGES];
    int stage_type[DNP_CONFIG3D_MAX_STAGES]; /* the type of each stage's first rank */
    int grad_fp32;                /* the configuration's or the options' */
    int vp_group;                 /* the interleaved schedule's micro-batch group (pp unless
                                   * the configuration's vp_group says otherwise) */
    int tied;                     /* input and output embeddings tied (GPT) */
    double word_params;           /* one tensor-parallel rank's share of the word embedding */
    double embed_sync_s;          /* the tied-embedding gradient all-reduce (pp > 1) */
    double peak_total_flops;      /* sum over devices of the precision's peak */
    double pace_max;              /* the largest straggler factor of the types */
    double deadline_s;            /* the options' one deadline (core/clock.h; 0 = none): the
                                   * simulation (pp x micro-batches x interleave units)
                                   * stops past it with DNP_ERR_INPUT */
    double time_limit_s;          /* the limit it came from, for the message */
} c3_ctx;

/* g's layout (*lay, the caller's: dnp_transformer_layout_free) and shape
 * (*sh), with the message every 3D path gives when g is not a transformer
 * (DNP_ERR_INPUT: what its structure lacks; DNP_ERR_NOMEM); *lay NULL on
 * failure.  O(ops). */
dnp_status c3_read_model(const dnp_graph *g, dnp_transformer_layout **lay, c3_shape *sh,
                         dnp_error *err);
/* cfg's degrees on cl: tp x pp x dp the devices, pp at most
 * DNP_CONFIG3D_MAX_STAGES; DNP_ERR_INPUT naming them.  O(types). */
dnp_status c3_check_degrees(const dnp_config3d *cfg, const dnp_cluster *cl, dnp_error *err);

/* Check cfg against g and cl and compute the per-type costs (from `cache`
 * when valid, else filling it; cache may be NULL).  Does not check the
 * per-stage layer list beyond its shape.  DNP_ERR_INPUT naming the
 * mismatch.  O(ops x types). */
dnp_status c3_prepare(const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                      const dnp_plan_options *opt, const dnp_config3d *cfg, c3_cache *cache,
                      c3_ctx *x, dnp_error *err);

/* c3_prepare without a cache for the 3D lowering (sim/lower3d.h): g's
 * layout lay and shape sh already read, and the tensor-parallel role of
 * every op of g from the strategy (tp_role[op], c3_tp_role values, what
 * the layer costs split), so the costs read no role of the layout.
 * Borrowed; errors as c3_prepare.  O(ops x types). */
dnp_status c3_prepare_roles(const dnp_graph *g, const dnp_transformer_layout *lay,
                            const c3_shape *sh, const unsigned char *tp_role,
                            const dnp_cluster *cl, int64_t batch, const dnp_plan_options *opt,
                            const dnp_config3d *cfg, c3_ctx *x, dnp_error *err);

/* Megatron-LM's rules and the node rule on x's configuration (c3_rule_tp
 * at its tp) and its layers: DNP_ERR_INPUT with "config tp N: reason".
 * O(types). */
dnp_status c3_check_rules(const c3_ctx *x, const dnp_plan_options *opt, dnp_error *err);

/* The memory of an evaluated configuration against its devices' capacity
 * (unless opt->keep_over_memory): DNP_ERR_INPUT naming the fullest stage,
 * its need and the capacity when res does not fit.  O(1). */
dnp_status c3_check_memory(const c3_ctx *x, const dnp_plan_options *opt,
                           const dnp_config3d_result *res, dnp_error *err);

/* The layers per stage of x's configuration (its list, else even) into
 * layers[pp].  DNP_ERR_INPUT when they do not cover the model.  O(pp). */
dnp_status c3_layers(const c3_ctx *x, int *layers, dnp_error *err);

/* Layers per stage for 1F1B that minimise the slowest stage's compute
 * (layer time x layers + the embedding / output extras) within each
 * stage's memory: unit jobs on related machines, filled greedily by
 * earliest finish, which is optimal for that objective.  Returns 0 if the
 * layers do not fit (layers[] then holds an even split).  O(L x pp). */
int c3_balance(const c3_ctx *x, int *layers);

/* Memory of every stage and a lower bound on the step (the busiest
 * rank's compute without waits, its all-reduce and its update) into out
 * and *bound_s; with simulate, also the step simulator's step and, when
 * trace_json is not NULL, the step as Chrome trace events (a new text the
 * caller frees with dnp_free).  O(pp x micro-batches x interleave) when
 * simulating, O(pp) otherwise. */
dnp_status c3_eval(const c3_ctx *x, const int *layers, int simulate, double *bound_s,
                   dnp_config3d_result *out, char **trace_json, dnp_error *err);

/* The overlaps of communication with compute (config3d.c, docs/config3d.md
 * "Schedules and overlaps"), exposed for the unit tests; times in seconds.
 * c3_comm_slowdown: how much slower a GEMM runs while a collective holds
 * 16 of sms SMs (1 when sms is unknown).  c3_beside_s: a GEMM of g beside
 * a collective of c that slows it by k, when both have ended.
 * c3_tp_ring_s, c3_tp_pipe_s, c3_tp_bulk_s: a GEMM of g with its
 * tensor-parallel collective of c by Transformer Engine's ring exchange
 * (t ranks), pipelined (4 chunks) and bulk overlaps.  c3_grad_overlap_s:
 * the bucketed gradient reduction after a backward of work_s (returns the
 * exposed tail, *stretch_s the backward's lengthening).
 * c3_param_overlap_s: how much later a forward of work_s starting at
 * offset_s ends with the bucketed parameter all-gather.  O(1), or
 * O(params / bucket) for the last two. */
double c3_comm_slowdown(int sms);
double c3_beside_s(double g, double c, double k);
double c3_tp_ring_s(double g, double c, int t);
double c3_tp_pipe_s(double g, double c, double k);
double c3_tp_bulk_s(double g, double c, double k);
double c3_grad_overlap_s(double work_s, double params, double bucket, double c_full,
                         double c_last, double k, double *stretch_s);
double c3_param_overlap_s(double work_s, double offset_s, double params, double bucket,
                          double c_full, double c_last, double k);

#endif
