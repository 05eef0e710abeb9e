dnnpar scale resnet50 --cluster dgx-a100 --nodes 1,2,4,8,16,32,64,128 --precision amp
