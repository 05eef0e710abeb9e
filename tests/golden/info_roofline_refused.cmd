for a in "--roofline 2xa100+2xv100" "--roofline a100 --dot x.dot" "--precision bf16" "--roofline a100 --precision fp8" "--roofline nosuch"; do dnnpar info lenet $a; echo "status $?"; done 2>&1
