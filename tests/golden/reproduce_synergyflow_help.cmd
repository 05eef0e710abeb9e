dnnpar reproduce synergyflow --help
