/*
 * mpt_model.h - the MPT system as a model: the layers and networks it runs,
 * the communication model (Sec. III-C), dynamic clustering (Sec. IV), the
 * near-data-processing timing (Sec. VI, VII-A) of the six configurations of
 * Table IV, and the data of the paper's Figs. 6, 7, 15, 16 and 17.
 * Internal to src/arch/mpt and its tests (the CLI uses dnnpar.h, "MPT").
 * Units: bytes, seconds, cycles.
 */
#ifndef DNNPAR_MPT_MODEL_H
#define DNNPAR_MPT_MODEL_H

#include "dnnpar.h"

/* ---- layers and networks ------------------------------------------------ */

/* A weighted layer as MPT sees it. */
typedef struct {
    char name[64];
    int fc;                     /* fully connected (always data parallel, direct) */
    int in_c, out_c;            /* I, J */
    int in_h, in_w, out_h, out_w;
    int k_h, k_w, stride, pad_h, pad_w, groups;
    int wino;                   /* Winograd-eligible: stride 1, dense, 3 or 5 taps (or 3x1, 1x3) */
    int relu_after;             /* a ReLU follows (through BN / adds): prediction applies */
    int join_id;                /* Winograd-domain join group (Fig. 14), -1 if none */
    int join_size;              /* convs in that join (1 if none) */
} mpt_layer;

typedef struct {
    char name[64];
    int n;
    mpt_layer *layers;          /* owned */
    int n_joins;
} mpt_net;

/* The five layers of Table II (I = J, square maps, 3x3 kernels, padding 1;
 * `kernel` 5 replaces the kernel by 5x5 with padding 2, Sec. VII-B).
 * Names: early, mid-1, late-1, mid-2, late-2. */
int mpt_table2_count(void);
/* Layer i of Table II with the given kernel (3 or 5); its source in *what
 * (e.g. "ResNet-34 conv2_x").  0 if i is out of range. */
int mpt_table2_layer(int i, int kernel, mpt_layer *out, const char **what);
/* Index of a Table II layer by name (case-insensitive), or -1. */
int mpt_table2_find(const char *name);

/* One conv layer as a network of one layer (for `dnnpar mpt LAYER`). */
dnp_status mpt_net_single(const mpt_layer *l, mpt_net *out, dnp_error *err);
/*
 * The weighted layers of a graph in topological order, with Winograd
 * eligibility, whether a ReLU follows (walking BN, dropout and adds), and
 * the Winograd-domain joins: a chain of adds whose inputs are all (batch
 * normalised) outputs of eligible convs of one shape is a FractalNet join
 * computed on tiles (Fig. 14a).  On success *out owns the layers
 * (mpt_net_free).  O(ops^2) worst case.
 */
dnp_status mpt_net_from_graph(const dnp_graph *g, mpt_net *out, dnp_error *err);
/* Free the layers of n (n itself is the caller's); NULL is a no-op. */
void mpt_net_free(mpt_net *n);

/* ---- hardware (Sec. VI, Table III) -------------------------------------- */

typedef struct {
    int array_dim;            /* systolic array side: 64 (FP32), 96 (FP16, footnote 16) */
    int array_split;          /* sub-arrays per side the array may split into (fission,
                                 docs/mpt.md "Mapping onto the array"): 4 (ours); 1 = one
                                 monolithic array fed from one edge */
    double clock_hz;          /* NDP logic and routers: 1 GHz */
    double dram_bps;          /* HMC bandwidth: 320 GB/s */
    int elem_bytes;           /* 4 (FP32) or 2 (FP16) */
    double full_link_bps;     /* 16 lanes x 15 Gb/s = 30 GB/s per direction */
    double narrow_link_bps;   /* 8 lanes x 10 Gb/s = 10 GB/s per direction */
    int full_links;           /* 4 bidirectional full links per worker (240 GB/s) */
    int fbfly_row;            /* workers per flattened-butterfly row: 4 */
    double hop_s;             /* SerDes latency per hop: 5 ns */
    int chunk_bytes;          /* collective chunk (packet): 256 B */
    int packet_bytes;         /* other packets: 64 B */
    double input_buffer_bytes;  /* one instance of the double-buffered input buffer: 512 KB */
    double output_buffer_bytes; /* the array's output buffer: 128 KB */
} mpt_hw;

