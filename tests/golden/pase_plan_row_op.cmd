dnnpar plan lenet --search pase -p 4 --cluster 4xa100 --batch 16 | grep -E '^ +[0-9]+  |^step time|^simulated step'
