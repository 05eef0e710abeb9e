dnnpar mpt late-2 --prediction-shares paper
