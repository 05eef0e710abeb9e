/*
 * sf_arbiter.c - the shared DRAM channel and its arbitration.
 *
 * "The C-Engine and F-Engine share the bandwidth in a time-division-
 * multiplexing manner, and the FSM offers execution priority to CMIB"
 * (section 5.2, Fig. 12).  One memory instruction block moves at a time,
 * at the full bandwidth BW.  States: S0 idle, S1 held by the C-Engine, S2
 * held by the F-Engine.  Priority policy (the FSM): a C-Engine block that
 * becomes ready takes the channel at once, pausing an F-Engine block in
 * flight (S2 -> S1 on E0: the C-Engine must be fed for its next CCIB);
 * when it ends (E1) the channel passes to the F-Engine if it waits
 * (S1 -> S2), else goes idle; F-Engine requests never preempt (in S1, E2
 * leaves the state alone).  Round-robin policy: no preemption; when both
 * wait, the engine not served last goes first.  MonoArch has one engine
 * (reported as S1).  Each engine's own requests are served in FIFO order.
 */
#include "arch/synergyflow/sf_sim_internal.h"

static void set_state(sf_sim *s, int state)
{
    sf_channel *ch = &s->ch;
    ch->fsm_s[ch->state] += s->t_s - ch->state_t0_s;
    ch->state_t0_s = s->t_s;
    ch->state = state;
}

int sf_channel_request(sf_sim *s, int e, int slot, int is_store, double bytes, int64_t key)
{
    sf_engine *en = &s->eng[e];
    if (en->req_n == SF_REQ_CAP)
        return -1;
    sf_mem_req *r = &en->req[(en->req_head + en->req_n) % SF_REQ_CAP];
    r->slot = slot;
    r->is_store = is_store;
    r->bytes = bytes;
    r->key = key;
    en->req_n++;
    en->st.mem_blocks++;
    if (is_store)
        en->st.store_bytes += bytes;
    else
        en->st.load_bytes += bytes;
    return 0;
}

/* Report the segment moved since the grant; returns the bytes moved. */
static double segment(sf_sim *s, int complete)
{
    sf_channel *ch = &s->ch;
    sf_engine *en = &s->eng[ch->eng];
    sf_mem_req *r = &en->req[en->req_head];
    /* The channel moves BW bytes per second while granted (TDM). */
    double moved = complete ? ch->bytes0 : (s->t_s - ch->t0_s) * s->p->bw_bps;
    if (moved > ch->bytes0)
        moved = ch->bytes0;
    const sf_sim_sink *k = s->cfg->sink;
    if (k != NULL && k->memory != NULL && s->t_s > ch->t0_s) {
        int64_t inst = r->key >> 3;
        k->memory(k->ctx, ch->eng, r->is_store, ch->t0_s, s->t_s, moved, inst, s->model[inst],
                  (sf_phase)(r->key & 7));
    }
    return moved;
}

static void grant(sf_sim *s, int e)
{
    sf_channel *ch = &s->ch;
    sf_engine *en = &s->eng[e];
    ch->busy = 1;
    ch->eng = e;
    ch->t0_s = s->t_s;
    ch->bytes0 = en->req[en->req_head].bytes;
    ch->gen++;
    ch->last = e;
    set_state(s, (s->n_eng == 1 || e == 0) ? SF_S1_C : SF_S2_F);
    /* The whole remaining block at the full bandwidth: bytes / BW. */
    if (sf_event_push(&s->ev, s->t_s + ch->bytes0 / s->p->bw_bps, SF_EV_MEMORY, e, ch->gen) != 0)
        s->failed = 1;
}

void sf_channel_kick(sf_sim *s)
{
    sf_channel *ch = &s->ch;
    int c_waits = s->eng[0].req_n > 0, f_waits = s->n_eng > 1 && s->eng[1].req_n > 0;
    if (ch->busy) {
        /* E0 in S2: the C-Engine preempts an F-Engine transfer. */
        if (s->cfg->round_robin || ch->eng != 1 || !c_waits)
            return;
        sf_engine *f = &s->eng[1];
        double moved = segment(s, 0);
        f->req[f->req_head].bytes = ch->bytes0 - moved;
        ch->busy = 0;
        ch->gen++; /* the pending completion is now stale */
        ch->preemptions++;
    }
    int e = -1;
    if (s->cfg->round_robin && c_waits && f_waits)
        e = ch->last == 0 ? 1 : 0;
    else if (c_waits)
        e = 0;
    else if (f_waits)
        e = 1;
    if (e < 0) {
        if (ch->state != SF_S0_IDLE)
            set_state(s, SF_S0_IDLE);
        return;
    }
    grant(s, e);
}

void sf_channel_event(sf_sim *s, int64_t gen)
{
    sf_channel *ch = &s->ch;
    if (!ch->busy || gen != ch->gen)
        return; /* preempted meanwhile */
    segment(s, 1);
    sf_engine *en = &s->eng[ch->eng];
    sf_mem_req r = en->req[en->req_head];
    en->req_head = (en->req_head + 1) % SF_REQ_CAP;
    en->req_n--;
    ch->busy = 0;
    sf_sim_mem_done(s, ch->eng, &r);
}

void sf_channel_finish(sf_sim *s) { set_state(s, s->ch.state); }
