dnnpar reproduce accpar
