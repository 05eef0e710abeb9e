dnnpar mpt early --kernel 5 --batch 128 --json -
