dnnpar info gpt2 --batch 1 | tail -n 3 && dnnpar info "llama(hidden=4096,heads=32,layers=32,seq=4096,ffn=11008)" --batch 1 | tail -n 2
