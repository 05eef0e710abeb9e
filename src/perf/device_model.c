/*
 * device_model.c - roofline time and memory of one op on one device
 * (docs/device-model.md).
 *
 * Every kernel takes
 *     max(FLOP / rate, bytes / (mem_bw x mem_eff)) + kernel_overhead_s
 * (the roofline of Williams, Waterman and Patterson, "Roofline: an
 * insightful visual performance model for multicore architectures",
 * CACM 52(4), 2009, plus a fixed cost per launch), where rate is
 * peak x compute_eff for conv / FC / matmul (tensor-core math) and the
 * vector rate for everything else.  Bytes are DRAM traffic: each kernel
 * reads its operands and writes its results once (no cache reuse across
 * kernels, no fusion across ops).  The traffic of every op is tabulated
 * in docs/device-model.md ("Per-op traffic").
 */
#include "perf/device_model.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* bytes of an int64 index (PyTorch's embedding indices and max-pooling
 * indices are torch.long) and of a dropout mask element (torch.bool) */
#define INDEX_BYTES 8.0
#define MASK_BYTES 1.0
/* norm statistics (mean, inverse std) are kept in fp32 */
#define STAT_BYTES 4.0

/* PyTorch multi_tensor_apply (aten/src/ATen/native/cuda/MultiTensorApply.cuh):
 * kChunkSize = 65536 elements, at most 320 blocks (one chunk each) per launch. */
#define MTA_CHUNK_ELEMS 65536.0
#define MTA_CHUNKS_PER_LAUNCH 320.0

/* ------------------------------------------------------------------ */
/* Rates                                                                */
/* ------------------------------------------------------------------ */

dnp_precision perf_dtype_precision(const char *dtype)
{
    if (strcasecmp(dtype, "fp16") == 0)
        return DNP_PREC_FP16;
    if (strcasecmp(dtype, "bfloat16") == 0 || strcasecmp(dtype, "bf16") == 0)
        return DNP_PREC_BF16;
    if (strcasecmp(dtype, "tf32") == 0)
        return DNP_PREC_TF32;
    return DNP_PREC_FP32;
}

/* The device's own figure for precision p: the per-precision field, or
 * peak_flops when p is the device's dtype; 0 if neither is known. */
static double own_peak(const dnp_device_type *d, dnp_precision p)
{
    double v = 0.0;
    switch (p) {
    case DNP_PREC_FP32: v = d->peak_fp32_flops; break;
    case DNP_PREC_TF32: v = d->peak_tf32_flops; break;
    case DNP_PREC_FP16: v = d->peak_fp16_flops; break;
    case DNP_PREC_BF16: v = d->peak_bf16_flops; break;
    case DNP_PREC_DEFAULT:
    case DNP_PREC_AMP:
    case DNP_PREC_COUNT: break;
    }
    if (v > 0.0)
        return v;
    return perf_dtype_precision(d->dtype) == p ? d->peak_flops : 0.0;
}

/* Peak of precision p with the fallbacks of docs/device-model.md:
 * fp32 -> peak_flops; tf32 -> fp32 (PyTorch runs fp32 math where TF32
 * tensor cores are missing: "TensorFloat-32 (TF32) on Ampere (and later)
 * devices", PyTorch CUDA semantics notes); fp16 / amp / bf16 -> fp32
 * (no 16-bit tensor cores: the math runs at the fp32 rate). */
static double peak_for(const dnp_device_type *d, dnp_precision p)
{
    double v;
    switch (p) {
    case DNP_PREC_TF32:
        v = own_peak(d, DNP_PREC_TF32);
        break;
    case DNP_PREC_FP16:
    case DNP_PREC_AMP:
        v = own_peak(d, DNP_PREC_FP16);
        break;
    case DNP_PREC_BF16:
        v = own_peak(d, DNP_PREC_BF16);
        break;
    default:
        v = 0.0;
        break;
    }
    if (v > 0.0)
        return v;
    v = own_peak(d, DNP_PREC_FP32);
    return v > 0.0 ? v : d->peak_flops;
}

void perf_rates_get(const dnp_device_type *d, dnp_precision p, perf_rates *out)
{
    memset(out, 0, sizeof *out);
    if (p == DNP_PREC_DEFAULT || (int)p < 0 || p >= DNP_PREC_COUNT)
        p = perf_dtype_precision(d->dtype);
    out->precision = p;
    out->peak_flops = peak_for(d, p);
    out->compute_eff = d->compute_eff > 0.0 ? d->compute_eff : PERF_DEFAULT_COMPUTE_EFF;
    /* Element-wise ops run on the CUDA cores at the fp32 rate (no tensor
     * cores); they are memory-bound at every precision, so the fp16 vector
     * rate (2x on Volta/Ampere) would not change their time. */
    double v = own_peak(d, DNP_PREC_FP32);
    out->vector_flops = v > 0.0 ? v : d->peak_flops;
    out->mem_bw_bps = d->mem_bw_bps;
    out->mem_eff = d->mem_eff > 0.0 ? d->mem_eff : PERF_DEFAULT_MEM_EFF;
    out->kernel_overhead_s =
        d->kernel_overhead_s > 0.0 ? d->kernel_overhead_s : PERF_DEFAULT_KERNEL_OVERHEAD_S;
    out->sm_count = d->sm_count > 0 ? d->sm_count : 0;
    out->l2_bw_bps = d->l2_bw_bps > 0.0 ? d->l2_bw_bps : d->mem_bw_bps * PERF_DEFAULT_L2_PER_DRAM;
    out->host_kernel_s = d->host_kernel_s > 0.0 ? d->host_kernel_s : PERF_DEFAULT_HOST_KERNEL_S;
    out->pace = 1.0;
    switch (p) {
    case DNP_PREC_FP16:
    case DNP_PREC_BF16:
        /* pure 16-bit training: every tensor in 2 bytes */
        out->act_bytes = out->param_bytes = out->grad_bytes = out->master_bytes = 2;
        break;
    case DNP_PREC_AMP:
        /* torch.cuda.amp: autocast runs conv / matmul in fp16 on an fp16
         * copy of the weights, so activations and the weights the kernels
         * read are 2 bytes; the parameters stay fp32 and so do their .grad
         * and the optimizer state ("Automatic Mixed Precision package",
         * PyTorch docs: you should not call .half() on the model; backward
         * ops run in the type autocast chose, gradients land on the fp32
         * parameters). */
        out->act_bytes = 2;
        out->param_bytes = 2;
        out->grad_bytes = 4;
        out->master_bytes = 4;
        break;
    default:
        /* fp32 and tf32: TF32 is a math mode, tensors stay fp32 in memory */
        out->act_bytes = out->param_bytes = out->grad_bytes = out->master_bytes = 4;
        break;
    }
}

