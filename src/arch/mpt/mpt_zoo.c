/* PLACEHOLDER, to be replaced by the mpt module: its zoo models. */
#include "model/zoo.h"

#include <stddef.h>

const zoo_model *zoo_models_mpt(int *count)
{
    *count = 0;
    return NULL;
}
