/*
 * mpt_ring.c - the ring all-reduce of weight gradients within a group
 * (Sec. III-B, IV: one ring of Nc workers per group, each carrying |W|/Ng):
 * Nc - 1 reduce-scatter steps then Nc - 1 all-gather steps, one chunk of
 * |W| / (Ng Nc) per worker and step (pipelined collective [9]).
 */
#include "arch/mpt/mpt_exec_int.h"

#include <string.h>

void mpt_ring_chunk(size_t len, int nc, int k, size_t *begin, size_t *end)
{
    *begin = len * (size_t)k / (size_t)nc;
    *end = len * (size_t)(k + 1) / (size_t)nc;
}

static size_t slice_len(const mpt_run *r, const mpt_worker *w)
{
    return (size_t)(w->e1 - w->e0) * (size_t)r->s->in_c * (size_t)r->s->out_c;
}

static int mod(int a, int n) { return ((a % n) + n) % n; }

/* Reduce-scatter step s: worker c sends chunk c - s; all-gather step s:
 * chunk c + 1 - s.  r->ring_step counts reduce-scatter steps 0..Nc-2, then
 * all-gather steps Nc-1..2Nc-3. */
static int chunk_sent(const mpt_run *r, int c)
{
    int nc = r->o->nc, s = r->ring_step;
    return s < nc - 1 ? mod(c - s, nc) : mod(c + 1 - (s - (nc - 1)), nc);
}

void mpt_ring_put(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    size_t b, e;
    mpt_ring_chunk(slice_len(r, w), r->o->nc, chunk_sent(r, w->c), &b, &e);
    memcpy(w->ring_out, w->dW + b, sizeof *w->dW * (e - b));
    w->sent_ring += 4.0 * (double)(e - b);
}

/* The chunk worker w receives this step from its predecessor on the ring. */
static const mpt_worker *pred(mpt_run *r, const mpt_worker *w, size_t *b, size_t *e)
{
    int p = mod(w->c - 1, r->o->nc);
    const mpt_worker *from = mpt_run_worker(r, w->g, p);
    mpt_ring_chunk(slice_len(r, w), r->o->nc, chunk_sent(r, p), b, e);
    return from;
}

void mpt_ring_take_reduce(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    size_t b, e;
    const mpt_worker *from = pred(r, w, &b, &e);
    for (size_t k = b; k < e; k++)
        w->dW[k] = from->ring_out[k - b] + w->dW[k]; /* received first, then local */
}

void mpt_ring_take_gather(void *run, int wi)
{
    mpt_run *r = run;
    mpt_worker *w = &r->w[wi];
    size_t b, e;
    const mpt_worker *from = pred(r, w, &b, &e);
    memcpy(w->dW + b, from->ring_out, sizeof *w->dW * (e - b));
}
