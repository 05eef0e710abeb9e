dnnpar reproduce synergyflow --json -
