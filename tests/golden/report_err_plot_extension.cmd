cd "$TMPDIR_GOLD" && dnnpar compare lenet --cluster 2xtpu-v3 --plot c.pdf 2>&1; rc=$?; echo "files left: $(ls | wc -l)"; exit $rc
