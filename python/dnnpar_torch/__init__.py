"""dnnpar_torch - execute dnnpar strategies on torch.distributed (docs/torch.md).

Run by `dnnpar run-torch`, which writes one run file per strategy (the model,
the batch, each device's path down the plan's device tree and dnnpar's
predicted communication per device) and calls `python3 -m dnnpar_torch`.
Standard library and torch only (Debian's python3-torch, 1.13).
"""

# Float32 tolerances of the numerics check (docs/torch.md "Checks").
WEIGHT_RTOL = 1e-4
LOSS_RTOL = 1e-4
