/*
 * mpt_run_json.c - the JSON report of one MPT evaluation (`dnnpar mpt
 * --json`): the system, each Table IV configuration's forward and backward
 * time and traffic per worker, and every layer's grid and time.  Units:
 * seconds and bytes (docs/mpt.md).
 */
#include "arch/mpt/mpt_api.h"

static json_t *time_json(const mpt_layer_time *t, const mpt_layer *l)
{
    char tf[32];
    mpt_tf_text(t, l, tf, sizeof tf);
    return json_pack("{s:i,s:i,s:s,s:b,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "groups", t->ng,
                     "clusters", t->nc, "transform", tf, "one_d", t->one_d, "forward_s",
                     t->fwd_s, "backward_s", t->bwd_s, "compute_s", t->compute_s, "dram_s",
                     t->dram_s, "tile_transfer_s", t->tile_s, "allreduce_s", t->ring_s,
                     "weight_bytes_per_worker", t->weight_bytes, "tile_bytes_per_worker",
                     t->tile_bytes, "array_use", t->array_use);
}

static json_t *hw_json(const mpt_hw *h)
{
    char arr[32];
    snprintf(arr, sizeof arr, "%dx%d", h->array_dim, h->array_dim);
    return json_pack("{s:s,s:s,s:i,s:f,s:f,s:f,s:f,s:i,s:f,s:f,s:f}", "source",
                     mpt_hw_is_paper(h) ? "paper (Sec. VI, Table III); array_split ours"
                                         : "user", "array", arr,
                     "array_split", h->array_split, "clock_ghz", h->clock_hz / 1e9, "dram_gbps",
                     h->dram_bps / 1e9, "full_link_gbps", h->full_link_bps / 1e9,
                     "narrow_link_gbps", h->narrow_link_bps / 1e9, "full_links", h->full_links,
                     "input_buffer_kb", h->input_buffer_bytes / 1024, "output_buffer_kb",
                     h->output_buffer_bytes / 1024, "hop_ns", h->hop_s * 1e9);
}

static json_t *sys_json(const mpt_sys *s)
{
    json_t *ch = json_array();
    for (int k = 0; k < s->n_choices; k++)
        json_array_append_new(ch, json_integer(s->choices[k]));
    return json_pack("{s:i,s:f,s:i,s:o,s:i,s:s,s:i,s:o,s:o}", "workers", s->workers, "batch",
                     s->batch, "fixed_groups", s->fixed_ng, "dynamic_groups", ch, "tile",
                     s->tile, "precision", s->hw.elem_bytes == 2 ? "fp16" : "fp32", "array",
                     s->hw.array_dim, "prediction_shares", mpt_shares_json(&s->cuts), "hardware",
                     hw_json(&s->hw));
}

json_t *mpt_run_json(const dnp_mpt_run *r)
{
    json_t *cfgs = json_array(), *layers = json_array();
    double base = r->t[MPT_W_DP].total_s;
    for (int c = 0; c < MPT_CONFIG_COUNT; c++)
        json_array_append_new(
            cfgs, json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "config",
                            mpt_config_name((mpt_config)c), "forward_s", r->t[c].fwd_s,
                            "backward_s", r->t[c].bwd_s, "total_s", r->t[c].total_s,
                            "speedup_over_w_dp", base / r->t[c].total_s,
                            "speedup_over_one_worker", r->single.total_s / r->t[c].total_s,
                            "weight_bytes_per_worker", r->t[c].weight_bytes,
                            "tile_bytes_per_worker", r->t[c].tile_bytes));
    for (int i = 0; i < r->net.n; i++) {
        const mpt_layer *l = &r->net.layers[i];
        json_t *per = json_object();
        for (int c = 0; c < MPT_CONFIG_COUNT; c++)
            json_object_set_new(per, mpt_config_name((mpt_config)c), time_json(&r->per[c][i], l));
        json_array_append_new(
            layers, json_pack("{s:s,s:s,s:i,s:i,s:[i,i],s:[i,i],s:i,s:b,s:b,s:i,s:o}", "name",
                              l->name, "kind", l->fc ? "fc" : "conv", "in_channels", l->in_c,
                              "out_channels", l->out_c, "size", l->out_h, l->out_w, "kernel",
                              l->k_h, l->k_w, "stride", l->stride, "winograd", l->wino,
                              "relu_after", l->relu_after, "join_size", l->join_size,
                              "configs", per));
    }
    return json_pack("{s:s,s:s,s:o,s:o,s:o}", "target", r->net.name, "kind",
                     r->is_layer ? "layer" : "model", "system", sys_json(&r->sys), "configs",
                     cfgs, "layers", layers);
}