/* ------------------------------------------------------------------ */
/* Op time                                                              */
/* ------------------------------------------------------------------ */

typedef struct {
    double s, flop, bytes, host_s;
    /* of s: kernels whose arithmetic, whose memory traffic set their
     * roofline time, and the launch overheads (the per-layer roofline,
     * dnp_op_roofline_get) */
    double compute_s, memory_s, overhead_s;
    int kernels;
} pass_acc;

/* ---- GEMM tiles and waves (docs/device-model.md) ---------------------- */

/* Output tiles a GEMM library chooses among (m x n per thread block):
 * the tensor-core tile shapes of NVIDIA's "Matrix Multiplication
 * Background User's Guide" (Deep Learning Performance documentation,
 * "Dimension Quantization Effects": 256x128, 128x256, 128x128, 128x64,
 * 64x128, 64x64), one thread block per SM at a time. */
static const double k_tiles[][2] = {{256, 128}, {128, 256}, {128, 128},
                                    {128, 64},  {64, 128},  {64, 64}};
/* Split-k factors (cuBLAS and CUTLASS split the contraction over
 * several tiles when the output has too few tiles for the SMs), each
 * slice at least GEMM_MIN_SPLIT_K long. */
static const double k_splits[] = {1, 2, 4, 8, 16};
#define GEMM_MIN_SPLIT_K 128.0
/* bytes of a split-k partial sum (accumulated in fp32) */
#define PARTIAL_BYTES 4.0

/* The searches price the same GEMM on the same device many times (every
 * configuration of an op, every pass): a per-thread direct-mapped memo of
 * GEMM_MEMO_SLOTS answers keyed by every input, so an answer is the one the
 * computation gives (deterministic), only sooner. */
#define GEMM_MEMO_SLOTS 4096
typedef struct {
    double key[9];
    double q;
    int used;
} gemm_memo;

static double gemm_eff_compute(const perf_rates *r, double batch_count, double m, double n,
                               double k);

/* ceil of a count computed in floating point: a dimension that is an
 * integer up to rounding (a share's product, 1024 x 0.25 x 4) must not
 * gain a tile (ceil(16.000000000001) = 17), or two paths to the same GEMM
 * would differ. */
static double ceil_count(double x)
{
    return ceil(x * (1.0 - 1e-12));
}

double perf_gemm_eff(const perf_rates *r, double batch_count, double m, double n, double k)
{
    if (r->sm_count <= 0 || !(batch_count >= 1.0 && m >= 1.0 && n >= 1.0 && k >= 1.0) ||
        !(r->peak_flops > 0.0))
        return 1.0;
    static _Thread_local gemm_memo memo[GEMM_MEMO_SLOTS];
    const double key[9] = {batch_count, m, n, k, (double)r->sm_count, r->l2_bw_bps,
                           r->peak_flops * r->compute_eff, (double)r->act_bytes,
                           r->mem_bw_bps * r->mem_eff};
    uint64_t h = 0; /* each 64-bit word through splitmix64's finaliser (Steele et al.) */
    for (size_t i = 0; i < sizeof key / sizeof key[0]; i++) {
        uint64_t w;
        memcpy(&w, &key[i], sizeof w);
        h = (h ^ w) + 0x9e3779b97f4a7c15ULL;
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
        h ^= h >> 31;
    }
    gemm_memo *slot = &memo[h % GEMM_MEMO_SLOTS];
    if (slot->used && memcmp(slot->key, key, sizeof key) == 0)
        return slot->q;
    double q = gemm_eff_compute(r, batch_count, m, n, k);
    memcpy(slot->key, key, sizeof key);
    slot->q = q;
    slot->used = 1;
    return q;
}

