dnnpar mpt late-2 --array 128x64 2>&1
