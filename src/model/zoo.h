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

/* Module tables: return the first model and set *count (0 and NULL allowed). */
const zoo_model *zoo_models_synergyflow(int *count); /* src/arch/synergyflow */
const zoo_model *zoo_models_mpt(int *count);         /* src/arch/mpt */
const zoo_model *zoo_models_pase(int *count);        /* src/search/pase */

#endif
