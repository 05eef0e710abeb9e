/* config3d_report.c - the report of a Megatron-LM configuration (simulate
 * --config, plan --search 3d) as text and JSON. */
#include "cli.h"

#include <string.h>

int cli_config3d_report(const char *cmd, const dnp_graph *g, const dnp_cluster *cl, int64_t batch,
                        const dnp_plan_options *opt, const dnp_config3d *cfg,
                        const dnp_config3d_result *res, const dnp_config3d_stats *stats,
                        const char *json)
{
    char spec[256];
    dnp_cluster_format(cl, spec, sizeof spec);
    int rc = 0;
    if (json != NULL) {
        json_t *o = json_pack(
            "{s:s,s:s,s:I,s:{s:i,s:i,s:i,s:I,s:i,s:s,s:b},s:s,s:s,s:f,s:f,s:f,s:f,s:f,s:f,"
            "s:f,s:f,s:i,s:{s:f,s:f,s:f,s:f,s:b}}",
            "model", dnp_graph_name(g), "cluster", spec, "batch", (json_int_t)batch, "config",
            "tp", cfg->tp, "pp", cfg->pp, "dp", cfg->dp, "microbatch", (json_int_t)cfg->microbatch,
            "interleave", cfg->interleave, "recompute", dnp_recompute_name(cfg->recompute),
            "seq_par", cfg->seq_par, "precision", dnp_precision_name(opt->precision),
            "optimizer", dnp_optimizer_name(opt->optimizer), "step_time_s", res->step_time_s,
            "mfu", res->mfu, "bubble_s", res->bubble_s, "compute_busy_s", res->compute_busy_s,
            "tp_comm_s", res->tp_comm_s, "p2p_message_s", res->p2p_s, "dp_comm_s", res->dp_comm_s,
            "optimizer_s", res->optimizer_s, "microbatches", res->microbatches, "memory",
            "weights_bytes", res->mem_weights_bytes, "activation_bytes",
            res->mem_activation_bytes, "peak_bytes_max", res->mem_bytes, "capacity_bytes",
            res->mem_capacity_bytes, "fits", res->fits);
        if (o != NULL && res->straggler_pace > 1.0)
            json_object_set_new(o, "stragglers",
                                json_pack("{s:f,s:s}", "pace", res->straggler_pace, "source",
                                          DNP_SPEED_CV_SOURCE));
        if (o != NULL && stats != NULL)
            json_object_set_new(o, "search",
                                json_pack("{s:i,s:i,s:i}", "candidates", stats->candidates,
                                          "fitting", stats->fitting, "simulated",
                                          stats->simulated));
        rc = cli_write_json(cmd, json, o);
    }
    if (rc == 0 && (json == NULL || strcmp(json, "-") != 0)) {
        char t1[32], t2[32], t3[32], t4[32], t5[32];
        cli_fmt_time(res->step_time_s, t1, sizeof t1);
        cli_fmt_time(res->bubble_s, t2, sizeof t2);
        cli_fmt_time(res->tp_comm_s, t3, sizeof t3);
        cli_fmt_time(res->p2p_s, t4, sizeof t4);
        cli_fmt_time(res->dp_comm_s, t5, sizeof t5);
        printf("model %s, batch %lld, cluster %s\n", dnp_graph_name(g), (long long)batch, spec);
        if (stats != NULL)
            printf("search 3d: %d configurations, %d within the memory limit, %d simulated (the "
                   "rest bounded out); the fastest:\n",
                   stats->candidates, stats->fitting, stats->simulated);
        printf("config tp %d, pp %d, dp %d, micro-batch %lld (%d per replica), interleave %d, "
               "recompute %s, sequence parallel %s\n",
               cfg->tp, cfg->pp, cfg->dp, (long long)cfg->microbatch, res->microbatches,
               cfg->interleave, dnp_recompute_name(cfg->recompute), cfg->seq_par ? "on" : "off");
        printf("precision %s, optimizer %s\n", dnp_precision_name(opt->precision),
               dnp_optimizer_name(opt->optimizer));
        printf("predicted step time %s, MFU %.1f%%: pipeline bubble %s, tensor-parallel "
               "collectives %s per rank\n",
               t1, 100.0 * res->mfu, t2, t3);
        printf("pipeline message %s each, data-parallel all-reduce %s\n", t4, t5);
        printf("memory per device (first stage) %.1f GB of %.1f GB: weights, gradients and "
               "optimizer %.1f GB, activations %.1f GB%s\n",
               res->mem_bytes / 1e9, res->mem_capacity_bytes / 1e9, res->mem_weights_bytes / 1e9,
               res->mem_activation_bytes / 1e9, res->fits ? "" : "  ** DOES NOT FIT **");
        if (res->straggler_pace > 1.0)
            printf("stragglers: kernel times x%.4f (--no-stragglers ignores it)\n  source: %s\n",
                   res->straggler_pace, DNP_SPEED_CV_SOURCE);
    }
    return rc;
}
