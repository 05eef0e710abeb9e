dnnpar reproduce mpt --help