static double gemm_eff_compute(const perf_rates *r, double batch_count, double m, double n,
                               double k)
{
    const double sms = (double)r->sm_count;
    const double ceiling_flops = r->peak_flops * r->compute_eff; /* the whole device */
    const double ideal_s = 2.0 * batch_count * m * n * k / ceiling_flops;
    const double op_bytes = r->act_bytes > 0 ? (double)r->act_bytes : 4.0;
    const double mem_bps = r->mem_bw_bps * r->mem_eff;
    double best_s = INFINITY;
    for (size_t t = 0; t < sizeof k_tiles / sizeof k_tiles[0]; t++) {
        const double tm = k_tiles[t][0], tn = k_tiles[t][1];
        const double out_tiles = ceil_count(batch_count) * ceil_count(m / tm) * ceil_count(n / tn);
        /* flop per operand byte of one k-step of the tile: it loads
         * (tm + tn) elements and does 2 tm tn flop */
        const double intensity = 2.0 * tm * tn / ((tm + tn) * op_bytes);
        for (size_t j = 0; j < sizeof k_splits / sizeof k_splits[0]; j++) {
            const double split = k_splits[j];
            if (split > 1.0 && (k / split < GEMM_MIN_SPLIT_K || out_tiles >= sms))
                break;
            const double tiles = out_tiles * split;
            const double waves = ceil_count(tiles / sms);
            const double active = tiles < sms ? tiles : sms;
            double rate = ceiling_flops / sms; /* one SM at the ceiling */
            if (r->l2_bw_bps > 0.0) {
                double fed = r->l2_bw_bps / active * intensity;
                rate = fed < rate ? fed : rate;
            }
            double t_s = waves * 2.0 * tm * tn * ceil_count(k / split) / rate;
            if (split > 1.0 && mem_bps > 0.0) /* partials written, then read and summed */
                t_s += 2.0 * split * batch_count * m * n * PARTIAL_BYTES / mem_bps;
            best_s = t_s < best_s ? t_s : best_s;
        }
    }
    double q = ideal_s / best_s;
    return q > 1.0 ? 1.0 : q;
}

/* One kernel: roofline time plus the launch cost.  tensor = 1 for
 * conv / matmul math (peak x compute_eff x gemm_eff, the shape's fraction
 * of the ceiling), 0 for vector math. */
static void kernel_q(pass_acc *a, const perf_rates *r, double flop, double bytes, int tensor,
                     double gemm_eff)
{
    if (flop <= 0.0 && bytes <= 0.0)
        return;
    double rate = tensor ? r->peak_flops * r->compute_eff * gemm_eff : r->vector_flops;
    double t_compute_s = rate > 0.0 ? flop / rate : 0.0;
    double bw_bps = r->mem_bw_bps * r->mem_eff;
    double t_mem_s = bw_bps > 0.0 ? bytes / bw_bps : 0.0; /* 0 bandwidth = unknown */
    /* the launch overhead is host-side: the device's speed spread (pace)
     * scales the roofline part only */
    a->s += (t_compute_s > t_mem_s ? t_compute_s : t_mem_s) * r->pace + r->kernel_overhead_s;
    if (t_compute_s > t_mem_s)
        a->compute_s += t_compute_s * r->pace;
    else
        a->memory_s += t_mem_s * r->pace;
    a->overhead_s += r->kernel_overhead_s;
    a->host_s += r->host_kernel_s;
    a->flop += flop;
    a->bytes += bytes;
    a->kernels++;
}

static void kernel(pass_acc *a, const perf_rates *r, double flop, double bytes, int tensor)
{
    kernel_q(a, r, flop, bytes, tensor, 1.0);
}

/* One GEMM kernel on its own (dnnpar.h): the roofline of kernel_q with the
 * shape's fraction of the ceiling (perf_gemm_eff) and the DRAM traffic of
 * its operands, each read once and the product written once:
 * b (m k + k n + m n) elements of the precision's activation bytes. */
double dnp_device_gemm_time_s(const dnp_device_type *d, dnp_precision p, double batch_count,
                              double m, double n, double k)
{
    if (d == NULL || !(batch_count >= 1.0 && m >= 1.0 && n >= 1.0 && k >= 1.0) ||
        !isfinite(batch_count * m * n * k))
        return NAN;
    perf_rates r;
    perf_rates_get(d, p, &r);
    pass_acc a = {0};
    const double flop = 2.0 * batch_count * m * n * k;
    const double bytes = batch_count * (m * k + k * n + m * n) * (double)r.act_bytes;
    kernel_q(&a, &r, flop, bytes, 1, perf_gemm_eff(&r, batch_count, m, n, k));
    return a.s;
}

/* 1 if every input of op is a graph input: no input gradient is needed
 * (autograd does not compute gradients for data that does not require
 * them), so the op's backward (input-gradient) pass costs nothing. */
static int feeds_on_graph_input_only(const dnp_graph *g, const dnp_op *op)
{
    if (op->n_inputs <= 0)
        return 1;
    for (int k = 0; k < op->n_inputs; k++)
        if (dnp_graph_op(g, op->inputs[k])->kind != DNP_OP_INPUT)
            return 0;
    return 1;
}

/* Elements of all inputs of op, per sample. */
static double inputs_elems_per_sample(const dnp_graph *g, const dnp_op *op)
{
    double n = 0.0;
    for (int k = 0; k < op->n_inputs; k++) {
        dnp_shape s = dnp_op_out_view(dnp_graph_op(g, op->inputs[k]));
        n += (double)s.c * (double)s.h * (double)s.w;
    }
    return n;
}

/* The kind whose kernels and saved tensors an op of a named-axes kind
 * has (docs/models.md "Named axes"): an einsum with a weight is a
 * weighted GEMM as FC (read X and W, write Y; dX and dW), one of two
 * activations a matmul; an LSTM's gate products are a weighted GEMM over
 * its weights (its gates and states are added by the memory model); a
 * stack copies as concat; a select is a view. */
static dnp_op_kind kernel_kind(const dnp_op *op)
{
    switch (op->kind) {
    case DNP_OP_EINSUM:
        return op->n_inputs == 1 ? DNP_OP_FC : DNP_OP_MATMUL;
    case DNP_OP_LSTM:
        return DNP_OP_FC;
    case DNP_OP_STACK:
        return DNP_OP_CONCAT;
    case DNP_OP_SELECT:
        return DNP_OP_FLATTEN;
    default:
        return op->kind;
    }
}

/* RESHAPE ops imported from operators PyTorch materialises as a copy
 * (a transposed or padded tensor fed to the next kernel); every other
 * reshape, slice or flatten is a view. */
