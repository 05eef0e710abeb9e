/*
 * megatron_args.c - a Megatron-LM configuration as the command-line
 * arguments of Megatron-LM's pretrain_gpt.py / pretrain_bert.py
 * (megatron/training/arguments.py names), docs/config3d.md "Export".
 */
#include "dnnpar.h"
#include "report/report.h"
#include "sim/config3d_int.h"
#include "perf/device_model.h"

#include <stdio.h>
#include <string.h>

dnp_status dnp_megatron_args(const dnp_graph *g, const dnp_cluster *c, int64_t batch,
                             dnp_precision precision, const dnp_config3d *cfg, char **out,
                             dnp_error *err)
{
    c3_shape t;
    dnp_error serr = {0};
    dnp_status sst = c3_shape_read(g, &t, &serr);
    if (sst == DNP_ERR_NOMEM) {
        dnp_error_set(err, sst, "%s", serr.msg);
        return sst;
    }
    if (sst != DNP_OK) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "--format megatron needs a transformer from the zoo (gpt(...), bert(...), "
                      "llama(...) or a preset); '%s' is not one",
                      dnp_graph_name(g));
        return DNP_ERR_INPUT;
    }
    if (cfg->zero >= 2 || cfg->gpipe) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "--format megatron: Megatron-LM has no %s (ZeRO-1 maps to "
                      "--use-distributed-optimizer; use DeepSpeed or FSDP for ZeRO-2/3)",
                      cfg->gpipe ? "GPipe schedule" : "ZeRO-2/3 option in this export");
        return DNP_ERR_INPUT;
    }
    /* the precision simulated: the default is each device type's dtype
     * (perf_rates_get); Megatron-LM takes one for every rank, so a cluster
     * whose types differ trains in fp16 if any type has no bf16 (V100,
     * T4), as a stack would launch it */
    const int given = precision != DNP_PREC_DEFAULT;
    if (!given) {
        int any_16 = 0, all_bf16 = c->n_types > 0;
        for (int k = 0; k < c->n_types; k++) {
            dnp_precision p = perf_dtype_precision(c->types[k].dtype);
            any_16 |= p == DNP_PREC_FP16 || p == DNP_PREC_BF16;
            all_bf16 &= p == DNP_PREC_BF16;
        }
        precision = all_bf16 ? DNP_PREC_BF16 : any_16 ? DNP_PREC_FP16 : DNP_PREC_FP32;
    }
    char *spec = dnp_cluster_spec(c);
    if (spec == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the Megatron-LM arguments");
        return DNP_ERR_NOMEM;
    }
    rbuf b;
    rbuf_init(&b);
    rbuf_printf(&b, "# dnnpar %s export: Megatron-LM arguments (%s)\n", DNP_VERSION,
                t.bert ? "pretrain_bert.py" : "pretrain_gpt.py");
    rbuf_puts(&b, "# model ");
    rbuf_put_escaped(&b, dnp_graph_name(g), ESC_TEXT);
    rbuf_puts(&b, ", cluster ");
    rbuf_puts(&b, spec);
    rbuf_printf(&b, ", global batch %lld\n", (long long)batch);
    dnp_free(spec);
    rbuf_printf(&b, "# data parallelism is what is left: %d x %d x %d = %lld devices; the "
                    "launcher (torchrun) sets the world size\n",
                cfg->tp, cfg->pp, cfg->dp, (long long)cfg->tp * cfg->pp * cfg->dp);
    rbuf_printf(&b, "# the tokenizer sets the vocabulary (%lld in this model)\n",
                (long long)t.vocab);
    rbuf_printf(&b, "# precision %s%s\n", dnp_precision_name(precision),
                given ? " (--precision)"
                      : " (the devices' dtype, as simulated; --precision to choose)");
    /* the launcher: torchrun on every host, one process per device
     * (PyTorch's torchrun options; Megatron-LM's examples launch so) */
    int64_t q = 0;
    int same_q = 1;
    for (int k = 0; k < c->n_types; k++) {
        int64_t qk = c->types[k].devices_per_node > 1 ? c->types[k].devices_per_node : 1;
        same_q &= k == 0 || qk == q;
        q = k == 0 ? qk : q;
    }
    const int64_t devices = (int64_t)cfg->tp * cfg->pp * cfg->dp;
    if (same_q && q > 0)
        rbuf_printf(&b, "# launch on every host (the lines below that are not comments are "
                        "ARGS):\n#   torchrun --nnodes %lld --nproc-per-node %lld --node-rank "
                        "$NODE_RANK \\\n#     --master-addr $MASTER_ADDR --master-port 6000 %s "
                        "ARGS\n",
                    (long long)((devices + q - 1) / q), (long long)q,
                    t.bert ? "pretrain_bert.py" : "pretrain_gpt.py");
    else
        rbuf_printf(&b, "# launch: torchrun on every host with --nproc-per-node its devices "
                        "(the types' hosts differ), --nnodes the hosts, then %s and these "
                        "arguments\n",
                    t.bert ? "pretrain_bert.py" : "pretrain_gpt.py");
    if (c->n_types > 1) {
        /* ranks go to hosts in the launcher's order; stage s holds ranks
         * [s tp dp, (s + 1) tp dp) (docs/config3d.md, "Mixed clusters") */
        rbuf_puts(&b, "# mixed cluster: list the hosts in this order so that each pipeline stage "
                      "runs on its device type:");
        for (int i = 0; i < c->n_types; i++)
            rbuf_printf(&b, "%s %lld %s", i ? "," : "", (long long)c->counts[i], c->types[i].name);
        rbuf_puts(&b, "\n");
    }
    if (cfg->n_stage_layers > 0)
        rbuf_puts(&b, "# uneven stages use --pipeline-model-parallel-layout, an experimental "
                      "Megatron-Core option\n");
    if (cfg->tp_overlap)
        rbuf_puts(&b, "# --tp-comm-overlap needs Transformer Engine with userbuffers "
                      "(--transformer-impl transformer_engine)\n");
    if (cfg->vp_group > 0)
        rbuf_puts(&b, "# --microbatch-group-size-per-virtual-pipeline-stage needs Megatron-Core "
                      "core_r0.10.0 or later\n");
    /* model */
    rbuf_printf(&b, "--num-layers %d\n--hidden-size %lld\n--ffn-hidden-size %lld\n"
                    "--num-attention-heads %lld\n--seq-length %lld\n"
                    "--max-position-embeddings %lld\n",
                t.layers, (long long)t.hidden, (long long)t.ffn, (long long)t.heads,
                (long long)t.seq, (long long)t.positions);
    /* an output layer of its own: --untie-embeddings-and-output-weights
     * (Megatron-LM ties it to the word embedding unless told) */
    if (t.llama) {
        rbuf_printf(&b, "--swiglu\n--normalization RMSNorm\n--position-embedding-type rope\n"
                        "%s--disable-bias-linear\n",
                    t.untied ? "--untie-embeddings-and-output-weights\n" : "");
        if (t.kv_heads != t.heads)
            rbuf_printf(&b, "--group-query-attention\n--num-query-groups %lld\n",
                        (long long)t.kv_heads);
    } else if (t.untied) {
        rbuf_puts(&b, "--untie-embeddings-and-output-weights\n");
    }
    /* dropout as modelled (Megatron-LM's defaults are 0.1 for both, which
     * a model trained without dropout, such as LLaMA, must turn off) */
    rbuf_printf(&b, "--attention-dropout %g\n--hidden-dropout %g\n", t.attn_dropout,
                t.hidden_dropout);
    /* the attention core as simulated: one fused (flash) kernel or the
     * unfused products and softmax (Megatron-LM's AttnBackend) */
    rbuf_printf(&b, "--attention-backend %s\n", t.flash ? "flash" : "unfused");
    /* parallelism */
    rbuf_printf(&b, "--tensor-model-parallel-size %d\n--pipeline-model-parallel-size %d\n",
                cfg->tp, cfg->pp);
    if (cfg->interleave > 1)
        rbuf_printf(&b, "--num-layers-per-virtual-pipeline-stage %d\n",
                    t.layers / (cfg->pp * cfg->interleave));
    if (cfg->n_stage_layers > 0) {
        /* uneven stages: Megatron-Core's --pipeline-model-parallel-layout
         * (experimental; stages split by '|', E the embedding, t a decoder
         * layer, L the loss; NVIDIA Megatron Core user guide, "Custom
         * Pipeline Model Parallel Layout") */
        rbuf_puts(&b, "--pipeline-model-parallel-layout \"");
        for (int s = 0; s < cfg->n_stage_layers; s++)
            rbuf_printf(&b, "%s%st*%d%s", s ? "|" : "", s == 0 ? "E" : "", cfg->stage_layers[s],
                        s == cfg->n_stage_layers - 1 ? ",L" : "");
        rbuf_puts(&b, "\"\n");
    }
    if (cfg->vp_group > 0) /* micro-batch groups (Megatron-Core core_r0.10.0 on) */
        rbuf_printf(&b, "--microbatch-group-size-per-virtual-pipeline-stage %d\n",
                    cfg->vp_group);
    if (cfg->seq_par)
        rbuf_puts(&b, "--sequence-parallel\n");
    if (cfg->tp_overlap) /* Transformer Engine userbuffers; needs --sequence-parallel */
        rbuf_puts(&b, "--tp-comm-overlap\n");
    if (cfg->zero == 1) /* optimizer state sharded over data parallelism */
        rbuf_puts(&b, "--use-distributed-optimizer\n");
    /* the overlaps of the data-parallel traffic (megatron/training/arguments.py:
     * --overlap-param-gather needs the distributed optimizer and
     * --overlap-grad-reduce) */
    if (cfg->overlap_grad)
        rbuf_puts(&b, "--overlap-grad-reduce\n");
    if (cfg->overlap_param)
        rbuf_puts(&b, "--overlap-param-gather\n");
    rbuf_printf(&b, "--micro-batch-size %lld\n--global-batch-size %lld\n",
                (long long)cfg->microbatch, (long long)batch);
    if (cfg->recompute == DNP_RECOMPUTE_SELECTIVE)
        rbuf_puts(&b, "--recompute-granularity selective\n");
    else if (cfg->recompute == DNP_RECOMPUTE_FULL)
        rbuf_puts(&b, "--recompute-granularity full\n--recompute-method uniform\n"
                      "--recompute-num-layers 1\n");
    if (precision == DNP_PREC_FP16 || precision == DNP_PREC_AMP)
        rbuf_puts(&b, "--fp16\n");
    else if (precision == DNP_PREC_BF16)
        rbuf_puts(&b, "--bf16\n");
    /* without --fp16/--bf16 Megatron-LM trains in fp32 (fp32 or tf32 as
     * simulated: nothing to add) */
    char *text = rbuf_take(&b);
    if (text == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the Megatron-LM arguments");
        return DNP_ERR_NOMEM;
    }
    *out = text;
    return DNP_OK;
}
