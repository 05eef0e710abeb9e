/*
 * device_model.h - time and memory of one op's work on one device: a
 * roofline per kernel (docs/device-model.md).
 *
 * Each op is three passes: forward, input gradient (backward) and weight
 * gradient.  A pass is one or more kernels; a kernel takes
 *     max(FLOP / (peak x compute_eff), bytes / (mem_bw x mem_eff)) + kernel_overhead_s
 * with the peak of the training precision.  Memory-bound ops (batch norm,
 * ReLU, pooling, element-wise, softmax, layer norm) are costed by their
 * traffic; the optimizer update by its traffic over every parameter.
 */
#ifndef DNNPAR_DEVICE_MODEL_H
#define DNNPAR_DEVICE_MODEL_H

#include "dnnpar.h"

/* Model defaults for a device that leaves compute_eff, mem_eff or
 * kernel_overhead_s at 0; sources in docs/device-model.md ("Defaults"). */
#define PERF_DEFAULT_COMPUTE_EFF 0.57
#define PERF_DEFAULT_MEM_EFF (790.0 / 900.0)
#define PERF_DEFAULT_KERNEL_OVERHEAD_S 4e-6
/* Host (framework) time to issue one kernel when the device leaves
 * host_kernel_s 0: PyTorch's dispatch of an op, 3.3 us (the operator
 * micro-benchmark's "Forward Execution Time" of a view op on CUDA, which
 * launches nothing: pytorch/pytorch#32194), plus the CUDA launch, 3.8 us per
 * back-to-back kernel (A. Gray, "Getting Started with CUDA Graphs", NVIDIA
 * Technical Blog, 2019); docs/device-model.md, "Host dispatch". */
#define PERF_DEFAULT_HOST_KERNEL_S (3.3e-6 + 3.8e-6)
/* L2 bandwidth per byte/s of DRAM bandwidth when a device with an SM count
 * leaves l2_bw_bps 0: the V100's, 2048 B/clk x 1.53 GHz = 3.13 TB/s of
 * 900 GB/s (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020, which
 * gives the A100's L2 read bandwidth as 5120 B/clk, 2.3x the V100's), the
 * lowest ratio of the GPUs with published figures. */
#define PERF_DEFAULT_L2_PER_DRAM (2048.0 * 1.53e9 / 900e9)

/* A device's rates at one precision. */
typedef struct {
    dnp_precision precision;  /* the precision resolved (never DNP_PREC_DEFAULT) */
    double peak_flops;        /* dense peak FLOP/s for the precision's math */
    double compute_eff;       /* achieved fraction of peak_flops on conv / matmul */
    double vector_flops;      /* peak FLOP/s of non-tensor-core math (element-wise ops) */
    double mem_bw_bps;        /* memory bandwidth, bytes/s */
    double mem_eff;           /* achieved fraction of mem_bw_bps */
    double kernel_overhead_s; /* fixed time per kernel */
    double pace;              /* factor >= 1 on every kernel's roofline time: the
                               * expected slowest device of the group (perf_straggler_pace);
                               * perf_rates_get sets 1 */
    int sm_count;             /* compute units running GEMM tiles (0: no tile model) */
    double l2_bw_bps;         /* cache bandwidth feeding the tiles' operands, bytes/s */
    double host_kernel_s;     /* host time to issue one kernel */
    int act_bytes;            /* bytes per activation / activation-gradient element */
    int param_bytes;          /* bytes per weight element as compute reads it */
    int grad_bytes;           /* bytes per weight-gradient element (what is all-reduced) */
    int master_bytes;         /* bytes per master weight element (what the optimizer updates) */
} perf_rates;

/* Rates of device d at precision p (DEFAULT = d->dtype): the peak from the
 * per-precision table with the fallbacks of docs/device-model.md, the
 * efficiencies from d or, where d leaves them 0, the model defaults.
 * O(1). */
void perf_rates_get(const dnp_device_type *d, dnp_precision p, perf_rates *out);
/* The precision named by a device's dtype field ("fp32", "fp16",
 * "bfloat16"/"bf16", "tf32", any case); fp32 if empty or unknown: what
 * DNP_PREC_DEFAULT runs at on that device.  O(1). */
dnp_precision perf_dtype_precision(const char *dtype);

/* E[max of n independent standard normal variables]: 0 for n <= 1,
 * 1/sqrt(pi) for n = 2, about 3.24 for n = 1024.  n is a real number >= 1
 * (a device count).  Composite Simpson over [-12, 12]: absolute error
 * below 1e-9 for n up to 1e9.  O(1) (4,800 steps). */
double perf_expected_max_std_normal(double n);

/* The straggler factor of a synchronous step over n_devices devices whose
 * speeds spread with relative standard deviation speed_cv: each device's
 * kernel time is nominal x (1 + speed_cv Z), Z standard normal, and the
 * step waits for the slowest, so kernels take nominal x
 * (1 + speed_cv E[max of n Z]) (docs/device-model.md, "Stragglers").
 * 1 for one device or speed_cv 0.  O(1). */
double perf_straggler_pace(double speed_cv, double n_devices);

