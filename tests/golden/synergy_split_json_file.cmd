dnnpar synergy vgg11 --bw 8 --nc 60 --nf 4 --simulate --json $TMPDIR_GOLD/v.json | tail -4; grep -c "\"arch\": \"split\"" $TMPDIR_GOLD/v.json; ls $TMPDIR_GOLD
