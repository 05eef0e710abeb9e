dnnpar reproduce pase --max-p 8 --json -
