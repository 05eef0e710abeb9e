dnnpar scale resnet50 --cluster dgx-a100 --nodes 1,2 --plot "$TMPDIR_GOLD/s.svg" > /dev/null && head -c 5 "$TMPDIR_GOLD/s.svg" && echo
