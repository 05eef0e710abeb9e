/*
 * sharding3d.c - a Megatron-LM configuration (tp x pp x dp) as JAX
 * PartitionSpecs or PyTorch DTensor placements on named mesh axes
 * ("data", "model"), one entry per op of the transformer
 * (dnp_config3d_export_text in dnnpar/config3d.h; docs/reports.md
 * "Exports of a Megatron-LM configuration").
 *
 * It writes the configuration's strategy (plan/strategy.h, made by
 * c3_strategy_of in sim/config3d_stages.c): each op's stage and the loop
 * dimensions it splits over "model".  That follows the simulator's own
 * reading of the configuration (c3_tp_role_at, through c3_strategy_of):
 * Shoeybi et al. 2019, section 3 (column- and row-parallel GEMMs, attention split by heads,
 * the vocabulary-parallel embedding) and Korthikanti et al. 2022, section
 * 4.2.2 (sequence parallelism: the norms, dropouts and residuals split
 * over the sequence).  Pipeline stages are not a sharding: each op is
 * listed with its stage, and each stage is its own dp x tp mesh.
 *
 * Ownership: the returned text is the caller's (dnp_free); g, c and cfg
 * are only read.
 */
#include "dnnpar.h"
#include "core/rbuf.h"
#include "report/report.h"
#include "plan/strategy.h"
#include "sim/config3d_stages.h"

#include <stdio.h>
#include <string.h>

/* One spec on st's mesh (data, model) through the exports' one spec
 * writer (report_put_spec): a tensor of `rank` dims whose dim `batch_dim`
 * is split over data (-1: none) and dim `model_dim` over model (-1:
 * none). */
static void spec(rbuf *b, const plan_strategy *st, int jax, int rank, int batch_dim,
                 int model_dim)
{
    unsigned dim_axes[4] = {0u, 0u, 0u, 0u};
    if (batch_dim >= 0 && batch_dim < rank)
        dim_axes[batch_dim] |= 1u << 0;
    if (model_dim >= 0 && model_dim < rank)
        dim_axes[model_dim] |= 1u << 1;
    report_put_spec(b, st, !jax, rank, dim_axes, 0u);
}

/* What tensor parallelism does to an op, read back from its strategy:
 * the loop dimension it splits over "model" (axis 1 of c3_strategy_of). */
typedef enum {
    TP_NONE = 0,
    TP_COLUMN,
    TP_ROW,
    TP_HEADS,
    TP_FEATURES,
    TP_VOCAB,
    TP_SEQUENCE
} tp_role;

static tp_role role_of(const plan_op *o)
{
    const unsigned model = 1u << 1;
    if (plan_op_axes(o, "n") & model)
        return TP_COLUMN;
    if (plan_op_axes(o, "c") & model)
        return (o->out_partial & model) ? TP_ROW : TP_FEATURES;
    if (plan_op_axes(o, "heads") & model)
        return TP_HEADS;
    if (plan_op_axes(o, "vocab") & model)
        return TP_VOCAB;
    if (plan_op_axes(o, "seq") & model)
        return TP_SEQUENCE;
    return TP_NONE;
}

static const char *role_text(tp_role r)
{
    switch (r) {
    case TP_COLUMN:
        return "column-parallel: output features over model";
    case TP_ROW:
        return "row-parallel: input features over model, output reduced";
    case TP_HEADS:
        return "heads over model";
    case TP_FEATURES:
        return "features over model";
    case TP_VOCAB:
        return "vocabulary over model";
    case TP_SEQUENCE:
        return "sequence over model (sequence parallelism)";
    default:
        return "replicated over model";
    }
}

/* The activation layout (N, S, F) as the op's neighbours see it: with
 * sequence parallelism split over the sequence, else replicated. */
static void act(rbuf *b, const plan_strategy *st, int jax, int seq_par)
{
    spec(b, st, jax, 3, 0, seq_par ? 1 : -1);
}

