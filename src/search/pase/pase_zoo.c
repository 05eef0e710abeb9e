/* PLACEHOLDER, to be replaced by the pase module: its zoo models. */
#include "model/zoo.h"

#include <stddef.h>

const zoo_model *zoo_models_pase(int *count)
{
    *count = 0;
    return NULL;
}