static int reshape_copies(const dnp_op *op)
{
    return strcasecmp(op->src_type, "Transpose") == 0 || strcasecmp(op->src_type, "Pad") == 0;
}

/* The GEMM an op's forward runs on one device: b independent products of
 * (m x k) . (k x n) (docs/device-model.md, "GEMM tiles and waves").  ok = 0
 * when the op is no plain GEMM (grouped convolutions, named-axes einsums,
 * LSTMs, a matmul without a 2-D output): those keep the ceiling rate. */
typedef struct {
    double b, m, n, k;
    int ok;
} gemm_dims;

static void gemm_dims_of(const dnp_graph *g, int i, int64_t batch, const perf_shares *sh,
                         gemm_dims *out)
{
    const dnp_op *op = dnp_graph_op(g, i);
    memset(out, 0, sizeof *out);
    const double nb = (double)batch;
    if (op->kind == DNP_OP_FC || (op->kind == DNP_OP_CONV && op->groups <= 1)) {
        /* the shares: in = fb fi, out = fb fo, weight = fi fo (perf_shares_of) */
        if (!(sh->weight > 0.0 && sh->in > 0.0 && sh->out > 0.0))
            return;
        const double fb = sqrt(sh->in * sh->out / sh->weight);
        const double fi = sh->in / fb, fo = sh->out / fb;
        const dnp_shape in = dnp_op_in_view(g, i), o = dnp_op_out_view(op);
        double k_full;
        double positions; /* output positions per sample: the GEMM's rows */
        if (op->kind == DNP_OP_CONV) {
            /* implicit GEMM (cuDNN's IMPLICIT_GEMM algorithm): one row per
             * output pixel, one column per output channel, contraction over
             * input channels x kernel window */
            positions = (double)o.h * (double)o.w;
            k_full = (double)in.c * op->kh * op->kw;
        } else {
            positions = op->keep_positions ? (double)o.h * (double)o.w : 1.0;
            k_full = op->keep_positions ? (double)in.c
                                        : (double)in.c * (double)in.h * (double)in.w;
        }
        out->b = 1.0;
        out->m = nb * positions * fb;
        out->n = (double)o.c * fo;
        out->k = k_full * fi;
        out->ok = 1;
    } else if (op->kind == DNP_OP_MATMUL && dnp_op_has_axes(op) && op->out_rank >= 2 &&
               op->contract > 0) {
        /* batched product: the leading output axes (heads) and the batch
         * are independent products; the device holds sh->flop of them */
        double inst = nb;
        for (int a = 0; a + 2 < op->out_rank; a++)
            inst *= (double)op->out_dims[a];
        out->b = inst * sh->flop;
        out->m = (double)op->out_dims[op->out_rank - 2];
        out->n = (double)op->out_dims[op->out_rank - 1];
        out->k = (double)op->contract;
        out->ok = out->b >= 1.0;
    }
}

/* 1 if op belongs to a fused (flash) attention (src/model/zoo_transformer.h,
 * ZOO_FLASH_ATTENTION): scores, softmax, dropout, context. */
static int flash_op(const dnp_op *op)
{
    return strcmp(op->src_type, "FlashAttention") == 0;
}

/* 1 if op is the context product of a fused attention (its first input the
 * probabilities: the softmax's or the dropout's output). */
static int flash_context(const dnp_graph *g, const dnp_op *op)
{
    if (!flash_op(op) || op->kind != DNP_OP_MATMUL || op->n_inputs < 1)
        return 0;
    dnp_op_kind k = dnp_graph_op(g, op->inputs[0])->kind;
    return k == DNP_OP_SOFTMAX || k == DNP_OP_DROPOUT;
}

static double elems_of(dnp_shape s)
{
    return (double)s.c * (double)s.h * (double)s.w;
}

/* 1 if op is an attention's softmax: over the per-head score matrices
 * (rank-3 output) of a batched product (src/model/zoo_transformer.c). */
static int attention_softmax(const dnp_graph *g, const dnp_op *op)
{
    return op->kind == DNP_OP_SOFTMAX && dnp_op_has_axes(op) && op->out_rank == 3 &&
           op->n_inputs == 1 &&
           dnp_graph_op(g, op->inputs[0])->kind == DNP_OP_MATMUL;
}

perf_shares perf_shares_of(const dnp_op *op, double fb, double fi, double fo)
{
    perf_shares s;
    switch (kernel_kind(op)) {
    case DNP_OP_CONV:
    case DNP_OP_FC:
        s.flop = fb * fi * fo;
        s.in = fb * fi;
        s.out = fb * fo;
        s.weight = fi * fo;
        s.bias = fo;
        break;
    case DNP_OP_EMBEDDING: /* the gather's work follows the rows it writes */
        s.flop = s.out = fb * fo;
        s.in = fb;
        s.weight = fi * fo;
        s.bias = fo;
        break;
    default: /* every tensor: fb of the batch, fo of the channels */
        s.flop = s.in = s.out = fb * fo;
        s.weight = s.bias = fo;
        break;
    }
    return s;
}

void perf_op_time_get(const dnp_graph *g, int i, int64_t batch, double fb, double fi, double fo,
                      const perf_rates *r, perf_op_time *out)
{
    perf_shares s = perf_shares_of(dnp_graph_op(g, i), fb, fi, fo);
    perf_op_time_shares(g, i, batch, &s, r, out);
}

