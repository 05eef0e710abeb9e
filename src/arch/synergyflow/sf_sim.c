/*
 * sf_sim.c - event-driven simulation of MonoArch, ATA and SynergyFlow at
 * instruction-block granularity (sections 4.1 and 5).
 *
 * Tasks.  Every instance runs macro instructions (section 4.1): inference
 * FF (CONV stage, then FC stage); training FF, BP (FC stage, then CONV
 * stage) and GD.  A task is one stage of one instance on one engine
 * (sf_phase); its work is the instruction-block program of sf_program.c.
 * Dependencies: FF.F after FF.C; BP.F after FF.F; GD.F and BP.C after
 * BP.F; GD.C after BP.C.  In training, an instance's FF.C also waits until
 * every instance of the previous batch of its model is done (weights
 * change once per batch).  Instances of a mix are interleaved in
 * proportion to their counts.
 *
 * Scheduling (Fig. 7).  Each engine takes ready tasks oldest instance
 * first, then in program order.  In order: only tasks of the oldest
 * unfinished instance may start ("only after the computations of the
 * current instance is totally completed can the computations regarding
 * the next instance be processed").  Out of order: any ready task, so the
 * C-Engine runs the CONV layers of later instances while the F-Engine
 * works on earlier ones.  MonoArch (one engine of all cores, "layers in
 * turn") always runs in order.
 *
 * Engines.  Double buffering (section 3.1): an engine has two buffers; the
 * memory instruction block (loads) of block b may run while block b - 1
 * computes; a computing instruction block starts when its loads are in
 * and the previous one has finished; its stores are queued when it ends,
 * and the buffer is free again when they are written.  Loads of the next
 * task may start while the current task's last block computes.
 * Memory traffic goes through the channel of sf_arbiter.c.
 */
#include "arch/synergyflow/sf_sim_internal.h"

#include <stdlib.h>
#include <string.h>

#define SF_SIM_MAX_INSTANCES 8000000LL

static int engine_of(const sf_sim *s, sf_phase ph)
{
    return (s->n_eng == 1 || sf_phase_is_conv(ph)) ? 0 : 1;
}

/* done[] bits: one per phase (sf_phase), and this one once the instance
 * has been counted complete. */
#define COUNTED 0x80u
_Static_assert(SF_N_PHASES <= 7, "phase bits must leave room for COUNTED");

static int instance_complete(const sf_sim *s, int64_t i)
{
    uint8_t need = s->cfg->training ? (uint8_t)((1u << SF_N_PHASES) - 1)
                                    : (uint8_t)((1u << SF_FF_C) | (1u << SF_FF_F));
    return (s->done[i] & need) == need;
}

static void make_ready(sf_sim *s, int64_t inst, sf_phase ph);

static void release_batch(sf_sim *s, int m, int64_t b)
{
    int64_t bs = s->cfg->batch_size, lo = b * bs, hi = lo + bs;
    if (hi > s->model_total[m])
        hi = s->model_total[m];
    for (int64_t r = lo; r < hi; r++)
        make_ready(s, s->inst_of[m][r], SF_FF_C);
}

static void instance_done(sf_sim *s, int64_t inst)
{
    s->completed++;
    while (s->oldest < s->n_inst && instance_complete(s, s->oldest))
        s->oldest++;
    if (!s->cfg->training)
        return;
    int m = s->model[inst];
    int64_t b = s->rank[inst] / s->cfg->batch_size;
    if (--s->batch_left[m][b] == 0 && (b + 1) * s->cfg->batch_size < s->model_total[m])
        release_batch(s, m, b + 1);
}

