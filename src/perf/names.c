/*
 * names.c - names of the performance model's options (--precision,
 * --cost-model, --optimizer) and back.  Matching is case-insensitive;
 * every *_from_name returns -1 for an unknown or NULL name.
 */
#include "dnnpar.h"

#include <strings.h>

static const char *const precision_names[DNP_PREC_COUNT] = {
    [DNP_PREC_DEFAULT] = "default", [DNP_PREC_FP32] = "fp32", [DNP_PREC_TF32] = "tf32",
    [DNP_PREC_FP16] = "fp16",       [DNP_PREC_BF16] = "bf16", [DNP_PREC_AMP] = "amp",
};

static const char *const cost_model_names[DNP_COST_COUNT] = {
    [DNP_COST_DEFAULT] = "default",
    [DNP_COST_ACCPAR_PAPER] = "accpar-paper",
    [DNP_COST_PASE_PAPER] = "pase-paper",
};

static const char *const optimizer_names[DNP_OPTIM_COUNT] = {
    [DNP_OPTIM_MOMENTUM] = "momentum",
    [DNP_OPTIM_SGD] = "sgd",
    [DNP_OPTIM_ADAM] = "adam",
};

static int find_name(const char *const *names, int n, const char *s)
{
    if (!s)
        return -1;
    for (int i = 0; i < n; i++)
        if (strcasecmp(names[i], s) == 0)
            return i;
    return -1;
}

const char *dnp_precision_name(dnp_precision p)
{
    return (int)p >= 0 && p < DNP_PREC_COUNT ? precision_names[p] : "?";
}

int dnp_precision_from_name(const char *s)
{
    /* "bfloat16" is the spelling of the cluster spec's dtype (docs/cluster.md). */
    if (s && strcasecmp(s, "bfloat16") == 0)
        return DNP_PREC_BF16;
    return find_name(precision_names, DNP_PREC_COUNT, s);
}

const char *dnp_cost_model_name(dnp_cost_model m)
{
    return (int)m >= 0 && m < DNP_COST_COUNT ? cost_model_names[m] : "?";
}

int dnp_cost_model_from_name(const char *s)
{
    return find_name(cost_model_names, DNP_COST_COUNT, s);
}

const char *dnp_optimizer_name(dnp_optimizer o)
{
    return (int)o >= 0 && o < DNP_OPTIM_COUNT ? optimizer_names[o] : "?";
}

int dnp_optimizer_from_name(const char *s)
{
    return find_name(optimizer_names, DNP_OPTIM_COUNT, s);
}
