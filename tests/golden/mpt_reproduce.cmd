dnnpar reproduce mpt
