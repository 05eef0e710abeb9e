dnnpar plan pase-rnnlm --search pase --cluster 4xa100 --batch 16 2>&1 | grep -E "note|^ +[0-9] |^step|^simulated step"
