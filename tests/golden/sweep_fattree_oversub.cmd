dnnpar sweep gpt2-large --cluster "8xdgx-a100(net=fattree,net.nodes_per_leaf=2)" --batch 16 --vary net.oversub=1,2,4,8 --search 3d
