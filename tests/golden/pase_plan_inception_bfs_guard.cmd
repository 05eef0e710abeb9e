dnnpar plan pase-inception3 --search pase --cost-model pase-paper -p 8 --bfs --max-memory 100 2>&1
