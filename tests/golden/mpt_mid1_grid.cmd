dnnpar mpt mid-1 --workers 64 --config 8x8 --config dynamic:1,2,4,8
