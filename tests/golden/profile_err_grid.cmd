dnnpar profile --out x.json --grid huge 2>&1