dnp_status dnp_config3d_export_text(dnp_export_format f, const dnp_graph *g,
                                    const dnp_cluster *c, int64_t batch,
                                    dnp_precision precision, const dnp_config3d *cfg,
                                    char **out, dnp_error *err)
{
    *out = NULL;
    if (f != DNP_EXPORT_JAX && f != DNP_EXPORT_DTENSOR) {
        dnp_error_set(err, DNP_ERR_INPUT, "a Megatron-LM configuration exports as jax, dtensor "
                                          "or megatron, not %s",
                      dnp_export_name(f));
        return DNP_ERR_INPUT;
    }
    plan_strategy *st = NULL;
    dnp_status status = c3_strategy_of(g, c, cfg, batch, &st, err);
    if (status != DNP_OK)
        return status;
    const int jax = f == DNP_EXPORT_JAX, sp = cfg->seq_par != 0;
    char *spec_text = dnp_cluster_spec(c);
    char cfg_text[256];
    dnp_config3d_format(cfg, cfg_text, sizeof cfg_text);
    rbuf b;
    rbuf_init(&b);
    if (jax)
        rbuf_printf(&b, "# dnnpar %s export: JAX PartitionSpec of every tensor of a Megatron-LM "
                        "configuration\n# Target: JAX >= 0.4.1 (jax.sharding.Mesh, "
                        "PartitionSpec; use with NamedSharding or pjit).\n",
                    DNP_VERSION);
    else
        rbuf_printf(&b, "# dnnpar %s export: PyTorch DTensor placements of every tensor of a "
                        "Megatron-LM configuration\n# Target: PyTorch >= 2.4 "
                        "(torch.distributed.tensor: Shard, Replicate; init_device_mesh).\n",
                    DNP_VERSION);
    rbuf_puts(&b, "# model ");
    rbuf_put_escaped(&b, dnp_graph_name(g), ESC_TEXT);
    rbuf_printf(&b, ", batch %lld, cluster %s, precision %s\n", (long long)batch,
                spec_text != NULL ? spec_text : "?",
                precision == DNP_PREC_DEFAULT ? "the devices' dtype"
                                              : dnp_precision_name(precision));
    dnp_free(spec_text);
    rbuf_printf(&b, "# configuration %s\n#\n", cfg_text);
    rbuf_printf(&b,
                "# Mesh: (\"data\", \"model\") = (%d, %d) per pipeline stage; ranks in Megatron-LM's "
                "order,\n# tensor fastest, then data, then pipeline: stage s holds ranks "
                "[s x %d, (s + 1) x %d).\n",
                st->axis[0].size, st->axis[1].size, (int)st->stage[0].n_ranks,
                (int)st->stage[0].n_ranks);
    if (st->n_stages > 1)
        rbuf_printf(&b,
                    "# Pipeline: %d stages%s; a stage is a schedule, not a sharding: each op below "
                    "names its\n# stage and runs on that stage's mesh (1F1B%s as simulated: "
                    "the pipeline runner is the\n# framework's, e.g. torch.distributed.pipelining; "
                    "JAX has none built in).\n",
                    st->n_stages, cfg->interleave > 1 ? " of interleaved chunks" : "",
                    cfg->interleave > 1 ? ", interleaved" : "");
    rbuf_puts(&b, "# Tensor layouts: activations (N, S, F); attention (N, heads, S, S|head_dim); "
                  "token ids (N, S);\n");
    if (jax)
        rbuf_puts(&b, "#   dense kernel (in, out) as flax.linen.Dense; embedding table (vocab, "
                      "dim).\n");
    else
        rbuf_puts(&b, "#   nn.Linear weight (out, in); nn.Embedding weight (vocab, dim).\n");
    rbuf_puts(&b, "# Weights are replicated over \"data\", their gradients summed over it");
    if (cfg->zero >= 1)
        rbuf_printf(&b, ";\n# ZeRO-%d shards the optimizer state%s over it", cfg->zero,
                    cfg->zero >= 2 ? cfg->zero >= 3 ? ", gradients and weights"
                                                    : " and gradients"
                                   : "");
    rbuf_puts(&b, ".\n# A row-parallel output is a partial sum until its all-reduce");
    if (sp)
        rbuf_puts(&b, " (with sequence parallelism a\n# reduce-scatter over the sequence; the "
                      "column-parallel input is all-gathered from it)");
    rbuf_puts(&b, "; the spec\n# is the tensor after it, as the next op reads it.\n#\n");
    if (jax)
        rbuf_printf(&b, "from jax.sharding import PartitionSpec as P\n\nMESH_AXES = (\"data\", "
                        "\"model\")\nMESH_SHAPE = (%d, %d)\n# mesh = jax.sharding.Mesh(numpy.array("
                        "stage_devices).reshape(MESH_SHAPE), MESH_AXES)\n\nSPECS = {\n",
                    st->axis[0].size, st->axis[1].size);
    else
        rbuf_printf(&b, "from torch.distributed.tensor import Replicate, Shard\n\nMESH_DIM_NAMES "
                        "= (\"data\", \"model\")\nMESH_SHAPE = (%d, %d)\n# mesh = torch."
                        "distributed.device_mesh.init_device_mesh(\"cuda\", MESH_SHAPE, "
                        "mesh_dim_names=MESH_DIM_NAMES)\n\nPLACEMENTS = {\n",
                    st->axis[0].size, st->axis[1].size);
    for (int i = 0; i < st->n_ops; i++) {
        const plan_op *o = &st->ops[i];
        const dnp_op *op = dnp_graph_op(g, o->op);
        tp_role r = role_of(o);
        rbuf_puts(&b, "    \"");
        rbuf_put_escaped(&b, op->name, ESC_PYTHON);
        rbuf_printf(&b, "\": {  # %s, %s; stage %d\n", dnp_op_kind_name(op->kind),
                    role_text(r), o->stage);
        const int wdim_out = jax ? 1 : 0, wdim_in = jax ? 0 : 1; /* kernel (in, out) | (out, in) */
        switch (r) {
        case TP_COLUMN:
            rbuf_puts(&b, "        \"input\": ");
            spec(&b, st, jax, 3, 0, -1);
            rbuf_puts(&b, ",\n        \"weight\": ");
            spec(&b, st, jax, 2, -1, wdim_out);
            rbuf_puts(&b, ",\n        \"output\": ");
            spec(&b, st, jax, 3, 0, 2);
            break;
        case TP_ROW:
            rbuf_puts(&b, "        \"input\": ");
            spec(&b, st, jax, 3, 0, 2);
            rbuf_puts(&b, ",\n        \"weight\": ");
            spec(&b, st, jax, 2, -1, wdim_in);
            rbuf_puts(&b, ",\n        \"output\": ");
            act(&b, st, jax, sp);
            break;
        case TP_HEADS:
            rbuf_puts(&b, "        \"output\": ");
            spec(&b, st, jax, 4, 0, 1);
            break;
        case TP_FEATURES:
            rbuf_puts(&b, "        \"output\": ");
            spec(&b, st, jax, 3, 0, 2);
            break;
        case TP_VOCAB:
            if (op->kind == DNP_OP_EMBEDDING) {
                rbuf_puts(&b, "        \"input\": ");
                spec(&b, st, jax, 2, 0, -1);
                rbuf_puts(&b, ",\n        \"weight\": ");
                spec(&b, st, jax, 2, -1, 0);
                rbuf_puts(&b, ",\n        \"output\": ");
                act(&b, st, jax, sp);
            } else { /* the logits against the tied table */
                rbuf_puts(&b, "        \"output\": ");
                spec(&b, st, jax, 3, 0, 2);
            }
            break;
        default: /* replicated or sequence-split with its neighbours */
            if (op->kind == DNP_OP_FC || op->kind == DNP_OP_LAYERNORM ||
                op->param_elems > 0) {
                /* a table (learned positions, token types) or a vector (a norm's
                 * scale and shift, a bias) */
                int wrank =
                    op->kind == DNP_OP_FC || op->param_elems > 2 * dnp_op_out_view(op).c ? 2 : 1;
                rbuf_puts(&b, "        \"weight\": ");
                spec(&b, st, jax, wrank, -1, -1);
                rbuf_puts(&b, ",\n");
            }
            rbuf_puts(&b, "        \"output\": ");
            const dnp_shape ov = dnp_op_out_view(op);
            if (ov.h == 1 && ov.c > 0 && op->kind == DNP_OP_FC)
                spec(&b, st, jax, 2, 0, -1); /* the pooler: one token */
            else
                act(&b, st, jax, r == TP_SEQUENCE);
            break;
        }
        rbuf_puts(&b, ",\n    },\n");
    }
    rbuf_puts(&b, "}\n");
    plan_strategy_free(st);
    *out = rbuf_take(&b);
    if (*out == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the sharding export");
        return DNP_ERR_NOMEM;
    }
    return DNP_OK;
}
