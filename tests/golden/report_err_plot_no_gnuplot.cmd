bin=$(command -v dnnpar); cd "$TMPDIR_GOLD" && PATH=/nonexistent-dir "$bin" compare lenet --cluster 2xtpu-v3 --plot c.svg 2>&1 > /dev/null; rc=$?; echo "files left: $(ls | wc -l)"; exit $rc
