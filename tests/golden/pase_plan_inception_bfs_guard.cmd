dnnpar plan pase-inception3 --search pase -p 8 --bfs --max-memory 100 2>&1
