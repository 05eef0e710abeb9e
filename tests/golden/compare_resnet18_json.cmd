dnnpar compare resnet18 --cluster 4xtpu-v2+4xtpu-v3 --batch 256 --json -