void perf_op_time_shares(const dnp_graph *g, int i, int64_t batch, const perf_shares *sh,
                         const perf_rates *r, perf_op_time *out)
{
    memset(out, 0, sizeof *out);
    const dnp_op *op = dnp_graph_op(g, i);
    if (op->kind == DNP_OP_INPUT)
        return;
    dnp_op_cost c;
    dnp_op_cost_get(g, i, batch, &c);
    const double A = r->act_bytes, P = r->param_bytes, G = r->grad_bytes;
    const int no_dx = feeds_on_graph_input_only(g, op);
    pass_acc f = {0}, b = {0}, w = {0};

    /* shares (perf_shares): of the arithmetic, the inputs, the output */
    const double e = sh->flop;
    const double N = (double)c.out_elems * sh->out;  /* output elements held */
    const double Nin = (double)c.in_elems * sh->in; /* first-input elements held */

    switch (kernel_kind(op)) {
    case DNP_OP_CONV:
    case DNP_OP_FC: {
        const double s = sh->flop;
        const double X = (double)c.in_elems * sh->in;
        const double Y = (double)c.out_elems * sh->out;
        const double W =
            (double)c.weight_elems * sh->weight + (double)(c.params - c.weight_elems) * sh->bias;
        gemm_dims gd;
        gemm_dims_of(g, i, batch, sh, &gd);
        /* forward Y = X (*) W (m x k . k x n): read X and W, write Y */
        kernel_q(&f, r, c.fwd_flop * s, (X + Y) * A + W * P, 1,
                 gd.ok ? perf_gemm_eff(r, gd.b, gd.m, gd.n, gd.k) : 1.0);
        /* input gradient dX = dY (*) W^T (m x n . n x k): read dY and W, write dX */
        if (!no_dx)
            kernel_q(&b, r, c.bwd_flop * s, (Y + X) * A + W * P, 1,
                     gd.ok ? perf_gemm_eff(r, gd.b, gd.m, gd.k, gd.n) : 1.0);
        /* weight gradient dW = X^T (*) dY (k x m . m x n): read X and dY, write dW */
        kernel_q(&w, r, c.grad_flop * s, (X + Y) * A + W * G, 1,
                 gd.ok ? perf_gemm_eff(r, gd.b, gd.k, gd.n, gd.m) : 1.0);
        break;
    }
    case DNP_OP_MATMUL: {
        const double in_all = inputs_elems_per_sample(g, op) * (double)batch * sh->in;
        gemm_dims gd;
        gemm_dims_of(g, i, batch, sh, &gd);
        if (flash_op(op)) {
            /* FlashAttention-2 (Dao, 2023): the whole core in one forward
             * and one backward kernel, charged on the scores op (the
             * context, softmax and dropout ops of the fused core cost
             * nothing of their own).  Forward: Q K^T and P V (the context
             * has the scores' FLOP: heads x s x s x d each), reading Q, K,
             * V and writing O and the row log-sum-exp (4 bytes a row) --
             * the s x s scores never leave the SM (section 3.1).  Backward:
             * S recomputed (1 product), dV, dP (2) and dQ, dK (2): 5 of the
             * forward products, reading Q, K, V, O, dO and writing dQ, dK,
             * dV (section 3.2).  K and V have the same width (grouped-query
             * attention shares both); O and dO the queries'. */
            if (flash_context(g, op))
                break; /* inside the scores' kernel */
            const double q = elems_of(dnp_op_out_view(dnp_graph_op(g, op->inputs[0]))) *
                             (double)batch * sh->in;
            /* rows: heads x queries of the scores' given axes (none: 0) */
            const double kv = in_all - q,
                         rows = N / (double)(dnp_op_has_axes(op) ? op->out_dims[2] : 0);
            const double eff = gd.ok ? perf_gemm_eff(r, gd.b, gd.m, gd.n, gd.k) : 1.0;
            kernel_q(&f, r, 2.0 * c.fwd_flop * e, (q + 2.0 * kv + q) * A + rows * 4.0, 1, eff);
            if (!no_dx)
                kernel_q(&b, r, 5.0 * c.fwd_flop * e,
                         (q + 2.0 * kv + 2.0 * q) * A + rows * 4.0 + (q + 2.0 * kv) * A, 1,
                         eff);
            break;
        }
        /* C = A x B (m x k . k x n): read both operands, write C */
        kernel_q(&f, r, c.fwd_flop * e, (in_all + N) * A, 1,
                 gd.ok ? perf_gemm_eff(r, gd.b, gd.m, gd.n, gd.k) : 1.0);
        if (!no_dx) {
            /* dA = dC B^T (m x n . n x k) and dB = A^T dC (k x m . m x n):
             * two products, each reading dC and the other operand and
             * writing one gradient */
            kernel_q(&b, r, 0.5 * c.bwd_flop * e, (N + in_all) * A, 1,
                     gd.ok ? perf_gemm_eff(r, gd.b, gd.m, gd.k, gd.n) : 1.0);
            kernel_q(&b, r, 0.5 * c.bwd_flop * e, (N + in_all) * A, 1,
                     gd.ok ? perf_gemm_eff(r, gd.b, gd.k, gd.n, gd.m) : 1.0);
        }
        break;
    }
    case DNP_OP_EMBEDDING: {
        const double idx = (double)c.in_elems * sh->in * INDEX_BYTES;
        const double rows = (double)c.out_elems * sh->out; /* looked-up elements */
        const double table = (double)c.weight_elems * sh->weight;
        /* gather: read the indices and the rows, write the output */
        kernel(&f, r, c.fwd_flop * sh->flop, idx + rows * (P + A), 0);
        /* no input gradient (integer indices); the weight gradient is a
         * dense table (PyTorch embedding_dense_backward): zero it, then
         * scatter-add dY (read dY and indices, read-modify-write rows) */
        kernel(&w, r, 0.0, table * G, 0);
        kernel(&w, r, c.grad_flop * sh->flop, idx + rows * (A + 2.0 * G), 0);
        break;
    }
    case DNP_OP_BATCHNORM:
        /* training forward, two passes (PyTorch's native CUDA batch norm:
         * collect statistics, then transform): read X; read X, write Y */
        kernel(&f, r, 0.5 * c.fwd_flop * e, Nin * A, 0);
        kernel(&f, r, 0.5 * c.fwd_flop * e, (Nin + N) * A, 0);
        /* backward: a reduction over dY and X gives dgamma, dbeta and the
         * sums dX needs (counted as the weight gradient); then dX from dY
         * and X (the input gradient) */
        if (!no_dx)
            kernel(&b, r, c.bwd_flop * e, (N + 2.0 * Nin) * A, 0);
        kernel(&w, r, c.grad_flop * e, (N + Nin) * A, 0);
        break;
    case DNP_OP_LAYERNORM:
        /* one kernel per pass: read X, write Y; read dY and X, write dX;
         * dgamma / dbeta from dY and X (PyTorch's separate gamma-beta
         * backward kernel) */
        kernel(&f, r, c.fwd_flop * e, (Nin + N) * A, 0);
        if (!no_dx)
            kernel(&b, r, c.bwd_flop * e, (N + 2.0 * Nin) * A, 0);
        if (op->param_elems > 0)
            kernel(&w, r, c.grad_flop * e, (N + Nin) * A, 0);
        break;
    case DNP_OP_RELU:
    case DNP_OP_SOFTMAX:
        if (flash_op(op))
            break; /* inside the fused attention kernel (the scores op) */
        /* read X, write Y; backward reads Y and dY, writes dX */
        kernel(&f, r, c.fwd_flop * e, (Nin + N) * A, 0);
        if (!no_dx)
            kernel(&b, r, c.bwd_flop * e, (2.0 * N + Nin) * A, 0);
        if (attention_softmax(g, op) && A >= 4.0) {
            /* Megatron-LM's FusedScaleMaskSoftmax scales, masks and
             * normalises the scores in one kernel only for 16-bit inputs
             * (megatron/model/fused_softmax.py, is_kernel_available); in
             * fp32 forward_torch_softmax runs `input * scale` and the mask
             * (masked_fill_) as two more kernels, each reading and writing
             * the scores, and their backwards as two more (the mask's
             * reads it too) -- as eager PyTorch attention does anywhere */
            kernel(&f, r, Nin * e, 2.0 * Nin * A, 0);
            kernel(&f, r, 0.0, 2.0 * Nin * A + Nin * MASK_BYTES, 0);
            if (!no_dx) {
                kernel(&b, r, Nin * e, 2.0 * Nin * A, 0);
                kernel(&b, r, 0.0, 2.0 * Nin * A + Nin * MASK_BYTES, 0);
            }
        }
        break;
    case DNP_OP_DROPOUT:
        if (flash_op(op))
            break; /* applied inside the fused kernel from a saved RNG state */
        /* read X, write Y and the mask; backward reads dY and the mask */
        kernel(&f, r, c.fwd_flop * e, (Nin + N) * A + N * MASK_BYTES, 0);
        if (!no_dx)
            kernel(&b, r, c.bwd_flop * e, (N + Nin) * A + N * MASK_BYTES, 0);
        break;
    case DNP_OP_MAXPOOL:
        /* read X, write Y and the int64 argmax indices; backward reads dY
         * and the indices, writes dX */
        kernel(&f, r, c.fwd_flop * e, (Nin + N) * A + N * INDEX_BYTES, 0);
        if (!no_dx)
            kernel(&b, r, c.bwd_flop * e, (N + Nin) * A + N * INDEX_BYTES, 0);
        break;
    case DNP_OP_AVGPOOL:
    case DNP_OP_REDUCE:
        /* read X, write Y; backward spreads dY over dX */
        kernel(&f, r, c.fwd_flop * e, (Nin + N) * A, 0);
        if (!no_dx)
            kernel(&b, r, c.bwd_flop * e, (N + Nin) * A, 0);
        break;
    case DNP_OP_LRN:
        /* fused: read X, write Y and the scale; backward reads X, Y, the
         * scale and dY, writes dX */
        kernel(&f, r, c.fwd_flop * e, (Nin + 2.0 * N) * A, 0);
        if (!no_dx)
            kernel(&b, r, c.bwd_flop * e, (Nin + 3.0 * N + Nin) * A, 0);
        break;
    case DNP_OP_ADD: {
        const double k = op->n_inputs > 0 ? op->n_inputs : 1;
        /* read every summand, write the sum */
        kernel(&f, r, c.fwd_flop * e, (k + 1.0) * N * A, 0);
        /* dY passes unchanged to every summand; the sum of the gradients
         * where a summand's producer also fed another branch (the residual
         * fork) is charged here: read two gradients, write one */
        if (!no_dx)
            kernel(&b, r, N, 3.0 * N * A, 0);
        break;
    }
    case DNP_OP_CONCAT:
        /* copy every input into the output; backward slices dY (views) */
        kernel(&f, r, 0.0, 2.0 * N * A, 0);
        break;
    case DNP_OP_ELTWISE: {
        const double k = op->n_inputs > 0 ? op->n_inputs : 1;
        /* read the k operands, write Y; backward reads dY and the operands,
         * writes a gradient per operand; a scale or bias parameter adds a
         * reduction of dY (and X) over the batch */
        kernel(&f, r, c.fwd_flop * e, (k + 1.0) * N * A, 0);
        if (!no_dx)
            kernel(&b, r, c.bwd_flop * e, (1.0 + 2.0 * k) * N * A, 0);
        if (op->param_elems > 0)
            kernel(&w, r, c.grad_flop * e, 2.0 * N * A, 0);
        break;
    }
    case DNP_OP_RESHAPE:
        if (reshape_copies(op)) {
            kernel(&f, r, 0.0, (Nin + N) * A, 0);
            if (!no_dx)
                kernel(&b, r, 0.0, (N + Nin) * A, 0);
        }
        break;
    case DNP_OP_FLATTEN:
    case DNP_OP_INPUT:
    case DNP_OP_EINSUM: /* mapped by kernel_kind */
    case DNP_OP_LSTM:
    case DNP_OP_STACK:
    case DNP_OP_SELECT:
    case DNP_OP_KIND_COUNT:
        break;
    }

    out->fwd_s = f.s;
    out->bwd_s = b.s;
    out->wgrad_s = w.s;
    out->fwd_host_s = f.host_s;
    out->bwd_host_s = b.host_s;
    out->wgrad_host_s = w.host_s;
    out->fwd_flop = f.flop;
    out->bwd_flop = b.flop;
    out->wgrad_flop = w.flop;
    out->fwd_bytes = f.bytes;
    out->bwd_bytes = b.bytes;
    out->wgrad_bytes = w.bytes;
    out->kernels = f.kernels + b.kernels + w.kernels;
    out->compute_bound_s = f.compute_s + b.compute_s + w.compute_s;
    out->memory_bound_s = f.memory_s + b.memory_s + w.memory_s;
    out->overhead_s = f.overhead_s + b.overhead_s + w.overhead_s;
}

