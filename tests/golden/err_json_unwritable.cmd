dnnpar compare vgg11 --cluster 4xtpu-v3 --json /nonexistent-dir/out.json 2>&1; echo "status $?"; ls /nonexistent-dir 2>/dev/null | wc -l