/* The paper's worker: FP32 64x64 array (fp16 = 0) or the FP16 96x96
 * array of the whole-CNN evaluation (fp16 = 1). */
mpt_hw mpt_hw_paper(int fp16);

/* Set one hardware parameter from text (a CLI option's value or a JSON
 * value): key is one of MPT_HW_KEYS - "array" (SxS or S, square only,
 * 1..4096), "array_split" (power of two, 1..S), "clock_ghz", "dram_gbps",
 * "full_link_gbps", "narrow_link_gbps" (GB/s = 1e9 B/s, per link and
 * direction), "full_links" (integer 1..64), "input_buffer_kb",
 * "output_buffer_kb" (KB = 1024 B, one instance each), "hop_ns".  Numbers
 * must be finite, positive and at most 1e6.  `what` names the source in
 * errors (e.g. "--array" or "hw.json: \"array\"").  DNP_ERR_INPUT, with
 * one message naming `what` and the expected form, on a bad value or an
 * unknown key; *hw is unchanged then.  O(1). */
#define MPT_HW_KEYS "array, array_split, clock_ghz, dram_gbps, full_link_gbps, " \
                    "narrow_link_gbps, full_links, input_buffer_kb, output_buffer_kb, hop_ns"
dnp_status mpt_hw_set(mpt_hw *hw, const char *key, const char *text, const char *what,
                      dnp_error *err);
/* Read a hardware JSON file: one object whose members are MPT_HW_KEYS with
 * number values ("array" also as "128x128"), applied on top of *hw in
 * file order; "format": "dnnpar-mpt-hardware" is optional and checked if
 * present.  DNP_ERR_IO if the file cannot be read, DNP_ERR_INPUT naming the
 * file and member otherwise; *hw is unchanged on error.  O(members). */
dnp_status mpt_hw_read_json(const char *path, mpt_hw *hw, dnp_error *err);
/* Cross-checks after every parameter is set: the split divides the array,
 * the output buffer holds one array-wide row.  DNP_ERR_INPUT naming the
 * parameters.  O(1). */
dnp_status mpt_hw_check(const mpt_hw *hw, dnp_error *err);
/* 1 if hw equals mpt_hw_paper for its precision (every field). */
int mpt_hw_is_paper(const mpt_hw *hw);

/* Shares of tile traffic removed by activation prediction (forward
 * gather), by skipping inactive input units (backward gather of input
 * gradients) and by zero-skipping (scatter), net of the codes and maps
 * (Sec. V-B). */
typedef struct {
    double gather_2d, gather_1d;   /* paper: 0.340 (6-bit 2D), 0.781 (5-bit 1D) */
    double gather_bwd_2d, gather_bwd_1d; /* paper: not measured */
    double scatter_2d, scatter_1d; /* paper: 0.393, 0.647 */
    int from_paper;                /* 1: input from the paper's measured result */
} mpt_cuts;
/* The paper's measured shares (Sec. V-B, ImageNet / CIFAR, trained
 * weights) - an input from the paper's measured result, not ours.  The
 * paper did not measure the backward gather; these use its forward
 * prediction shares there too (an extrapolation, marked in every output). */
mpt_cuts mpt_cuts_paper(void);
/* Our measured shares: the default measurement of mpt_predict.h
 * (mpt_measure_default, 4 regions) turned into cuts by mpt_cuts_measured.
 * Deterministic; O(B I J H W) of that small layer (about a millisecond).
 * DNP_ERR_NOMEM on allocation failure. */
dnp_status mpt_cuts_ours(mpt_cuts *out, dnp_error *err);

/* ---- Table IV configurations -------------------------------------------- */

