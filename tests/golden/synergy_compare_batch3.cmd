dnnpar synergy batch3 --compare --sample 100 --max-blocks 32
