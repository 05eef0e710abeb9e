/*
 * sf_program.c - instruction-block programs (section 5): a model's phase
 * on an engine of n cores as a sequence of instruction blocks.
 *
 * One block is one engine step: the memory instruction block of some
 * sublayers (their loads, and after computing their stores) and their
 * computing instruction block; its duration follows Eq. 6.  CONV: the
 * cores take consecutive sublayers in loop order, one each into their
 * private local stores, and compute in lockstep, so a step holds n
 * sublayers and lasts as long as the slowest (C_time = ceil(pairs / N_c)
 * R C K^2 / freq when one tile covers the map).  FC: the cores share each
 * Tnn x Tnn tile's Tn x Tn sub-blocks, so a step is one sublayer of
 * ceil(sub-blocks / n) cycles (F_time = ceil(ceil(M1/Tn) ceil(N1/Tn) /
 * N_f) / freq for one tile).  Grouping n FC tiles per step instead would
 * load up to n x 32 KB at once and leave the channel idle at layer ends
 * (DBN-M on MonoArch lost 9% that way).  Steps never straddle layers.  With max_blocks > 0,
 * consecutive steps of a layer are merged (cycles and bytes add) so that a layer has at most
 * max_blocks blocks; that only coarsens double buffering and makes long
 * simulations cheap.
 */
#include "arch/synergyflow/synergyflow.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    sf_block_run *v;
    int n, cap;
    int cycles_only; /* just add up cycles (no allocation) */
    int64_t cycles;
} run_list;

static int same_block(const sf_block_run *a, const sf_block_run *b)
{
    return a->load_bytes == b->load_bytes && a->store_bytes == b->store_bytes &&
           a->cycles == b->cycles && a->ops == b->ops && a->load_instrs == b->load_instrs &&
           a->store_instrs == b->store_instrs && a->layer == b->layer;
}

/* Append `count` copies of block b, merging with an equal last entry. */
static int push(run_list *l, const sf_block_run *b, int64_t count)
{
    if (count <= 0)
        return 0;
    if (l->cycles_only) {
        l->cycles += count * b->cycles;
        return 0;
    }
    if (l->n > 0 && same_block(&l->v[l->n - 1], b)) {
        l->v[l->n - 1].count += count;
        return 0;
    }
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        sf_block_run *g = dnp_realloc(l->v, (size_t)cap * sizeof *g);
        if (g == NULL)
            return -1;
        l->v = g;
        l->cap = cap;
    }
    l->v[l->n] = *b;
    l->v[l->n].count = count;
    l->n++;
    return 0;
}

/* `k` copies of block b added into acc (cycles add: steps run in turn). */
static void add_into(sf_block_run *acc, const sf_block_run *b, int64_t k)
{
    acc->load_bytes += (double)k * b->load_bytes;
    acc->store_bytes += (double)k * b->store_bytes;
    acc->cycles += k * b->cycles;
    acc->ops += (double)k * b->ops;
    acc->load_instrs += k * b->load_instrs;
    acc->store_instrs += k * b->store_instrs;
}

/* FC steps: one sublayer each, its sub-blocks spread over the cores. */
static int fc_steps(const sf_sublayer_run *runs, int n_runs, int cores, double dw, int layer,
                    run_list *steps)
{
    for (int r = 0; r < n_runs; r++) {
        const sf_sublayer_run *s = &runs[r];
        sf_block_run one = {0,
                            dw * (double)s->load_words,
                            dw * (double)s->store_words,
                            (s->cycles + cores - 1) / cores,
                            2.0 * (double)s->macs,
                            s->load_instrs,
                            s->store_instrs,
                            layer};
        if (push(steps, &one, s->count) != 0)
            return -1;
    }
    return 0;
}

/* CONV steps: `cores` consecutive sublayers each, one per core, in
 * lockstep (the step lasts as long as its slowest sublayer). */
static int conv_steps(const sf_sublayer_run *runs, int n_runs, int cores, double dw, int layer,
                      run_list *steps)
{
    sf_block_run acc;
    int64_t in_acc = 0;
    memset(&acc, 0, sizeof acc);
    acc.layer = layer;
    for (int r = 0; r < n_runs; r++) {
        const sf_sublayer_run *s = &runs[r];
        sf_block_run one = {0,
                            dw * (double)s->load_words,
                            dw * (double)s->store_words,
                            s->cycles,
                            2.0 * (double)s->macs,
                            s->load_instrs,
                            s->store_instrs,
                            layer};
        int64_t c = s->count;
        while (c > 0) {
            if (in_acc == 0 && c >= cores) {
                /* Whole steps inside the run: `cores` equal sublayers each. */
                sf_block_run full;
                memset(&full, 0, sizeof full);
                full.layer = layer;
                add_into(&full, &one, cores);
                full.cycles = s->cycles;
                if (push(steps, &full, c / cores) != 0)
                    return -1;
                c %= cores;
                continue;
            }
            int64_t take = cores - in_acc < c ? cores - in_acc : c;
            int64_t cyc = acc.cycles > s->cycles ? acc.cycles : s->cycles;
            add_into(&acc, &one, take);
            acc.cycles = cyc;
            in_acc += take;
            c -= take;
            if (in_acc == cores) {
                if (push(steps, &acc, 1) != 0)
                    return -1;
                memset(&acc, 0, sizeof acc);
                acc.layer = layer;
                in_acc = 0;
            }
        }
    }
    if (in_acc > 0 && push(steps, &acc, 1) != 0)
        return -1;
    return 0;
}

