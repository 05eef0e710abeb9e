dnnpar reproduce accpar --json -
