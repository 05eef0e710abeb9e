/*
 * report_api.c - the pictures and exports of report.h behind their public
 * names (dnnpar.h, "Pictures and exports of models and plans"), so that
 * the CLI needs no internal header.  Each is the internal function of the
 * same contract; docs/reports.md describes the outputs.
 */
#include "report/report.h"

int dnp_plot_format(const char *path) { return report_plot_format(path); }

dnp_status dnp_plot_compare(const char *path, const char *model, const char *cluster, int n,
                            const char *const *names, const double *step_time_s,
                            const double *speedup, const int *fits, dnp_error *err)
{
    return report_plot_compare(path, model, cluster, n, names, step_time_s, speedup, fits, err);
}

dnp_status dnp_plot_plan(const char *path, const dnp_plan *p, const char *model,
                         const char *cluster, const char *scheme, int64_t batch, dnp_error *err)
{
    return report_plot_plan(path, p, model, cluster, scheme, batch, err);
}

dnp_status dnp_plot_scale(const char *path, const char *model, const char *node, int n,
                          const double *devices, const double *throughput_per_s,
                          const double *efficiency, dnp_error *err)
{
    return report_plot_scale(path, model, node, n, devices, throughput_per_s, efficiency, err);
}

dnp_status dnp_plot_trace(const char *path, const char *trace_json, const char *title,
                          dnp_error *err)
{
    return report_plot_timeline(path, trace_json, title, err);
}

dnp_status dnp_dot_write(const char *path, const dnp_graph *g, const dnp_plan *p, dnp_error *err)
{
    return report_dot_write(path, g, p, 0, 0, err);
}

dnp_status dnp_dot_write_batch(const char *path, const dnp_graph *g, const dnp_plan *p,
                               int64_t batch, int bytes_per_elem, dnp_error *err)
{
    return report_dot_write(path, g, p, batch, bytes_per_elem, err);
}

const char *dnp_export_name(dnp_export_format f)
{
    return report_export_name(f);
}

int dnp_export_from_name(const char *s) { return report_export_from_name(s); }

dnp_status dnp_export_text(dnp_export_format f, const dnp_graph *g, const dnp_cluster *cl,
                           const dnp_plan_options *opt, const dnp_plan *p, char **out,
                           dnp_error *err)
{
    /* never a plan that `plan` refuses for memory, with its message */
    dnp_status st = dnp_plan_check_memory(p, g, err);
    if (st != DNP_OK)
        return st;
    return report_export(f, g, cl, opt, p, out, err);
}
