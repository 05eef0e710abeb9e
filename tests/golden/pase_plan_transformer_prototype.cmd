dnnpar plan pase-transformer --search pase -p 4 --prototype-edges | grep -E '^(model|hardware|cost|tables|best)'; dnnpar plan pase-transformer --search pase -p 4 | grep -E '^(model|cost)'
