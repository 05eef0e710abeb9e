dnnpar synergy tests/data/conv_only.json:10 --simulate | tail -n 7
