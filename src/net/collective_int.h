/* collective_int.h - internal helpers of the collective model (src/net/). */
#ifndef DNNPAR_COLLECTIVE_INT_H
#define DNNPAR_COLLECTIVE_INT_H
#include "dnnpar.h"
#endif
