"""dnnpar_torch - execute dnnpar strategies on torch.distributed (docs/torch.md).

Run by `dnnpar run-torch`, which writes one run file per strategy (the model,
the batch, each device's path down the plan's device tree and dnnpar's
predicted communication per device) and calls `python3 -m dnnpar_torch`.
Standard library and torch only (Debian's python3-torch, 1.13).
"""

# Float32 tolerances of the numerics check (docs/torch.md "Checks"): at
# least these, and at least ROUNDING_FACTOR times the float32 reference's own
# relative difference from the same training in float64 (two float32 runs,
# each about that far from the exact result, summing in different orders).
WEIGHT_RTOL = 1e-4
LOSS_RTOL = 1e-4
ROUNDING_FACTOR = 4.0
