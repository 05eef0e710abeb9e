/*
 * sf_api.h - what the public SynergyFlow API (dnnpar.h, "SynergyFlow
 * accelerator") keeps behind its opaque handles, shared by the files that
 * run an analysis (sf_run.c), report it (sf_run_json.c, sf_run_text.c)
 * and report the reproduction (sf_repro_api.c, sf_repro_json.c,
 * sf_repro_text.c).  Internal to src/arch/synergyflow.
 */
#ifndef DNNPAR_SF_API_H
#define DNNPAR_SF_API_H

#include "arch/synergyflow/synergyflow.h"
#include "core/json_text.h"
#include "report/report.h"

#include <jansson.h>

/* The options of one analysis in the model's own types. */
typedef struct {
    sf_platform p;
    char *spec;  /* the workload as given (owned) */
    int have_split, nc, nf;
    int arch;    /* sf_arch, or -1 if not given */
    int dse, blocks, simulate, compare;
    sf_sim_config sim;
    long long sample;          /* as printed (%lld) */
    long long trace_max_spans;
    char *trace; /* trace path (owned), or NULL */
    dnp_load_options load; /* how model files of the workload are read */
} sf_run_opts;

/* One simulation of an analysis. */
typedef struct {
    sf_arch arch;
    int nc, nf;
    sf_sim_result r;
} sf_run_sim;

/* The figures of an analysis. */
typedef struct {
    sf_workload w;
    sf_workload_char ch;
    sf_alloc alloc;
    sf_layer_char *lc[SF_MAX_MODELS]; /* per model, one entry per layer (owned) */
    int has_dse;
    sf_dse dse;
    int n_runs;
    sf_run_sim runs[SF_N_ARCHS];
    int64_t trace_dropped; /* spans the trace did not write */
} sf_analysis;

struct dnp_synergy_run {
    sf_run_opts o;
    sf_analysis an;
};

struct dnp_synergy_repro {
    sf_repro r;
};

/* R_ctf is infinite without FC work: JSON has no infinity, so null. */
json_t *sf_json_real_or_null(double v);

/* The text of a run appended to b (sf_run_text.c).  O(layers + N^2 +
 * simulations), --blocks O(sublayers). */
void sf_run_text(const sf_run_opts *o, const sf_analysis *an, rbuf *tb);
/* The JSON of a run (sf_run_json.c), a new reference (NULL on allocation
 * failure). */
json_t *sf_run_json(const sf_run_opts *o, const sf_analysis *an);
/* The reproduction as text appended to b, and as JSON (new reference). */
void sf_repro_text(const sf_repro *r, rbuf *tb);
json_t *sf_repro_json(const sf_repro *r);

#endif
