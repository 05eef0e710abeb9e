/*
 * roofline.c - the per-layer roofline (docs/device-model.md, "Per-layer
 * roofline"): what the device model says bounds each op's training passes
 * on one device.  The times are perf_op_time_get's; this file only sorts
 * them by what set each kernel's roofline time (Williams, Waterman and
 * Patterson, "Roofline", CACM 2009: a kernel is compute-bound above the
 * ridge intensity, memory-bound below it).
 */
#include "dnnpar.h"
#include "perf/device_model.h"

const char *dnp_bound_name(dnp_bound b)
{
    switch (b) {
    case DNP_BOUND_COMPUTE: return "compute";
    case DNP_BOUND_MEMORY: return "memory";
    case DNP_BOUND_LAUNCH: return "launch";
    case DNP_BOUND_NONE: break;
    }
    return "-";
}

double dnp_device_ridge_intensity(const dnp_device_type *d, dnp_precision p)
{
    if (d == NULL)
        return 0.0;
    perf_rates r;
    perf_rates_get(d, p, &r);
    double bw_bps = r.mem_bw_bps * r.mem_eff;
    return bw_bps > 0.0 ? r.peak_flops * r.compute_eff / bw_bps : 0.0;
}

dnp_status dnp_op_roofline_get(const dnp_graph *g, int op, int64_t batch, const dnp_device_type *d,
                               dnp_precision p, dnp_op_roofline *out, dnp_error *err)
{
    if (g == NULL || op < 0 || op >= dnp_graph_n_ops(g) || batch < 1 || d == NULL ||
        out == NULL) {
        dnp_error_set(err, DNP_ERR_INPUT, "roofline: op %d of %d, batch %lld or device missing",
                      op, g != NULL ? dnp_graph_n_ops(g) : 0, (long long)batch);
        return DNP_ERR_INPUT;
    }
    perf_rates r;
    perf_rates_get(d, p, &r);
    perf_op_time t;
    perf_op_time_get(g, op, batch, 1.0, 1.0, 1.0, &r, &t); /* the whole op on one device */
    dnp_op_roofline o = {0};
    o.flop = t.fwd_flop + t.bwd_flop + t.wgrad_flop;
    o.bytes = t.fwd_bytes + t.bwd_bytes + t.wgrad_bytes;
    o.intensity = o.bytes > 0.0 ? o.flop / o.bytes : 0.0;
    o.time_s = t.fwd_s + t.bwd_s + t.wgrad_s;
    o.compute_s = t.compute_bound_s;
    o.memory_s = t.memory_bound_s;
    o.launch_s = t.overhead_s;
    o.kernels = t.kernels;
    o.precision = r.precision;
    o.peak_flops = r.peak_flops;
    o.achieved = o.time_s > 0.0 && r.peak_flops > 0.0 ? o.flop / (o.time_s * r.peak_flops) : 0.0;
    if (o.kernels > 0)
        o.bound = o.compute_s >= o.memory_s && o.compute_s >= o.launch_s ? DNP_BOUND_COMPUTE
                  : o.memory_s >= o.launch_s                             ? DNP_BOUND_MEMORY
                                                                         : DNP_BOUND_LAUNCH;
    *out = o;
    return DNP_OK;
}
