dnnpar plan pase-inception3 --search pase --cluster 1xtpu-v2+7xtpu-v3 2>&1 | grep -vE '^ +[0-9]+  '