/* ------------------------------------------------------------------ */
/* Op memory                                                            */
/* ------------------------------------------------------------------ */

void perf_op_mem_get(const dnp_graph *g, int i, int64_t batch, double fb, double fi, double fo,
                     const perf_rates *r, perf_op_mem *out)
{
    perf_shares s = perf_shares_of(dnp_graph_op(g, i), fb, fi, fo);
    perf_op_mem_shares(g, i, batch, &s, r, out);
}

void perf_op_mem_shares(const dnp_graph *g, int i, int64_t batch, const perf_shares *sh,
                        const perf_rates *r, perf_op_mem *out)
{
    memset(out, 0, sizeof *out);
    const dnp_op *op = dnp_graph_op(g, i);
    dnp_op_cost c;
    dnp_op_cost_get(g, i, batch, &c);
    const double A = r->act_bytes;
    const double N = (double)c.out_elems * sh->out;
    const double Nin = (double)c.in_elems * sh->in;
    double in_b = 0.0, out_b = 0.0, priv_b = 0.0;

    /* What autograd saves (PyTorch tools/autograd/derivatives.yaml: the
     * tensors each backward formula names). */
    if (op->kind == DNP_OP_LSTM) /* per layer and position: 4 gates, c and h (the
                                  * cuDNN reserve space's content) */
        priv_b = 6.0 * N * (double)op->layers * A;
    switch (kernel_kind(op)) {
    case DNP_OP_CONV:
    case DNP_OP_FC:
        /* weights are parameters; the input is needed for dW */
        out->param_elems =
            (double)c.weight_elems * sh->weight + (double)(c.params - c.weight_elems) * sh->bias;
        in_b = (double)c.in_elems * sh->in * A;
        break;
    case DNP_OP_EMBEDDING:
        out->param_elems = (double)c.weight_elems * sh->weight;
        priv_b = (double)c.in_elems * sh->in * INDEX_BYTES; /* the indices */
        break;
    case DNP_OP_MATMUL:
        if (flash_context(g, op) && op->n_inputs == 2) {
            /* the fused core's context op: FlashAttention keeps V and its
             * output O for the backward, not the s x s probabilities */
            in_b = elems_of(dnp_op_out_view(dnp_graph_op(g, op->inputs[1]))) * (double)batch *
                   sh->in * A;
            out_b = N * A;
            break;
        }
        in_b = inputs_elems_per_sample(g, op) * (double)batch * sh->in * A; /* both operands */
        break;
    case DNP_OP_BATCHNORM:
        out->param_elems = (double)c.params * sh->bias;
        in_b = Nin * A;                                           /* input */
        priv_b = 2.0 * (double)dnp_op_out_view(op).c * sh->bias *
                 STAT_BYTES; /* save_mean, save_invstd */
        break;
    case DNP_OP_LAYERNORM:
        out->param_elems = (double)c.params * sh->bias;
        in_b = Nin * A;
        /* mean and rstd per normalised row (c features each) */
        {
            const double feat = (double)dnp_op_out_view(op).c;
            priv_b = feat > 0.0 ? 2.0 * N / feat * STAT_BYTES : 0.0;
        }
        break;
    case DNP_OP_RELU:
    case DNP_OP_SOFTMAX:
        if (flash_op(op) && dnp_op_has_axes(op) && op->out_rank == 3 && op->out_dims[2] > 0)
            priv_b = N / (double)op->out_dims[2] * 4.0; /* the fused core: one fp32
                                                         * log-sum-exp per row */
        else
            out_b = N * A; /* backward needs only the output */
        break;
    case DNP_OP_DROPOUT:
        if (!flash_op(op)) /* the fused core keeps the RNG state, no mask */
            priv_b = N * MASK_BYTES;
        break;
    case DNP_OP_MAXPOOL:
        in_b = Nin * A; /* max_pool2d_with_indices_backward(grad, self, ..., indices) */
        priv_b = N * INDEX_BYTES;
        break;
    case DNP_OP_AVGPOOL:
        in_b = Nin * A; /* avg_pool2d_backward(grad, self, ...) keeps self */
        break;
    case DNP_OP_LRN:
        in_b = Nin * A;
        priv_b = N * A; /* the scale */
        break;
    case DNP_OP_ELTWISE:
        out->param_elems = (double)c.params * sh->bias;
        in_b = inputs_elems_per_sample(g, op) * (double)batch * sh->in * A;
        break;
    case DNP_OP_ADD:
    case DNP_OP_CONCAT:
    case DNP_OP_REDUCE:
    case DNP_OP_FLATTEN:
    case DNP_OP_RESHAPE:
    case DNP_OP_INPUT:
    case DNP_OP_EINSUM: /* mapped by kernel_kind */
    case DNP_OP_LSTM:
    case DNP_OP_STACK:
    case DNP_OP_SELECT:
    case DNP_OP_KIND_COUNT:
        break; /* only shapes */
    }
    out->saved_input_bytes = in_b;
    out->saved_output_bytes = out_b;
    out->saved_act_bytes = in_b + out_b + priv_b;
    /* the fused core's scores, probabilities and their dropout are never
     * written out: only its context output exists */
    int view = op->kind == DNP_OP_FLATTEN || op->kind == DNP_OP_SELECT ||
               (op->kind == DNP_OP_RESHAPE && !reshape_copies(op)) ||
               (flash_op(op) && !flash_context(g, op));
    out->out_act_bytes = view ? 0.0 : N * A;
}

