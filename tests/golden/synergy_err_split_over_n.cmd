dnnpar synergy batch1 --nc 60 --nf 10 2>&1
