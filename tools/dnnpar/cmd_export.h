/* cmd_export.h - `dnnpar export`: a plan as JAX PartitionSpecs, PyTorch
 * DTensor placements or an ASTRA-sim workload (cmd_export.c). */
#ifndef DNNPAR_CMD_EXPORT_H
#define DNNPAR_CMD_EXPORT_H

/* dnnpar export MODEL --cluster SPEC --format jax|dtensor|astra [...]:
 * argv[1] is "export".  Returns the exit status (0, 1 runtime failure,
 * 2 usage or input error). */
int cmd_export(int argc, char **argv);

#endif
