dnnpar synergy batch2 --json -
