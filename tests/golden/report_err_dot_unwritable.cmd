dnnpar plan lenet --cluster 2xtpu-v3 --dot /nonexistent-dir/g.dot 2>&1 > /dev/null
