"""Timing of kernels on one device: GEMMs, element-wise sweeps and the
per-op host cost (docs/device-model.md, "Measured device profiles").

Every figure is a median over several timed samples after a warm-up; a
sample repeats the kernel `inner` times, enough to last MIN_SAMPLE_S, so
the clock's resolution and the loop do not dominate small kernels."""
import time

import torch

MIN_SAMPLE_S = 2e-3   # one timed sample lasts at least this long
SAMPLES = 5           # timed samples per kernel (the median is kept)
MAX_INNER = 20000     # repetitions of a kernel inside one sample, at most


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


class Device:
    """Where the kernels run: 'cpu' or 'cuda' (the first CUDA device)."""

    def __init__(self, kind):
        self.kind = kind
        self.torch_device = torch.device("cuda:0" if kind == "cuda" else "cpu")

    def sync(self):
        if self.kind == "cuda":
            torch.cuda.synchronize()


def time_kernel(fn, dev, samples=SAMPLES, min_sample_s=MIN_SAMPLE_S):
    """(median seconds per call, inner repetitions, the samples) of fn()."""
    fn()
    dev.sync()  # warm-up: first-call allocation, code paths, caches
    t0 = time.perf_counter()
    fn()
    dev.sync()
    one = max(time.perf_counter() - t0, 1e-9)
    inner = max(1, min(MAX_INNER, int(min_sample_s / one)))
    xs = []
    for _ in range(samples):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        dev.sync()
        xs.append((time.perf_counter() - t0) / inner)
    return median(xs), inner, xs


# ---- GEMMs ------------------------------------------------------------------

GRIDS = {
    # m, n, k each from this list: 125 shapes, 2 * 32^3 to 2 * 512^3 FLOP
    # (4096x), about 2 GFLOP per pass over the grid
    "small": [32, 64, 128, 256, 512],
    # 216 shapes, 2 * 64^3 to 2 * 2048^3 FLOP (32768x)
    "full": [64, 128, 256, 512, 1024, 2048],
}


def gemm_fn(backend, dev, m, n, k):
    """A closure running one (m x k) . (k x n) fp32 GEMM the way `backend`
    does: 'mm' is torch.mm (what nn.Linear and matmul run: the BLAS torch
    was built with on CPU, cuBLAS on CUDA); 'onednn' is oneDNN's inner
    product on CPU (torch._C._nn.mkldnn_linear on mkldnn tensors, the
    library torch's CPU convolutions use)."""
    g = torch.Generator().manual_seed(m * 1000003 + n * 1009 + k)
    a = torch.rand(m, k, generator=g) - 0.5
    if backend == "onednn":
        w = (torch.rand(n, k, generator=g) - 0.5).to_mkldnn()
        x = a.to_mkldnn()
        return lambda: torch._C._nn.mkldnn_linear(x, w)
    b = torch.rand(k, n, generator=g) - 0.5
    a, b = a.to(dev.torch_device), b.to(dev.torch_device)
    c = torch.empty(m, n, device=dev.torch_device)
    return lambda: torch.mm(a, b, out=c)


def gemm_grid(backend, dev, grid, budget_s):
    """Time every shape of GRIDS[grid], smallest FLOP first; a shape whose
    predicted cost (its FLOP at the best rate seen so far, for all its
    samples) would overrun budget_s is skipped and listed."""
    sizes = GRIDS[grid]
    shapes = sorted(((m, n, k) for m in sizes for n in sizes for k in sizes),
                    key=lambda s: (s[0] * s[1] * s[2], s))
    start = time.perf_counter()
    best_flops = 0.0
    rows, skipped = [], []
    for m, n, k in shapes:
        flop = 2.0 * m * n * k
        left = budget_s - (time.perf_counter() - start)
        if best_flops > 0 and flop / best_flops * (SAMPLES + 2) > left:
            skipped.append({"m": m, "n": n, "k": k})
            continue
        fn = gemm_fn(backend, dev, m, n, k)
        t, inner, xs = time_kernel(fn, dev)
        best_flops = max(best_flops, flop / t)
        rows.append({"m": m, "n": n, "k": k, "flop": flop, "time_s": t, "flops": flop / t,
                     "min_s": min(xs), "inner": inner, "samples": SAMPLES})
        del fn
    return rows, skipped


# ---- element-wise: memory bandwidth ----------------------------------------

def eltwise_sweep(dev, budget_s):
    """c = a + b (fp32) over growing sizes: bytes moved = 3 x 4 x elements
    (read a and b, write c) over the median time."""
    if dev.kind == "cuda":
        sizes = [1 << e for e in range(16, 29, 2)]
    else:
        sizes = [1 << e for e in range(12, 25, 2)]
    start = time.perf_counter()
    rows = []
    for n in sizes:
        if time.perf_counter() - start > budget_s:
            break
        a = torch.ones(n, device=dev.torch_device)
        b = torch.ones(n, device=dev.torch_device)
        c = torch.empty(n, device=dev.torch_device)
        t, inner, _ = time_kernel(lambda: torch.add(a, b, out=c), dev)
        nbytes = 3.0 * 4.0 * n
        rows.append({"elems": n, "bytes": nbytes, "time_s": t, "bps": nbytes / t,
                     "inner": inner, "samples": SAMPLES})
        del a, b, c
    return rows


# ---- host cost of one op ----------------------------------------------------

HOST_OPS = 1000   # tiny ops per sample
HOST_SAMPLES = 11


def host_overhead(dev):
    """Median time per call of a one-element add issued HOST_OPS times in a
    row: on CPU the op runs on the calling thread, so this is the dispatch
    and the kernel's fixed cost together; on CUDA the launches are
    asynchronous and the queue never fills with kernels this short, so it
    is the host's issue time per kernel.  Also, on CUDA, the device time of
    one such kernel (CUDA events around it, median)."""
    x = torch.zeros(1, device=dev.torch_device)
    y = torch.empty(1, device=dev.torch_device)
    for _ in range(100):
        torch.add(x, x, out=y)
    dev.sync()
    xs = []
    for _ in range(HOST_SAMPLES):
        t0 = time.perf_counter()
        for _ in range(HOST_OPS):
            torch.add(x, x, out=y)
        dev.sync()
        xs.append((time.perf_counter() - t0) / HOST_OPS)
    out = {"op": "torch.add of two 1-element fp32 tensors", "ops_per_sample": HOST_OPS,
           "time_s": median(xs), "samples_s": xs}
    if dev.kind == "cuda":
        ev = []
        for _ in range(HOST_SAMPLES):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            torch.add(x, x, out=y)
            e.record()
            e.synchronize()
            ev.append(s.elapsed_time(e) * 1e-3)
        out["device_time_s"] = median(ev)
    return out
