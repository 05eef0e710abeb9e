dnnpar synergy batch1
