dnnpar plan llama2-13b --cluster 4xdgx-a100+4xdgx1 --batch 512 --precision fp16 --search 3d && dnnpar export llama2-13b --cluster 4xdgx-a100+4xdgx1 --batch 512 --precision fp16 --format megatron
