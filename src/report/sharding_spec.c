/*
 * sharding_spec.c - one tensor's sharding on a strategy's mesh as JAX or
 * PyTorch DTensor source text, the one spec writer of both sharding
 * exports (export.c: AccPar's tree on axes h0, h1, ...; sharding3d.c: a
 * Megatron-LM configuration on ("data", "model")); report/report.h.
 *
 * JAX: jax.sharding.PartitionSpec lists, per tensor dimension, the mesh
 * axis names sharding it (None, "a", or ("a", "b") for several, major
 * first).  DTensor: torch.distributed.tensor placements list, per mesh
 * dimension, Shard(d) for the tensor dimension it shards, Partial() where
 * the tensor is a partial sum over it, else Replicate() (PyTorch >= 2.4).
 */
#include "report/report.h"
#include "plan/strategy.h"

/* The names of the axes in `axes` as a Python value: None, "a" or
 * ("a", "b"). */
static void put_axes_py(rbuf *b, const plan_strategy *s, unsigned axes)
{
    int n = 0;
    for (int k = 0; k < s->n_axes; k++)
        n += (axes >> k) & 1u;
    if (n == 0) {
        rbuf_puts(b, "None");
        return;
    }
    if (n > 1)
        rbuf_puts(b, "(");
    int first = 1;
    for (int k = 0; k < s->n_axes; k++)
        if ((axes >> k) & 1u) {
            rbuf_printf(b, "%s\"", first ? "" : ", ");
            rbuf_put_escaped(b, s->axis[k].name, ESC_PYTHON);
            rbuf_puts(b, "\"");
            first = 0;
        }
    if (n > 1)
        rbuf_puts(b, ")");
}

void report_put_spec(rbuf *b, const plan_strategy *s, int torch, int rank,
                     const unsigned *dim_axes, unsigned partial)
{
    if (!torch) {
        rbuf_puts(b, "P(");
        for (int i = 0; i < rank; i++) {
            if (i > 0)
                rbuf_puts(b, ", ");
            put_axes_py(b, s, dim_axes[i]);
        }
        rbuf_puts(b, ")");
        return;
    }
    rbuf_puts(b, "(");
    for (int k = 0; k < s->n_axes; k++) {
        int d = -1;
        for (int i = 0; i < rank; i++)
            if ((dim_axes[i] >> k) & 1u)
                d = i;
        if (k > 0)
            rbuf_puts(b, ", ");
        if (d >= 0)
            rbuf_printf(b, "Shard(%d)", d);
        else if ((partial >> k) & 1u)
            rbuf_puts(b, "Partial()");
        else
            rbuf_puts(b, "Replicate()");
    }
    rbuf_puts(b, s->n_axes == 1 ? ",)" : ")");
}
