dnnpar export alexnet --cluster 4xtpu-v3 --format jax -o /nonexistent-dir/specs.py 2>&1; rc=$?; ls /nonexistent-dir 2>/dev/null | wc -l; exit $rc
