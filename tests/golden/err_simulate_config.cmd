dnnpar simulate gpt2 --cluster 8xa100 --batch 8 --config tp=3 2>&1
