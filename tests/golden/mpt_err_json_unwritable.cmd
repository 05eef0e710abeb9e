dnnpar mpt late-2 --json /nonexistent-dir/x.json 2>&1; echo "status $?"; ls /nonexistent-dir 2>/dev/null | wc -l