/* The fraction of the compute ceiling (peak_flops x compute_eff) that a
 * GEMM of batch_count independent (m x k) . (k x n) products reaches on a
 * device of r->sm_count units (docs/device-model.md, "GEMM tiles and
 * waves"): the library picks the output tile (256x128 ... 64x64) and
 * split of k that finishes first, where the tiles run in waves of
 * sm_count, each tile at the ceiling rate or at the rate its operand
 * traffic can be fed from L2 (l2_bw_bps shared by the active units),
 * whichever is lower, and a split-k GEMM adds its fp32 partial sums'
 * traffic.  1 when sm_count is 0 or a dimension is < 1.  In (0, 1].
 * O(candidate tiles x splits) = O(30). */
double perf_gemm_eff(const perf_rates *r, double batch_count, double m, double n, double k);

/* One op's three passes on one device. */
typedef struct {
    double fwd_s, bwd_s, wgrad_s;          /* forward, input gradient, weight gradient */
    double fwd_host_s, bwd_host_s, wgrad_host_s; /* host time issuing each pass's kernels */
    double fwd_flop, bwd_flop, wgrad_flop;
    double fwd_bytes, bwd_bytes, wgrad_bytes; /* memory traffic of each pass */
    int kernels;                           /* kernels over the three passes */
    /* the three passes' time split by what set each kernel's roofline time
     * (its arithmetic or its memory traffic) and the launch overheads:
     * compute_bound_s + memory_bound_s + overhead_s = fwd_s + bwd_s + wgrad_s */
    double compute_bound_s, memory_bound_s, overhead_s;
} perf_op_time;

/* The fractions of one op's work a device holds, in (0, 1]. */
typedef struct {
    double flop;   /* of its arithmetic */
    double in;     /* of each input tensor (conv / FC: X; embedding: its indices) */
    double out;    /* of its output tensor */
    double weight; /* of its kernel or table (conv, FC, embedding, LSTM) */
    double bias;   /* of its other parameters (bias; norm scale and shift) */
} perf_shares;

/* The shares of op at (fb, fi, fo), as perf_op_time_get defines them:
 * conv / FC (and the kinds costed as they are) flop fb fi fo, in fb fi,
 * out fb fo, weight fi fo, bias fo; embedding flop = out = fb fo, in fb,
 * weight fi fo; every other op fb fo of each tensor.  O(1). */
perf_shares perf_shares_of(const dnp_op *op, double fb, double fi, double fo);

/* Time of op i of g for a device that holds the shares sh of its work
 * (a PaSE configuration's, which splits any loop dimension; pase_perf.c).
 * Input ops cost nothing.  O(1). */
void perf_op_time_shares(const dnp_graph *g, int i, int64_t batch, const perf_shares *sh,
                         const perf_rates *r, perf_op_time *out);

/* Time of op i of g for a device that holds the shares (fb, fi, fo) of the
 * op's work at global batch `batch`: fb of the batch, fi of the input /
 * contracted dimension, fo of the output dimension (channels, features).
 * For ops without weights pass fi = fo = the share of the channel axis.
 * Input ops cost nothing.  O(1). */
void perf_op_time_get(const dnp_graph *g, int i, int64_t batch, double fb, double fi, double fo,
                      const perf_rates *r, perf_op_time *out);

/* What op i keeps on one device at those shares. */
typedef struct {
    double param_elems;       /* trainable parameters held (weights, bias, norm affine) */
    double saved_act_bytes;   /* everything autograd keeps from forward for backward:
                               * saved_input_bytes + saved_output_bytes + the op's own
                               * buffers (dropout mask, pooling indices, norm statistics) */
    double saved_input_bytes; /* of which the op's input activations (all inputs) */
    double saved_output_bytes;/* of which the op's own output activation */
    double out_act_bytes;     /* the op's output activation (0 for views: flatten, reshape) */
} perf_op_mem;

/* saved_input_bytes and saved_output_bytes name tensors that other ops
 * may save too (a ReLU keeps its output, the next conv keeps the same
 * tensor as its input; autograd stores it once).  Summing saved_act_bytes
 * over ops counts such a tensor twice; a caller that wants the exact
 * footprint counts each op output once if its producer saves its output
 * or any consumer saves its input, plus the private buffers. */

void perf_op_mem_get(const dnp_graph *g, int i, int64_t batch, double fb, double fi, double fo,
                     const perf_rates *r, perf_op_mem *out);
/* The same at shares sh (perf_op_time_shares).  O(1). */
void perf_op_mem_shares(const dnp_graph *g, int i, int64_t batch, const perf_shares *sh,
                        const perf_rates *r, perf_op_mem *out);

/* The optimizer update over `param_elems` parameters: memory-bound
 * traffic (read weights, gradients and state, write weights and state,
 * and the low-precision weight copy under amp) as a fused multi-tensor
 * update, perf_optimizer_kernels launches.  O(1). */
double perf_optimizer_time_s(double param_elems, dnp_optimizer o, const perf_rates *r);
/* Bytes moved per parameter by that update. */
double perf_optimizer_bytes_per_param(dnp_optimizer o, const perf_rates *r);
/* Launches of the fused update: one per 320 chunks of 65536 elements
 * (PyTorch's multi_tensor_apply limits; docs/device-model.md). */
int perf_optimizer_kernels(double param_elems);
/* Bytes per parameter held for training: master weight, gradient,
 * optimizer state (and an fp16 weight copy under amp). */
double perf_bytes_per_param(dnp_optimizer o, const perf_rates *r);

#endif
