dnnpar reproduce pase --max-p 8
