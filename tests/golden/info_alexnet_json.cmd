dnnpar info alexnet --batch 2 --json -