/* ------------------------------------------------------------------ */
/* Optimizer                                                            */
/* ------------------------------------------------------------------ */

/* Optimizer state tensors per parameter: momentum buffer; Adam's first
 * and second moments (PyTorch torch.optim.SGD / Adam). */
static double state_tensors(dnp_optimizer o)
{
    switch (o) {
    case DNP_OPTIM_MOMENTUM: return 1.0;
    case DNP_OPTIM_ADAM: return 2.0;
    case DNP_OPTIM_SGD:
    case DNP_OPTIM_COUNT: break;
    }
    return 0.0;
}

double perf_optimizer_bytes_per_param(dnp_optimizer o, const perf_rates *r)
{
    /* read and write the master weight, read the gradient, read and write
     * each state tensor (kept at master precision), and under amp write
     * the low-precision copy the next forward reads */
    double copy = r->param_bytes < r->master_bytes ? r->param_bytes : 0.0;
    return 2.0 * r->master_bytes + r->grad_bytes + 2.0 * state_tensors(o) * r->master_bytes + copy;
}

int perf_optimizer_kernels(double param_elems)
{
    if (param_elems <= 0.0)
        return 0;
    return (int)ceil(param_elems / (MTA_CHUNK_ELEMS * MTA_CHUNKS_PER_LAUNCH));
}