typedef enum {
    MPT_D_DP = 0, /* direct convolution, data parallel, update w */
    MPT_W_DP,     /* Winograd, data parallel, update w */
    MPT_W_MP,     /* MPT on the fixed grid, update W */
    MPT_W_MP_P,   /* + activation prediction / zero-skip */
    MPT_W_MP_S,   /* + dynamic clustering */
    MPT_W_MP_PS,  /* + both */
    MPT_CONFIG_COUNT
} mpt_config;

const char *mpt_config_name(mpt_config c); /* "d_dp", "w_dp", "w_mp", "w_mp+", "w_mp*", "w_mp+*" */

#define MPT_MAX_CHOICES 16

typedef struct {
    double batch;               /* total batch (256) */
    int workers;                /* P (256) */
    int fixed_ng;               /* groups of w_mp and w_mp+ (16; Nc = P / Ng) */
    int n_choices;              /* group counts dynamic clustering may pick */
    int choices[MPT_MAX_CHOICES]; /* (1, 4, 16) */
    int tile;                   /* 0: the paper's rule (Sec. VII-A); else force tile t */
    int dyn_by_comm;            /* dynamic clustering minimises: 0 the layer's forward plus
                                   backward time (ours), 1 communication time only
                                   (Sec. IV, the paper's criterion) */
    mpt_hw hw;
    mpt_cuts cuts;
} mpt_sys;

/* The paper's evaluated system (Sec. VII-A, Table IV): batch 256, 256
 * workers, fixed 16x16, dynamic over (1,256), (4,64), (16,16), FP32
 * workers. */
#define MPT_PAPER_BATCH 256
#define MPT_PAPER_WORKERS 256

/* The paper's system with the given prediction cuts. */
mpt_sys mpt_sys_paper_with(const mpt_cuts *cuts);
/* The default: the paper's system with our measured prediction shares
 * (mpt_cuts_ours), as `dnnpar mpt` and `reproduce mpt` use.  The errors of
 * mpt_cuts_ours; *out is unchanged on error.  About a millisecond. */
dnp_status mpt_sys_paper(mpt_sys *out, dnp_error *err);
/* The paper's system with the paper's measured shares (mpt_cuts_paper: an
 * input from the paper's measured result), by name: the reproduction's
 * sensitivity row and `--prediction-shares paper`. */
mpt_sys mpt_sys_paper_shares(void);

/* Check a system: workers >= 1, batch >= 1, every group count divides the
 * workers; DNP_ERR_INPUT naming the first that does not.  O(choices). */
dnp_status mpt_sys_check(const mpt_sys *sys, dnp_error *err);

/* Tile of layer l's transform for `ng` groups: the forced one, or F(4x4,3x3)
 * for a single group and F(2x2,3x3) otherwise (Sec. VII-A), F(2x2,5x5) for
 * 5x5; per dimension in *th, *tw (1 for a unit dimension).  DNP_ERR_INPUT
 * when no transform serves the kernel with that tile. */
dnp_status mpt_layer_tiles(const mpt_layer *l, const mpt_sys *sys, int ng, int *th, int *tw,
                           dnp_error *err);

/* ---- communication (Sec. III-C) ------------------------------------------ */

typedef struct {
    double w_bytes;      /* |w|: spatial weights I J kh kw */
    double W_bytes;      /* |W|: Winograd-domain weights I J th tw */
    double tiles_bytes;  /* |Tiles| per iteration: input and output tiles of fprop and
                            their gradients in bprop, 2 B t (I + J) th tw */
} mpt_sizes;

void mpt_layer_sizes(const mpt_layer *l, int th, int tw, double batch, int elem_bytes,
                     mpt_sizes *out);
/* Per worker and iteration: data parallelism on a ring, |W| (p-1)/p. */
double mpt_traffic_dp(double w_bytes, int p);
/* MPT weight gradients: |W|/Ng (Nc-1)/Nc. */
double mpt_traffic_mpt_weights(double W_bytes, int ng, int nc);
/* MPT tile transfer: |Tiles|/(Ng Nc) (Ng-1)/Ng. */
double mpt_traffic_mpt_tiles(double tiles_bytes, int ng, int nc);

