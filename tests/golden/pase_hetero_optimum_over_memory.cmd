dnnpar plan vgg16 --search pase --cluster 4xa100+4xv100 --batch 100 --memory-limit 1GB 2>&1 | grep -E "note: on several|^memory|^chosen|^simulated step"
