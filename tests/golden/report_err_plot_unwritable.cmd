dnnpar plan lenet --cluster 2xtpu-v3 --plot /nonexistent-dir/p.png 2>&1 > /dev/null; rc=$?; ls /nonexistent-dir 2>/dev/null | wc -l; exit $rc