/* Ring all-reduce (reduce-scatter + all-gather, pipelined chunks) of
 * `bytes` per worker over `len` workers on `rings` rings of full links.
 * O(1). */
double mpt_ring_time_s(const mpt_hw *hw, double bytes, int len, int rings);
/* All-to-all of `bytes` sent per worker among `ng` workers of a cluster on
 * the flattened butterfly of narrow links (at most half the I/O
 * bandwidth).  O(1). */
double mpt_fbfly_time_s(const mpt_hw *hw, double bytes, int ng);

/* ---- timing (Sec. VI, VII) ------------------------------------------------ */

typedef struct {
    int ng, nc;                 /* grid used (1 x P for data parallelism) */
    int th, tw;                 /* transform tiles; 0 for direct convolution */
    int one_d;                  /* groups hold whole tile rows (1D transfer and predict) */
    double fwd_s, bwd_s;        /* forward (fprop); backward (bprop + updateGrad) */
    double compute_s;           /* systolic array, all phases */
    double dram_s;              /* DRAM traffic time, all phases */
    double tile_s;              /* tile transfer time, all phases */
    double ring_s;              /* weight all-reduce time */
    double weight_bytes;        /* per worker: gradients sent on the ring */
    double tile_bytes;          /* per worker: tile data sent */
    double mac_count;           /* multiply-accumulates per worker */
    double array_use;           /* mac_count / (array cycles x S^2): the array's use */
} mpt_layer_time;

/* Energy of one layer's iteration on one worker (mpt_energy.c, docs/mpt.md
 * "Energy"): the array's multiply-adds and the DRAM traffic in joules from
 * cited constants; the links as capacity switched on x time (bit-seconds),
 * whose joules would need a SerDes energy per bit the paper does not give.
 * O(1). */
typedef struct {
    double compute_j;  /* mac_count x (add + multiply), Horowitz 2014 */
    double dram_j;     /* DRAM bits x 3.7 pJ/bit, Jeddeloh and Keeth 2012 */
    double link_bit_s; /* link capacity on (bit/s) x time on (s) */
} mpt_energy;
void mpt_layer_energy(const mpt_layer_time *t, const mpt_hw *hw, mpt_energy *out);
/* Total energy with e_link_j_per_bit joules per bit of link capacity
 * switched on: compute + DRAM + e_L x link_bit_s (Sec. VII-B's four factors
 * less SRAM, which is not counted).  e_L is a parameter: the paper gives
 * no figure and we cite none (docs/mpt.md, "Energy").  O(1). */
double mpt_energy_total_j(const mpt_energy *e, double e_link_j_per_bit);
/* The least e_L (joules per bit) at which base's total energy over e's
 * reaches `cut`: 0 if compute + DRAM alone reach it; NAN if no e_L does
 * (the ratio runs from the compute + DRAM cut at e_L = 0 to the link cut,
 * base link_bit_s / e's, as e_L grows).  O(1). */
double mpt_energy_link_for_cut(const mpt_energy *base, const mpt_energy *e, double cut);

/* Systolic cycles of an M x K by K x N product on an S x S array (operands
 * assigned to the cheaper orientation).  O(1). */
double mpt_systolic_cycles(double m, double k, double n, int s);

/* Systolic cycles of `count` independent M x K by K x N products (e.g. the
 * tile elements of a Winograd layer, each with its own weights) on an
 * S x S array that may split into d x d independently fed sub-arrays of
 * side S/d for any d dividing S with d <= split and d a power of two
 * (d = 1: the monolithic array of mpt_systolic_cycles).  For side s the
 * count x blocks weight-stationary blocks (ceil(K/s) ceil(N/s) per product,
 * or the other orientation) are dealt to the d^2 sub-arrays in rounds; a
 * round streams max(rows, s) vectors, and each sub-array fills and drains
 * (2s) once per product it runs:
 *   ceil(count blocks / d^2) max(rows, s) + ceil(count / d^2) 2 s.
 * The cheapest d and orientation are used.  split = 1 gives exactly
 * count x mpt_systolic_cycles.  O(log split). */
