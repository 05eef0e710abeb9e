/*
 * sf_sim_internal.h - state shared by the simulator (sf_sim.c) and the
 * DRAM channel arbiter (sf_arbiter.c).
 */
#ifndef DNNPAR_SF_SIM_INTERNAL_H
#define DNNPAR_SF_SIM_INTERNAL_H

#include "arch/synergyflow/sf_heap.h"
#include "arch/synergyflow/synergyflow.h"

enum { SF_EV_COMPUTE = 0, SF_EV_MEMORY = 1 };

/* A block's buffer (double buffering: two per engine). */
enum { SF_SLOT_EMPTY = 0, SF_SLOT_LOADING, SF_SLOT_LOADED, SF_SLOT_COMPUTING, SF_SLOT_STORING };

typedef struct {
    int state;
    int64_t key; /* task: instance * 8 + phase */
    int64_t seq; /* block number on the engine */
    double load_bytes, store_bytes, ops;
    int64_t cycles;
    double t_start_s; /* compute start */
} sf_slot;

/* A memory instruction block waiting for or holding the channel. */
typedef struct {
    int slot;
    int is_store;
    double bytes; /* still to move */
    int64_t key;
} sf_mem_req;

#define SF_REQ_CAP 8

typedef struct {
    int cores;
    sf_key_heap ready;          /* ready tasks of this engine */
    int64_t cur_key;            /* task whose blocks are being issued */
    const sf_program *cur_prog; /* NULL when none */
    int cur_run;
    int64_t cur_rep;
    sf_slot slot[2];
    int64_t next_seq, compute_seq;
    int computing;
    struct {
        int64_t key, left; /* task and its blocks not yet done */
    } open[4];
    int n_open;
    sf_mem_req req[SF_REQ_CAP]; /* FIFO of memory instruction blocks */
    int req_head, req_n;
    double active_since_s; /* when n_open last became nonzero */
    sf_engine_stats st;
} sf_engine;

/* The DRAM channel: time-division multiplexed, one transfer at a time at
 * the full bandwidth (section 5.2), states of the FSM of Fig. 12. */
enum { SF_S0_IDLE = 0, SF_S1_C = 1, SF_S2_F = 2 };

typedef struct {
    int busy, eng; /* serving the head request of engine `eng` */
    double t0_s;   /* since */
    double bytes0; /* its remaining bytes at t0_s */
    int64_t gen;   /* bumps on every grant; stale completions are ignored */
    int state;
    double state_t0_s;
    double fsm_s[3];
    int last; /* engine served last (round-robin) */
    int64_t preemptions;
} sf_channel;

typedef struct {
    const sf_platform *p;
    const sf_sim_config *cfg;
    const sf_workload *w;
    double t_s;
    sf_event_heap ev;
    int n_eng;
    sf_engine eng[2];
    sf_channel ch;
    int in_order;
    sf_program prog[SF_MAX_MODELS][SF_N_PHASES];
    int64_t n_inst;
    uint8_t *model; /* per instance */
    uint8_t *done;  /* per instance: bit per finished phase */
    int64_t *rank;  /* per instance: index among its model's instances (training) */
    int64_t *inst_of[SF_MAX_MODELS];    /* model, rank -> instance (training) */
    int64_t *batch_left[SF_MAX_MODELS]; /* instances of a batch not yet done (training) */
    int64_t model_total[SF_MAX_MODELS];
    int64_t oldest; /* smallest unfinished instance */
    int64_t completed;
    int64_t events;
    int failed; /* allocation failure inside the event loop */
} sf_sim;

/* Queue a memory instruction block of engine e (bytes > 0).  Returns 0,
 * or -1 if the engine's queue is full (an internal error).  O(1). */
int sf_channel_request(sf_sim *s, int e, int slot, int is_store, double bytes, int64_t key);
/* Grant or preempt by the policy (Fig. 12 FSM or round-robin).  O(1). */
void sf_channel_kick(sf_sim *s);
/* A transfer-complete event with generation gen.  O(1). */
void sf_channel_event(sf_sim *s, int64_t gen);
/* Close the FSM's time accounting at the end.  O(1). */
void sf_channel_finish(sf_sim *s);

/* Called by the channel when a request of engine e completes. */
void sf_sim_mem_done(sf_sim *s, int e, const sf_mem_req *r);

#endif
