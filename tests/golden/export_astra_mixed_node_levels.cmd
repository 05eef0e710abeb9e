dnnpar export alexnet --cluster 2xdgx-a100+1xdgx1 --batch 64 --format astra | grep -o 'link-bandwidth.*'
