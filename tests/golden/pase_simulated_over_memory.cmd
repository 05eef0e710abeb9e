dnnpar plan vgg16 --search pase --cluster 8xv100 --batch 100 --memory-limit 1GB 2>&1 | grep -E -A3 "^memory|^simulated step"
