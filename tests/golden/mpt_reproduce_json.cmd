dnnpar reproduce mpt --json -
