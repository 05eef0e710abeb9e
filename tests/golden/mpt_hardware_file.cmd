dnnpar mpt late-2 --hardware tests/data/mpt_hardware.json --full-link-gbps 60
