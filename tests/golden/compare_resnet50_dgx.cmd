dnnpar compare resnet50 --cluster 2xdgx-a100 --batch 4096 --precision amp | head -n 9