static void task_done(sf_sim *s, int64_t inst, sf_phase ph)
{
    s->done[inst] |= (uint8_t)(1u << ph);
    if (ph == SF_FF_C)
        make_ready(s, inst, SF_FF_F);
    else if (ph == SF_FF_F && s->cfg->training)
        make_ready(s, inst, SF_BP_F);
    else if (ph == SF_BP_F) {
        make_ready(s, inst, SF_GD_F);
        make_ready(s, inst, SF_BP_C);
    } else if (ph == SF_BP_C)
        make_ready(s, inst, SF_GD_C);
    /* A phase with no layers completes inside make_ready, so the instance
     * may have completed (and been counted) in a nested call already. */
    if (instance_complete(s, inst) && !(s->done[inst] & COUNTED)) {
        s->done[inst] |= COUNTED;
        instance_done(s, inst);
    }
}

/* A task whose predecessors are done: to its engine, or done at once if
 * the model has no layer for it (e.g. the CONV stages of DBN-M). */
static void make_ready(sf_sim *s, int64_t inst, sf_phase ph)
{
    if (s->prog[s->model[inst]][ph].n_blocks == 0) {
        task_done(s, inst, ph);
        return;
    }
    if (sf_key_push(&s->eng[engine_of(s, ph)].ready, inst * 8 + (int64_t)ph) != 0)
        s->failed = 1;
}

/* Start the next ready task on engine e if the scheduling rule allows. */
static int next_task(sf_sim *s, sf_engine *e)
{
    int64_t key = sf_key_top(&e->ready);
    if (key < 0 || e->n_open == 4)
        return 0;
    int64_t inst = key >> 3;
    if (s->in_order && inst != s->oldest)
        return 0;
    sf_key_pop(&e->ready);
    e->cur_key = key;
    e->cur_prog = &s->prog[s->model[inst]][key & 7];
    e->cur_run = 0;
    e->cur_rep = 0;
    if (e->n_open == 0)
        e->active_since_s = s->t_s;
    e->open[e->n_open].key = key;
    e->open[e->n_open].left = e->cur_prog->n_blocks;
    e->n_open++;
    e->st.tasks++;
    return 1;
}

/* Put the next block into free slot sl and issue its loads. */
static int fetch_block(sf_sim *s, int ei, sf_slot *sl)
{
    sf_engine *e = &s->eng[ei];
    if (e->cur_prog == NULL && !next_task(s, e))
        return 0;
    const sf_block_run *b = &e->cur_prog->runs[e->cur_run];
    sl->key = e->cur_key;
    sl->seq = e->next_seq++;
    sl->load_bytes = b->load_bytes;
    sl->store_bytes = b->store_bytes;
    sl->ops = b->ops;
    sl->cycles = b->cycles;
    if (++e->cur_rep == b->count) {
        e->cur_rep = 0;
        if (++e->cur_run == e->cur_prog->n_runs)
            e->cur_prog = NULL;
    }
    if (sl->load_bytes > 0) {
        sl->state = SF_SLOT_LOADING;
        if (sf_channel_request(s, ei, (int)(sl - e->slot), 0, sl->load_bytes, sl->key) != 0)
            s->failed = 1;
    } else {
        sl->state = SF_SLOT_LOADED;
    }
    return 1;
}

static void pump(sf_sim *s, int ei)
{
    sf_engine *e = &s->eng[ei];
    for (;;) {
        int progress = 0;
        sf_slot *sl = &e->slot[e->next_seq & 1];
        if (sl->state == SF_SLOT_EMPTY && fetch_block(s, ei, sl))
            progress = 1;
        sf_slot *c = &e->slot[e->compute_seq & 1];
        if (!e->computing && c->state == SF_SLOT_LOADED && c->seq == e->compute_seq) {
            c->state = SF_SLOT_COMPUTING;
            c->t_start_s = s->t_s;
            e->computing = 1;
            /* A computing instruction block lasts its cycles / freq (Eq. 6). */
            double end = s->t_s + (double)c->cycles / s->p->freq_hz;
            if (sf_event_push(&s->ev, end, SF_EV_COMPUTE, ei, 0) != 0)
                s->failed = 1;
            progress = 1;
        }
        if (!progress || s->failed)
            return;
    }
}

