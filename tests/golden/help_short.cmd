dnnpar plan -h | head -n 1; dnnpar help info | head -n 1
