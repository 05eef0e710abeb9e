/*
 * zoo.h - the model zoo's extension point.  The zoo (zoo.c) is the core
 * models followed by the tables other modules contribute, each defined in
 * the module's own file, so a module adds models without editing zoo.c.
 */
#ifndef DNNPAR_ZOO_H
#define DNNPAR_ZOO_H

#include "dnnpar.h"

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
const zoo_model *zoo_models_synergyflow(int *count); /* src/arch/synergyflow */
const zoo_model *zoo_models_mpt(int *count);         /* src/arch/mpt */
const zoo_model *zoo_models_pase(int *count);        /* src/search/pase */
const zoo_model *zoo_models_transformer(int *count); /* src/model/zoo_transformer.c */

#endif
