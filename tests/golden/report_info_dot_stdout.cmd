dnnpar info lenet --dot - | head -n 11; dnnpar info lenet --dot - | dot -Tsvg | grep -c "<g id=\"node"
