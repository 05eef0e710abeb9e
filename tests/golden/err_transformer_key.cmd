dnnpar info "gpt(hidden=768,heads=12,layers=12,seq=1024,ffm=3072)" 2>&1
