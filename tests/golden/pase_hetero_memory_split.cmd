dnnpar plan gpt2 --search pase --optimizer momentum --cluster 4xa100+4xv100 --batch 32 --memory-limit 5.06GB | grep -E '^(memory|step time|chosen|simulated step|batch split)|^    [0-9]+x'
