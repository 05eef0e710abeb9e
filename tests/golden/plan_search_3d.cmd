dnnpar plan gpt3-175b --cluster 8xdgx-a100-80g --batch 64 --precision fp16 --search 3d && dnnpar plan gpt2 --cluster 1xdgx-a100 --batch 16 --search 3d --memory-limit 1MB 2>&1
