dnnpar plan lenet --cluster 2xtpu-v2+2xtpu-v3 --batch 64 --trace - | head -c 600; echo
