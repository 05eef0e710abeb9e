dnnpar plan vgg16 --search pase --strategy-space --cluster 1xdgx-a100+1xdgx1 --batch 128 2>&1 | grep -E "batch +[0-9]+ |type split|chosen|simulated step"
