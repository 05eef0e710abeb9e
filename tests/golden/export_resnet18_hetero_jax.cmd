dnnpar export resnet18 --cluster 2xtpu-v2+2xtpu-v3 --batch 64 --format jax
