dnnpar plan pase-rnnlm --cluster 4xa100 --batch 16 --json - | sed 's/"lstm": "I"/"lstm": "II"/' | dnnpar simulate --strategy - 2>&1
