dnnpar mpt late-2 --array 128x128 --array-split 1
