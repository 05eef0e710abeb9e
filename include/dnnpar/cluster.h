/*
 * dnnpar/cluster.h - clusters: precisions, device types and their presets, node link
 * tiers and network kinds, the cluster spec and JSON formats, and the device
 * model's per-kernel figures (roofline, GEMM time) (src/hw/, src/perf/,
 * src/topo/).
 *
 * Part of libdnnpar's public API: include <dnnpar.h>, which includes each
 * header under dnnpar/, or this header alone (it includes what it needs).  Its
 * conventions are dnnpar.h's (status and error record, dnp_X_new / dnp_X_free
 * pairs, units in names; docs/library.md).
 * Ownership: dnp_cluster and dnp_device_type are plain values (no pointers),
 * copied freely; preset pointers (dnp_device_preset_at, ...) are static and
 * never freed; spec and JSON texts are freed with dnp_free.
 */
#ifndef DNNPAR_PUBLIC_CLUSTER_H
#define DNNPAR_PUBLIC_CLUSTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core.h"
#include "model.h"

/* Default visibility for what this header declares (core.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

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
 * (topo/network.c: "rail", a rail-optimised fat tree; "fattree", a
 * leaf-spine fat tree with whole nodes under each leaf; "torus", the node's
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

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* DNNPAR_PUBLIC_CLUSTER_H */
