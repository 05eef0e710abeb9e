/* PLACEHOLDER, to be replaced by the synergyflow module: its zoo models. */
#include "model/zoo.h"

#include <stddef.h>

const zoo_model *zoo_models_synergyflow(int *count)
{
    *count = 0;
    return NULL;
}
