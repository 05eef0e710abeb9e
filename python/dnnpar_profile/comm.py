"""Collectives between local processes over torch.distributed (gloo on CPU,
NCCL between two CUDA devices) and their alpha-beta fits
(docs/device-model.md, "Measured device profiles")."""
import datetime
import json
import os
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from .measure import median

RANKS = 2
WARMUP = 2
SAMPLES = 7
SIZES = {"small": [4 << 10, 64 << 10, 1 << 20, 8 << 20],
         "full": [4 << 10, 64 << 10, 1 << 20, 8 << 20, 64 << 20]}


def _sync(cuda):
    if cuda:
        torch.cuda.synchronize()


def _worker(rank, tmp, backend, sizes, threads):
    torch.set_num_threads(threads)
    cuda = backend == "nccl"
    if cuda:
        torch.cuda.set_device(rank)
    dev = torch.device("cuda:%d" % rank if cuda else "cpu")
    dist.init_process_group(backend, init_method="file://" + os.path.join(tmp, "store"),
                            rank=rank, world_size=RANKS,
                            timeout=datetime.timedelta(seconds=120))
    res = {"allreduce": [], "allgather": [], "p2p": []}
    try:
        for nbytes in sizes:
            elems = nbytes // 4
            buf = torch.ones(elems, device=dev)
            part = torch.ones(elems // RANKS, device=dev)
            parts = [torch.empty(elems // RANKS, device=dev) for _ in range(RANKS)]
            ops = {
                # all-reduce of the whole buffer (nccl-tests' size)
                "allreduce": lambda: dist.all_reduce(buf),
                # all-gather whose output is the buffer (nccl-tests' size)
                "allgather": lambda: dist.all_gather(parts, part),
            }

            def pingpong():
                # one message each way; the one-way time is half
                if rank == 0:
                    dist.send(buf, 1)
                    dist.recv(buf, 1)
                else:
                    dist.recv(buf, 0)
                    dist.send(buf, 0)
            ops["p2p"] = pingpong
            for name, fn in ops.items():
                xs = []
                for i in range(WARMUP + SAMPLES):
                    dist.barrier()
                    _sync(cuda)
                    t0 = time.perf_counter()
                    fn()
                    _sync(cuda)
                    t = time.perf_counter() - t0
                    if i >= WARMUP:
                        xs.append(t / 2.0 if name == "p2p" else t)
                res[name].append({"bytes": nbytes, "time_s": median(xs), "samples_s": xs})
        dist.barrier()
        if rank == 0:
            with open(os.path.join(tmp, "comm.json"), "w") as f:
                json.dump(res, f)
    finally:
        dist.destroy_process_group()


def alpha_beta(rows):
    """Fit t = alpha + beta x bytes to (bytes, time_s) rows, least squares on
    the relative residuals (weights 1/t^2, so every size counts alike:
    ordinary least squares would be the largest size's alone).  alpha is
    kept >= 0 (if the fit goes below, beta is refitted through the origin).
    Returns (alpha_s, beta_s_per_byte)."""
    sw = sx = sy = sxx = sxy = 0.0
    for r in rows:
        w = 1.0 / (r["time_s"] ** 2)
        x, y = float(r["bytes"]), r["time_s"]
        sw += w
        sx += w * x
        sy += w * y
        sxx += w * x * x
        sxy += w * x * y
    det = sw * sxx - sx * sx
    if det > 0:
        beta = (sw * sxy - sx * sy) / det
        alpha = (sy - beta * sx) / sw
        if alpha >= 0 and beta > 0:
            return alpha, beta
    return 0.0, sxy / sxx


def collectives(kind, grid, threads):
    """Run the ranks; returns the measurements and the fits."""
    cuda = kind == "cuda" and torch.cuda.device_count() >= RANKS and dist.is_nccl_available()
    backend = "nccl" if cuda else "gloo"
    sizes = SIZES[grid]
    # Each rank gets its share of the threads (at least one).
    per_rank = max(1, threads // RANKS)
    with tempfile.TemporaryDirectory(prefix="dnnpar-profile-") as tmp:
        mp.spawn(_worker, args=(tmp, backend, sizes, per_rank), nprocs=RANKS, join=True)
        with open(os.path.join(tmp, "comm.json")) as f:
            res = json.load(f)
    fits = {}
    # Bus factors of nccl-tests (PERFORMANCE.md): the bytes each rank moves
    # over its link per byte of the collective's size.
    factor = {"allreduce": 2.0 * (RANKS - 1) / RANKS, "allgather": (RANKS - 1) / RANKS,
              "p2p": 1.0}
    for name, rows in res.items():
        a, b = alpha_beta(rows)
        fits[name] = {"alpha_s": a, "beta_s_per_byte": b,
                      "link_bw_bps": factor[name] / b if b > 0 else 0.0,
                      "bus_factor": factor[name]}
    return {"backend": backend, "ranks": RANKS, "threads_per_rank": per_rank,
            "devices": "cuda:0, cuda:1" if cuda else "cpu processes on this machine",
            "measured": res, "fits": fits}
