dnnpar info lenet --dot - | head -n 9; dnnpar info lenet --dot - | dot -Tsvg | grep -c "<g id=\"node"
