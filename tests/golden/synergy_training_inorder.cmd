dnnpar synergy alexnet-2012:2 --simulate --training --in-order --round-robin --max-blocks 8