/* Merge steps into blocks of `group` consecutive steps each. */
static int merge_steps(const run_list *steps, int64_t group, run_list *out)
{
    sf_block_run acc;
    int64_t in_acc = 0;
    memset(&acc, 0, sizeof acc);
    for (int r = 0; r < steps->n; r++) {
        const sf_block_run *s = &steps->v[r];
        int64_t k = s->count;
        acc.layer = s->layer;
        while (k > 0) {
            if (in_acc == 0 && k >= group) {
                sf_block_run whole;
                memset(&whole, 0, sizeof whole);
                whole.layer = s->layer;
                add_into(&whole, s, group);
                if (push(out, &whole, k / group) != 0)
                    return -1;
                k %= group;
                continue;
            }
            int64_t take = group - in_acc < k ? group - in_acc : k;
            add_into(&acc, s, take);
            in_acc += take;
            k -= take;
            if (in_acc == group) {
                if (push(out, &acc, 1) != 0)
                    return -1;
                memset(&acc, 0, sizeof acc);
                in_acc = 0;
            }
        }
    }
    if (in_acc > 0 && push(out, &acc, 1) != 0)
        return -1;
    return 0;
}

static int append_all(run_list *dst, const run_list *src)
{
    for (int i = 0; i < src->n; i++)
        if (push(dst, &src->v[i], src->v[i].count) != 0)
            return -1;
    return 0;
}

/* Steps of one layer's runs on `cores` cores, then their cycles summed. */
int64_t sf_runs_cycles(const sf_sublayer_run *runs, int n_runs, int cores, int is_fc)
{
    run_list steps = {NULL, 0, 0, 1, 0};
    int rc = is_fc ? fc_steps(runs, n_runs, cores, 1.0, 0, &steps)
                   : conv_steps(runs, n_runs, cores, 1.0, 0, &steps);
    return rc == 0 ? steps.cycles : -1;
}

/* Layers of the phase's kind, forward for FF, backward for BP and GD. */
dnp_status sf_program_build(const sf_model *m, sf_phase ph, const sf_platform *p, int cores,
                            int max_blocks, sf_program *out, dnp_error *err)
{
    run_list prog = {NULL, 0, 0, 0, 0}, steps = {NULL, 0, 0, 0, 0}, merged = {NULL, 0, 0, 0, 0};
    sf_sublayer_run *runs = NULL;
    dnp_status st = DNP_OK;
    int64_t sublayers = 0;
    sf_layer_kind kind = sf_phase_is_conv(ph) ? SF_CONV : SF_FC;
    int forward = ph == SF_FF_C || ph == SF_FF_F;
    for (int t = 0; t < m->n_layers; t++) {
        int li = forward ? t : m->n_layers - 1 - t;
        const sf_layer *l = &m->layers[li];
        if (l->kind != kind)
            continue;
        if (cores <= 0) {
            dnp_error_set(err, DNP_ERR_INPUT, "%s of %s needs an engine with cores, got %d",
                          sf_phase_name(ph), m->name, cores);
            st = DNP_ERR_INPUT;
            goto done;
        }
        int n_runs = 0;
        if ((st = sf_layer_sublayers(l, ph, p, &runs, &n_runs, err)) != DNP_OK)
            goto done;
        for (int r = 0; r < n_runs; r++)
            sublayers += runs[r].count;
        steps.n = merged.n = 0;
        int rc = kind == SF_CONV ? conv_steps(runs, n_runs, cores, (double)p->dw_bytes, li, &steps)
                                 : fc_steps(runs, n_runs, cores, (double)p->dw_bytes, li, &steps);
        if (rc != 0)
            goto nomem;
        dnp_free(runs);
        runs = NULL;
        int64_t n_steps = 0;
        for (int r = 0; r < steps.n; r++)
            n_steps += steps.v[r].count;
        const run_list *use = &steps;
        if (max_blocks > 0 && n_steps > max_blocks) {
            if (merge_steps(&steps, (n_steps + max_blocks - 1) / max_blocks, &merged) != 0)
                goto nomem;
            use = &merged;
        }
        if (append_all(&prog, use) != 0)
            goto nomem;
    }
    memset(out, 0, sizeof *out);
    out->runs = prog.v;
    out->n_runs = prog.n;
    out->sublayers = sublayers;
    for (int r = 0; r < prog.n; r++) {
        const sf_block_run *b = &prog.v[r];
        out->n_blocks += b->count;
        out->load_bytes += (double)b->count * b->load_bytes;
        out->store_bytes += (double)b->count * b->store_bytes;
        out->ops += (double)b->count * b->ops;
        out->cycles += b->count * b->cycles;
    }
    prog.v = NULL;
    goto done;
nomem:
    dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building the %s program of %s",
                  sf_phase_name(ph), m->name);
    st = DNP_ERR_NOMEM;
done:
    dnp_free(runs);
    dnp_free(prog.v);
    dnp_free(steps.v);
    dnp_free(merged.v);
    return st;
}

void sf_program_free(sf_program *pr)
{
    if (pr == NULL)
        return;
    dnp_free(pr->runs);
    memset(pr, 0, sizeof *pr);
}
