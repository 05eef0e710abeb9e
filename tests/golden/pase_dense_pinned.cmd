dnnpar plan pase-densenet121 --search pase --cost-model pase-paper -p 8 --batch 64 2>&1 | sed -n '/^cost F/,$p'