double mpt_systolic_cycles_packed(double count, double m, double k, double n, int s, int split);

/* Full links a grid of ng groups uses as all-reduce rings: all of them
 * for one group (no tile transfer: d_dp, w_dp, and any layer MPT runs on a
 * single group), half otherwise (the other half carries the flattened
 * butterfly, Sec. VII-B).  O(1). */
int mpt_rings_for(const mpt_hw *hw, int ng);

/* Time layer l on grid ng x (P/ng) with or without prediction cuts, or as
 * direct data parallelism (direct = 1).  `rings` is the number of rings of
 * full links the weight all-reduce uses (mpt_rings_for).
 * DNP_ERR_INPUT if the grid or transform does not fit the layer.  O(1). */
dnp_status mpt_layer_time_grid(const mpt_layer *l, const mpt_sys *sys, int ng, int direct,
                               int predict, int rings, mpt_layer_time *out, dnp_error *err);

/* Layer l under configuration cfg (dynamic clustering picks the grid with
 * the least forward plus backward time - or communication time,
 * sys->dyn_by_comm - among sys->choices, ties to the earlier choice; every
 * grid on the rings mpt_rings_for gives it).
 * Non-eligible layers run as direct data parallelism in every
 * configuration.  O(choices). */
dnp_status mpt_layer_eval(const mpt_layer *l, const mpt_sys *sys, mpt_config cfg,
                          mpt_layer_time *out, dnp_error *err);

typedef struct {
    double fwd_s, bwd_s, total_s;
    double weight_bytes, tile_bytes;   /* per worker, summed over layers */
    int grid_counts[MPT_MAX_CHOICES];  /* Winograd layers per group count in sys->choices */
} mpt_net_time;

/* Every layer of `net` under cfg; per_layer (net->n entries) may be NULL.
 * Joined convs share one grid (the dynamic choice minimises their summed
 * criterion).  O(layers x choices). */
dnp_status mpt_net_eval(const mpt_net *net, const mpt_sys *sys, mpt_config cfg,
                        mpt_net_time *out, mpt_layer_time *per_layer, dnp_error *err);

/* ---- the paper's figures --------------------------------------------------- */

#define MPT_FIG6_POINTS 4 /* p = 4, 16, 64, 256 with Ng = Nc = sqrt(p) */

typedef struct {
    int p[MPT_FIG6_POINTS];
    double dp[MPT_FIG6_POINTS];           /* bytes per worker and iteration */
    double mpt_weights[MPT_FIG6_POINTS];
    double mpt_tiles[MPT_FIG6_POINTS];
    double mpt_dynamic[MPT_FIG6_POINTS];  /* Fig. 7 only: per-layer best grid */
} mpt_traffic_curve;

/* Fig. 6: layer l (3x3), batch 256, F(2x2,3x3). */
void mpt_fig6(const mpt_layer *l, double batch, int elem_bytes, mpt_traffic_curve *out);
/* Fig. 7: the sum over net's layers; dynamic picks for every Winograd
 * layer the power-of-two group count (<= 16 tile elements) with the least
 * traffic (footnote 9: "optimal reorganization").  The modified join makes
 * joined convs share one output gather. */
void mpt_fig7(const mpt_net *net, double batch, int elem_bytes, mpt_traffic_curve *out);

/* Figs. 15 and 16: the five Table II layers (kernel 3 or 5) under every
 * configuration; speedup = (fwd + bwd of w_dp) / (fwd + bwd of cfg). */
#define MPT_TABLE2_LAYERS 5
typedef struct {
    int kernel;
    mpt_layer_time t[MPT_TABLE2_LAYERS][MPT_CONFIG_COUNT];
    double speedup[MPT_TABLE2_LAYERS][MPT_CONFIG_COUNT];
    double mean_speedup[MPT_CONFIG_COUNT]; /* arithmetic mean over the five layers */
} mpt_layerwise;