static void block_done(sf_sim *s, int ei, sf_slot *sl)
{
    sf_engine *e = &s->eng[ei];
    sl->state = SF_SLOT_EMPTY;
    for (int k = 0; k < e->n_open; k++) {
        if (e->open[k].key != sl->key)
            continue;
        if (--e->open[k].left == 0) {
            e->open[k] = e->open[--e->n_open];
            if (e->n_open == 0)
                e->st.active_s += s->t_s - e->active_since_s;
            task_done(s, sl->key >> 3, (sf_phase)(sl->key & 7));
        }
        return;
    }
    s->failed = 1; /* a block of no open task: a bug */
}

static void compute_done(sf_sim *s, int ei)
{
    sf_engine *e = &s->eng[ei];
    sf_slot *sl = &e->slot[e->compute_seq & 1];
    e->computing = 0;
    e->compute_seq++;
    e->st.busy_s += s->t_s - sl->t_start_s;
    e->st.ops += sl->ops;
    e->st.compute_blocks++;
    const sf_sim_sink *k = s->cfg->sink;
    if (k != NULL && k->compute != NULL) {
        int64_t inst = sl->key >> 3;
        k->compute(k->ctx, ei, sl->t_start_s, s->t_s, inst, s->model[inst],
                   (sf_phase)(sl->key & 7));
    }
    if (sl->store_bytes > 0) {
        sl->state = SF_SLOT_STORING;
        if (sf_channel_request(s, ei, (int)(sl - e->slot), 1, sl->store_bytes, sl->key) != 0)
            s->failed = 1;
    } else {
        block_done(s, ei, sl);
    }
}

void sf_sim_mem_done(sf_sim *s, int e, const sf_mem_req *r)
{
    sf_slot *sl = &s->eng[e].slot[r->slot];
    if (r->is_store)
        block_done(s, e, sl);
    else
        sl->state = SF_SLOT_LOADED;
}

void sf_sim_config_default(sf_sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->ooo = 1;
    c->epochs = 1;
    c->batch_size = 50; /* section 6.1: "The training batch size is set as 50" */
}

/* ---- setup ----------------------------------------------------------- */

static dnp_status check_config(const sf_workload *w, const sf_platform *p, const sf_sim_config *c,
                               dnp_error *err)
{
    dnp_status st = sf_platform_check(p, err);
    if (st != DNP_OK)
        return st;
    if (c->epochs < 1 || c->batch_size < 1 || c->max_blocks < 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "epochs and batch size must be positive, got %d and %d",
                      c->epochs, c->batch_size);
        return DNP_ERR_INPUT;
    }
    if (w->n_models < 1 || w->n_models > SF_MAX_MODELS) {
        dnp_error_set(err, DNP_ERR_INPUT, "a workload needs 1 to %d models", SF_MAX_MODELS);
        return DNP_ERR_INPUT;
    }
    int has_conv = 0, has_fc = 0;
    int64_t total = 0;
    for (int m = 0; m < w->n_models; m++) {
        for (int i = 0; i < w->models[m].n_layers; i++) {
            has_conv |= w->models[m].layers[i].kind == SF_CONV;
            has_fc |= w->models[m].layers[i].kind == SF_FC;
        }
        total += w->models[m].instances;
    }
    if (total * c->epochs > SF_SIM_MAX_INSTANCES) {
        dnp_error_set(err, DNP_ERR_INPUT,
                      "%lld instances x %d epochs is more than the simulator takes (%lld); "
                      "simulate a sample",
                      (long long)total, c->epochs, SF_SIM_MAX_INSTANCES);
        return DNP_ERR_INPUT;
    }
    if (c->mono)
        return DNP_OK;
    if (c->nc < 0 || c->nf < 0 || c->nc + c->nf > p->cores) {
        dnp_error_set(err, DNP_ERR_INPUT, "N_c + N_f = %d + %d = %d exceeds N = %d cores", c->nc,
                      c->nf, c->nc + c->nf, p->cores);
        return DNP_ERR_INPUT;
    }
    if (has_conv && c->nc == 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "the workload has CONV layers but N_c = 0");
        return DNP_ERR_INPUT;
    }
    if (has_fc && c->nf == 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "the workload has FC layers but N_f = 0");
        return DNP_ERR_INPUT;
    }
    return DNP_OK;
}

