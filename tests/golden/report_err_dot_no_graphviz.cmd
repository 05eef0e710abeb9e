bin=$(command -v dnnpar); cd "$TMPDIR_GOLD" && PATH=/nonexistent-dir "$bin" plan lenet --cluster 2xtpu-v3 --dot g.svg 2>&1 > /dev/null; rc=$?; echo "files left: $(ls | wc -l)"; exit $rc
