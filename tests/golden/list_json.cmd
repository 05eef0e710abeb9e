dnnpar models --json - | head -n 5; dnnpar devices --json - | grep -c "\"source\""
