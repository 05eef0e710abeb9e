dnnpar simulate "llama(hidden=512,heads=8,layers=8,seq=256,kv_heads=2)" --cluster 1xdgx-a100+1xdgx1 --batch 8 --precision bf16 --config tp=2,pp=2,dp=4,microbatch=2,layers=5:3 --trace -