/* Interleave the models of one epoch in proportion to their counts: the
 * j-th instance of model m sits at (j + 1/2) / count_m, ties to the lower
 * model.  O(n x models). */
static void interleave(const sf_workload *w, uint8_t *order, int64_t n)
{
    int64_t placed[SF_MAX_MODELS] = {0};
    for (int64_t k = 0; k < n; k++) {
        int best = -1;
        for (int m = 0; m < w->n_models; m++) {
            if (placed[m] == w->models[m].instances)
                continue;
            /* (2 placed_m + 1) / count_m < (2 placed_b + 1) / count_b */
            if (best < 0 || (2 * placed[m] + 1) * w->models[best].instances <
                                (2 * placed[best] + 1) * w->models[m].instances)
                best = m;
        }
        if (best < 0)
            break; /* cannot happen: n is the sum of the counts */
        order[k] = (uint8_t)best;
        placed[best]++;
    }
}

static dnp_status setup(sf_sim *s, dnp_error *err)
{
    const sf_workload *w = s->w;
    const sf_sim_config *c = s->cfg;
    s->n_eng = c->mono ? 1 : 2;
    s->in_order = c->mono || !c->ooo;
    s->eng[0].cores = c->mono ? s->p->cores : c->nc;
    s->eng[1].cores = c->mono ? 0 : c->nf;
    for (int m = 0; m < w->n_models; m++)
        for (int ph = 0; ph < SF_N_PHASES; ph++) {
            if (!c->training && ph != SF_FF_C && ph != SF_FF_F)
                continue;
            int cores = s->eng[engine_of(s, (sf_phase)ph)].cores;
            dnp_status st = sf_program_build(&w->models[m], (sf_phase)ph, s->p, cores,
                                             c->max_blocks, &s->prog[m][ph], err);
            if (st != DNP_OK)
                return st;
        }
    int64_t per_epoch = 0;
    for (int m = 0; m < w->n_models; m++) {
        per_epoch += w->models[m].instances;
        s->model_total[m] = w->models[m].instances * c->epochs;
    }
    s->n_inst = per_epoch * c->epochs;
    s->model = dnp_malloc((size_t)s->n_inst);
    s->done = dnp_calloc((size_t)s->n_inst, 1);
    if (s->model == NULL || s->done == NULL)
        goto nomem;
    interleave(w, s->model, per_epoch);
    for (int e = 1; e < c->epochs; e++)
        memcpy(s->model + (int64_t)e * per_epoch, s->model, (size_t)per_epoch);
    if (c->training) {
        s->rank = dnp_malloc((size_t)s->n_inst * sizeof *s->rank);
        if (s->rank == NULL)
            goto nomem;
        int64_t seen[SF_MAX_MODELS] = {0};
        for (int m = 0; m < w->n_models; m++) {
            int64_t nb = (s->model_total[m] + c->batch_size - 1) / c->batch_size;
            s->inst_of[m] = dnp_malloc((size_t)s->model_total[m] * sizeof *s->inst_of[m]);
            s->batch_left[m] = dnp_malloc((size_t)nb * sizeof *s->batch_left[m]);
            if (s->inst_of[m] == NULL || s->batch_left[m] == NULL)
                goto nomem;
            for (int64_t b = 0; b < nb; b++) {
                int64_t left = s->model_total[m] - b * c->batch_size;
                s->batch_left[m][b] = left < c->batch_size ? left : c->batch_size;
            }
        }
        for (int64_t i = 0; i < s->n_inst; i++) {
            int m = s->model[i];
            s->rank[i] = seen[m];
            s->inst_of[m][seen[m]++] = i;
        }
    }
    return DNP_OK;
nomem:
    dnp_error_set(err, DNP_ERR_NOMEM, "out of memory for %lld simulated instances",
                  (long long)s->n_inst);
    return DNP_ERR_NOMEM;
}