dnp_status mpt_layerwise_run(const mpt_sys *sys, int kernel, mpt_layerwise *out,
                             dnp_error *err);

/* Fig. 17: ResNet-34, WRN-40-10 and FractalNet, every configuration on
 * sys, against w_dp on a single worker and against w_dp on sys. */
#define MPT_FIG17_NETS 3
typedef struct {
    const char *names[MPT_FIG17_NETS];
    mpt_net_time t[MPT_FIG17_NETS][MPT_CONFIG_COUNT];
    mpt_net_time single[MPT_FIG17_NETS]; /* w_dp on one worker */
    double over_single[MPT_FIG17_NETS][MPT_CONFIG_COUNT];
    double over_wdp[MPT_FIG17_NETS][MPT_CONFIG_COUNT];
    double mean_over_single[MPT_CONFIG_COUNT]; /* arithmetic means over the networks */
    double mean_over_wdp[MPT_CONFIG_COUNT];
} mpt_wholenet;

dnp_status mpt_wholenet_run(const mpt_sys *sys, mpt_wholenet *out, dnp_error *err);

/* Figs. 17 and 18's DGX-1 bars as a modelled estimate (mpt_dgx1.c): the
 * GPU side is dnnpar's own V100 model ("1xv100" and the "1xdgx1" node
 * preset), data parallel in FP16; the NDP side is w_mp+* of wn.
 * "modelled estimate, dnnpar V100 model" wherever it is reported. */
#define MPT_DGX1_BATCH 256       /* Fig. 17: fixed total batch 256 */
#define MPT_DGX1_BIG_BATCHES 3   /* Fig. 18: the GPU's best batch of 2K-4K */
extern const int64_t mpt_dgx1_big_batches[MPT_DGX1_BIG_BATCHES];
/* Paper figures quoted in Sec. VII-C (inputs for comparison only). */
#define MPT_PAPER_DGX1_SPEEDUP 21.6   /* w_mp+* on 256 NDP over 8 GPUs, batch 256 */
#define MPT_PAPER_DGX1_PER_WATT 9.5   /* Fig. 18(b), mean */
#define MPT_PAPER_POWER_LO_W 1800.0   /* 8 GPUs ~ 256 NDP workers: 1800-2600 W */
#define MPT_PAPER_POWER_HI_W 2600.0
/* NVIDIA Tesla V100 datasheet: V100 SXM2 board power 300 W (8 = 2400 W). */
#define MPT_V100_SXM2_TDP_W 300.0
typedef struct {
    double v100_s[MPT_FIG17_NETS];   /* one V100, batch 256, step seconds */
    int v100_fits[MPT_FIG17_NETS];   /* 1: fits in its 16 GB */
    double dgx1_s[MPT_FIG17_NETS];   /* 8 V100 (dgx1), batch 256 */
    double gpu_scaling[MPT_FIG17_NETS]; /* v100_s / dgx1_s */
    double ndp_s[MPT_FIG17_NETS];    /* w_mp+*, 256 NDP workers, batch 256 */
    double ndp_wdp_s[MPT_FIG17_NETS];/* w_dp on the same */
    double over_dgx1[MPT_FIG17_NETS], mean_over_dgx1; /* Fig. 17: NDP w_mp+* over DGX-1 */
    int64_t big_batch[MPT_FIG17_NETS]; /* Fig. 18: GPU batch with the best samples/s (0: none fits) */
    double big_s[MPT_FIG17_NETS];
    double over_big[MPT_FIG17_NETS], mean_over_big; /* NDP samples/s over DGX-1's at big_batch */
    int n_big;                       /* networks with a big batch that fits */
} mpt_dgx1;

/* The comparison for the networks of wn (its names are zoo names).
 * O(networks x batches x one dp plan). */
dnp_status mpt_dgx1_run(const mpt_wholenet *wn, mpt_dgx1 *out, dnp_error *err);

#endif
