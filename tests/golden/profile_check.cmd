dnnpar profile --check tests/data/profile-epyc-onednn.json
