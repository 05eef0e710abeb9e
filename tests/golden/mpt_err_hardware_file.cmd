dnnpar mpt late-2 --hardware tests/data/mpt_hardware_bad.json 2>&1
