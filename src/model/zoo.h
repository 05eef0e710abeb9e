/*
 * zoo.h - the model zoo's extension point.  The zoo (zoo.c) is the core
 * models followed by the tables of the modules that use more (the
 * transformers, the SynergyFlow, MPT and PaSE papers' models), each in its
 * own file of src/model (zoo_*.c), so a module adds models without editing
 * zoo.c's builders and model/ calls nothing above it; the modules read
 * their tables from here.
 */
#ifndef DNNPAR_ZOO_H
#define DNNPAR_ZOO_H

#include "dnnpar/model.h"

typedef struct {
    const char *name;        /* canonical lower-case name, unique across the zoo */
    const char *description; /* one line: input size, variant, source */
    /* Append the model's ops to the empty graph g; return the last op's
     * index, or -1 (the graph's error says why). */
    int (*build)(dnp_graph *g);
} zoo_model;

/* Builder state shared by model builders: the graph and a scratch buffer
 * for formatted op names (zoo_fmt(b->name, ...)). */
typedef struct {
    dnp_graph *g;
    char name[64];
} zoo_builder;

/* Format an op name into buf (ZOO_NAME_LEN bytes) and return buf; model
 * builders use it for numbered names ("layer2.0.conv1").  The graph copies
 * names, so buf may be reused at once. */
#define ZOO_NAME_LEN 64
const char *zoo_fmt(char *buf, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Module tables: return the first model and set *count (0 and NULL allowed). */
const zoo_model *zoo_models_synergyflow(int *count); /* zoo_synergyflow.c */
const zoo_model *zoo_models_mpt(int *count);         /* zoo_mpt.c */
const zoo_model *zoo_models_pase(int *count);        /* zoo_pase.c */
const zoo_model *zoo_models_transformer(int *count); /* zoo_transformer.c */

/* PaSE's benchmark variants (zoo_pase.c; search/pase/pase_zoo.c builds
 * their iteration spaces): append to the empty graph g the prototype's
 * Transformer with `layers` encoder and `layers` decoder layers (6:
 * "pase-transformer"), or its ResNet with blocks[0..3] bottlenecks per
 * stage ({3, 4, 23, 3}: "pase-resnet101").  Return the last op's index or -1 (the graph's error
 * says why).  O(ops). */
int zoo_pase_transformer(dnp_graph *g, int layers);
int zoo_pase_resnet(dnp_graph *g, const int blocks[4]);

#endif