static void teardown(sf_sim *s)
{
    for (int m = 0; m < SF_MAX_MODELS; m++) {
        for (int ph = 0; ph < SF_N_PHASES; ph++)
            sf_program_free(&s->prog[m][ph]);
        dnp_free(s->inst_of[m]);
        dnp_free(s->batch_left[m]);
    }
    dnp_free(s->model);
    dnp_free(s->done);
    dnp_free(s->rank);
    for (int e = 0; e < 2; e++)
        sf_key_heap_free(&s->eng[e].ready);
    sf_event_heap_free(&s->ev);
}

static void fill_result(const sf_sim *s, sf_sim_result *r)
{
    const sf_platform *p = s->p;
    memset(r, 0, sizeof *r);
    r->time_s = s->t_s;
    r->n_engines = s->n_eng;
    for (int e = 0; e < s->n_eng; e++) {
        r->engine[e] = s->eng[e].st;
        r->engine[e].cores = s->eng[e].cores;
        r->ops += s->eng[e].st.ops;
        r->bytes += s->eng[e].st.load_bytes + s->eng[e].st.store_bytes;
    }
    if (r->time_s > 0) {
        /* Table 7's GOPS (operations per second), the PE utilisation over
         * all N cores (each Tn^2 MACs per cycle) and the share of BW used
         * (Fig. 1's utilisation map). */
        r->gops = r->ops / r->time_s / SF_GOPS;
        r->pe_util = r->ops / (sf_peak_ops_per_s(p, p->cores) * r->time_s);
        r->bw_util = r->bytes / (p->bw_bps * r->time_s);
    }
    for (int k = 0; k < 3; k++)
        r->fsm_s[k] = s->ch.fsm_s[k];
    r->preemptions = s->ch.preemptions;
    r->instances = s->n_inst;
    r->events = s->events;
}

dnp_status sf_simulate(const sf_workload *w, const sf_platform *p, const sf_sim_config *c,
                       sf_sim_result *out, dnp_error *err)
{
    dnp_status st = check_config(w, p, c, err);
    if (st != DNP_OK)
        return st;
    sf_sim s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.cfg = c;
    s.w = w;
    if ((st = setup(&s, err)) != DNP_OK)
        goto done;
    if (c->training) {
        for (int m = 0; m < w->n_models; m++)
            release_batch(&s, m, 0);
    } else {
        for (int64_t i = 0; i < s.n_inst; i++)
            make_ready(&s, i, SF_FF_C);
    }
    for (int e = 0; e < s.n_eng; e++)
        pump(&s, e);
    sf_channel_kick(&s);
    sf_event ev;
    while (!s.failed && sf_event_pop(&s.ev, &ev)) {
        s.t_s = ev.t_s;
        s.events++;
        if (ev.kind == SF_EV_COMPUTE)
            compute_done(&s, ev.engine);
        else
            sf_channel_event(&s, ev.gen);
        for (int e = 0; e < s.n_eng; e++)
            pump(&s, e);
        sf_channel_kick(&s);
    }
    sf_channel_finish(&s);
    if (s.failed) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory (or a full request queue) at t = %g s",
                      s.t_s);
        st = DNP_ERR_NOMEM;
    } else if (s.completed != s.n_inst) {
        dnp_error_set(err, DNP_ERR_INTERNAL,
                      "simulation stalled at t = %g s with %lld of %lld instances done", s.t_s,
                      (long long)s.completed, (long long)s.n_inst);
        st = DNP_ERR_INTERNAL;
    } else {
        fill_result(&s, out);
    }
done:
    teardown(&s);
    return st;
}
