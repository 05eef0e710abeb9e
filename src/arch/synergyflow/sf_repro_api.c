/*
 * sf_repro_api.c - the SynergyFlow paper's evaluation (section 6) behind
 * the public API (dnnpar.h, "SynergyFlow accelerator"): run by
 * sf_repro_run (sf_repro.c), reported by sf_repro_text.c and
 * sf_repro_json.c.
 */
#include "arch/synergyflow/sf_api.h"

dnp_status dnp_synergy_reproduce(dnp_synergy_repro **out, dnp_error *err)
{
    dnp_synergy_repro *r = dnp_malloc(sizeof *r);
    if (r == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory");
        return DNP_ERR_NOMEM;
    }
    dnp_status st = sf_repro_run(&r->r, err);
    if (st != DNP_OK) {
        dnp_free(r);
        return st;
    }
    *out = r;
    return DNP_OK;
}

void dnp_synergy_repro_free(dnp_synergy_repro *r) { dnp_free(r); }

dnp_status dnp_synergy_repro_text(const dnp_synergy_repro *r, char **out, dnp_error *err)
{
    rbuf b;
    rbuf_init(&b);
    sf_repro_text(&r->r, &b);
    char *text = rbuf_take(&b);
    if (text == NULL) {
        dnp_error_set(err, DNP_ERR_NOMEM, "out of memory writing the report");
        return DNP_ERR_NOMEM;
    }
    *out = text;
    return DNP_OK;
}

dnp_status dnp_synergy_repro_json(const dnp_synergy_repro *r, char **out, dnp_error *err)
{
    return dnp_json_report_text(sf_repro_json(&r->r), out, err);
}
