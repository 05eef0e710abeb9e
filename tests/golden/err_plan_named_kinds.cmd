dnnpar plan pase-transformer --cluster 8xv100 --batch 64 2>&1