double perf_optimizer_time_s(double param_elems, dnp_optimizer o, const perf_rates *r)
{
    if (param_elems <= 0.0)
        return 0.0;
    double bw_bps = r->mem_bw_bps * r->mem_eff;
    double bytes = param_elems * perf_optimizer_bytes_per_param(o, r);
    double t_mem_s = bw_bps > 0.0 ? bytes / bw_bps : 0.0;
    return t_mem_s * r->pace + perf_optimizer_kernels(param_elems) * r->kernel_overhead_s;
}

double perf_bytes_per_param(dnp_optimizer o, const perf_rates *r)
{
    /* master weight + gradient + state, and the fp16 copy under amp */
    double copy = r->param_bytes < r->master_bytes ? r->param_bytes : 0.0;
    return r->master_bytes + r->grad_bytes + state_tensors(o) * r->master_bytes + copy;
}

/* ------------------------------------------------------------------ */
/* Stragglers                                                           */
/* ------------------------------------------------------------------ */

/* E[max_n Z] = integral of x n phi(x) Phi(x)^(n-1) dx: the density of the
 * largest of n i.i.d. variables with cdf Phi is n phi Phi^(n-1) (order
 * statistics; e.g. David and Nagaraja, "Order Statistics", 3rd ed., 2003,
 * eq. 2.1.6).  Phi^(n-1) is taken as exp((n-1) log Phi) so that large n
 * neither overflows nor loses the upper tail. */
double perf_expected_max_std_normal(double n)
{
    if (!(n > 1.0))
        return 0.0;
    /* The planner asks for the same few n once per plan (one per device
     * type), and the share searches build thousands of plans: the last
     * MEMO answers are kept, per thread (no state shared between the
     * threads of the library's searches). */
    enum { MEMO = 8 };
    static _Thread_local double memo_n[MEMO], memo_v[MEMO];
    static _Thread_local int memo_next;
    for (int k = 0; k < MEMO; k++)
        if (memo_n[k] == n)
            return memo_v[k];
    const double lo = -12.0, hi = 12.0;
    const int steps = 4800; /* even: Simpson */
    const double h = (hi - lo) / steps;
    const double inv_sqrt_2pi = 0.39894228040143267794;
    double sum = 0.0;
    for (int i = 0; i <= steps; i++) {
        double x = lo + h * i;
        double cdf = 0.5 * erfc(-x / sqrt(2.0));
        double f = 0.0;
        if (cdf > 0.0)
            f = x * n * inv_sqrt_2pi * exp(-0.5 * x * x + (n - 1.0) * log(cdf));
        double w = (i == 0 || i == steps) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        sum += w * f;
    }
    double v = sum * h / 3.0;
    memo_n[memo_next] = n;
    memo_v[memo_next] = v;
    memo_next = (memo_next + 1) % MEMO;
    return v;
}

double perf_straggler_pace(double speed_cv, double n_devices)
{
    if (!(speed_cv > 0.0) || !(n_devices > 1.0))
        return 1.0;
    return 1.0 + speed_cv * perf_expected_max_std_normal(n_devices);
}
