dnnpar profile --check tests/golden/profile_help.cmd 2>&1
