"""dnnpar_profile - measure the machine torch runs on and describe it as a
dnnpar cluster (docs/device-model.md, "Measured device profiles").

Run by `dnnpar profile`, which calls `python3 -m dnnpar_profile --raw FILE
...`, reads FILE back through the library's cluster reader and writes the
canonical cluster JSON.  Standard library and torch only (Debian's
python3-torch, 1.13).
"""
