cd "$TMPDIR_GOLD" && dnnpar plan lenet --search pase --cost-model pase-paper -p 2 --json pase.json > /dev/null && dnnpar run-torch lenet pase.json --ranks 2 2>&1
