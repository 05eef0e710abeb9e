/*
 * pase_zoo.c - the PaSE prototype's graphs as iteration spaces: the five
 * models of the reference README (pase_model_*, pase.h) at the paper's
 * batch and cutoff, and the benchmark variants (pase_build_transformer,
 * pase_build_resnet).  The graphs themselves are zoo models
 * (model/zoo_pase.c: zoo_models_pase, zoo_pase_transformer,
 * zoo_pase_resnet), built op for op in the prototype's order so that
 * their iteration spaces (iter_rules.c) are exactly its graphs.
 */
#include "model/zoo.h"
#include "search/pase/pase.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- the prototype's graphs as iteration spaces ----------------------- */

typedef struct {
    const char *name;
    int64_t batch; /* the paper's: 128 for the CNNs, 64 for RNNLM and Transformer */
    int cutoff;    /* README: minimum per-device extent 4, 1 for RNNLM and Transformer */
} pase_ref_model;

static const pase_ref_model ref_models[] = {
    {"pase-alexnet", 128, 4},   {"pase-inception3", 128, 4}, {"pase-rnnlm", 64, 1},
    {"pase-transformer", 64, 1}, {"pase-resnet101", 128, 4},
};

int pase_model_count(void) { return (int)(sizeof ref_models / sizeof ref_models[0]); }

const char *pase_model_name(int i)
{
    return i >= 0 && i < pase_model_count() ? ref_models[i].name : NULL;
}

const char *pase_model_description(int i)
{
    const char *name = pase_model_name(i);
    int n = 0;
    const zoo_model *pase_zoo = zoo_models_pase(&n);
    for (int k = 0; name != NULL && k < n; k++)
        if (strcmp(pase_zoo[k].name, name) == 0)
            return pase_zoo[k].description;
    return NULL;
}

int64_t pase_model_default_batch(int i)
{
    return i >= 0 && i < pase_model_count() ? ref_models[i].batch : 0;
}

int pase_model_cutoff(int i)
{
    return i >= 0 && i < pase_model_count() ? ref_models[i].cutoff : 0;
}

int pase_model_find(const char *name)
{
    for (int i = 0; name && i < pase_model_count(); i++)
        if (strcasecmp(name, ref_models[i].name) == 0)
            return i;
    return -1;
}

/* Build a core graph with `build` and its iteration space for batch. */
static dnp_status convert_built(const char *name, int (*build)(dnp_graph *, const void *),
                                const void *arg, int64_t batch, iter_space **out, dnp_error *err)
{
    dnp_graph *g = dnp_graph_new(name);
    if (g == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory building '%s'", name);
        return DNP_ERR_NOMEM;
    }
    if (build(g, arg) < 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "%s: %s", name, dnp_graph_error(g));
        dnp_graph_free(g);
        return DNP_ERR_INPUT;
    }
    dnp_status st = iter_space_build(g, batch, out, err);
    if (st != DNP_OK) {
        dnp_graph_free(g);
        return st;
    }
    (*out)->core_owned = g; /* the shared model prices its ops (pase_perf.c) */
    return st;
}

static int build_zoo_entry(dnp_graph *g, const void *arg)
{
    return ((const zoo_model *)arg)->build(g);
}

dnp_status pase_model_build(const char *name, int64_t batch, iter_space **out, dnp_error *err)
{
    int i = pase_model_find(name);
    if (i < 0) {
        dnp_error_set(err, DNP_ERR_INPUT, "unknown PaSE model '%s'", name ? name : "");
        return DNP_ERR_INPUT;
    }
    int n = 0;
    const zoo_model *pase_zoo = zoo_models_pase(&n);
    for (int k = 0; k < n; k++)
        if (strcmp(pase_zoo[k].name, ref_models[i].name) == 0)
            return convert_built(ref_models[i].name, build_zoo_entry, &pase_zoo[k], batch, out,
                                 err);
    dnp_error_set(err, DNP_ERR_INPUT, "PaSE model '%s' is not in the zoo", name);
    return DNP_ERR_INPUT;
}

static int build_tf_arg(dnp_graph *g, const void *arg)
{
    return zoo_pase_transformer(g, *(const int *)arg);
}

static int build_resnet_arg(dnp_graph *g, const void *arg)
{
    return zoo_pase_resnet(g, (const int *)arg);
}

iter_space *pase_build_transformer(int64_t batch, int layers)
{
    iter_space *g = NULL;
    dnp_error err = {0};
    if (convert_built("pase-transformer", build_tf_arg, &layers, batch, &g, &err) != DNP_OK)
        return NULL;
    return g;
}

iter_space *pase_build_resnet(int64_t batch, const int blocks[4])
{
    iter_space *g = NULL;
    dnp_error err = {0};
    if (convert_built("pase-resnet", build_resnet_arg, blocks, batch, &g, &err) != DNP_OK)
        return NULL;
    return g;
}
