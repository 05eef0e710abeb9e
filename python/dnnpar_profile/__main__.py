"""python3 -m dnnpar_profile --raw FILE [--grid small|full] [--gemm mm|onednn]
[--threads N] [--name NAME] [--date TEXT] [--budget S]: measure this machine
(the first CUDA device if torch sees one, else the CPU) and write a dnnpar
cluster JSON describing it to FILE (docs/device-model.md, "Measured device
profiles").  `dnnpar profile` runs this and re-writes FILE canonically.
Exit status: 0 written, 1 a measurement failed, 2 bad input or no torch."""
import json
import os
import platform
import re
import socket
import sys
import time


def fail_input(msg):
    sys.stderr.write("dnnpar profile: %s\n" % msg)
    sys.exit(2)


# Units of the cluster spec's keys (src/hw/cluster.c): tflops, mem_gb,
# membw_gbps, net_gbps and inter_gbps (Gb/s), kernel_us, intra_gbps (GB/s),
# the latencies in us; l2_bw_bps in GB/s and host_kernel_s in us likewise.
SPEC_UNITS = {"peak_flops": 1e12, "mem_bytes": 1e9, "mem_bw_bps": 1e9, "net_bw_bps": 1.25e8,
              "kernel_overhead_s": 1e-6, "intra_bw_bps": 1e9, "intra_lat_s": 1e-6,
              "inter_bw_bps": 1.25e8, "inter_lat_s": 1e-6, "l2_bw_bps": 1e9,
              "host_kernel_s": 1e-6}

NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,24}$")


def parse(argv):
    opt = {"raw": None, "grid": "small", "gemm": "mm", "threads": None, "name": None,
           "date": None, "budget": 600.0}
    i = 0
    while i < len(argv):
        key = argv[i][2:] if argv[i].startswith("--") else None
        if key not in opt or i + 1 >= len(argv):
            fail_input("usage: python3 -m dnnpar_profile --raw FILE [--grid small|full] "
                       "[--gemm mm|onednn] [--threads N] [--name NAME] [--date TEXT] "
                       "[--budget S]")
        opt[key] = argv[i + 1]
        i += 2
    if opt["raw"] is None:
        fail_input("--raw FILE is required")
    if opt["grid"] not in ("small", "full"):
        fail_input("--grid '%s': expected small or full" % opt["grid"])
    if opt["gemm"] not in ("mm", "onednn"):
        fail_input("--gemm '%s': expected mm or onednn" % opt["gemm"])
    if opt["name"] is not None and not NAME_RE.match(opt["name"]):
        fail_input("--name '%s': 1 to 24 letters, digits, '_', '.' or '-'" % opt["name"][:80])
    try:
        opt["budget"] = float(opt["budget"])
        if opt["threads"] is not None:
            opt["threads"] = int(opt["threads"])
            if not 1 <= opt["threads"] <= 4096:
                raise ValueError
    except ValueError:
        fail_input("--threads and --budget must be positive numbers")
    return opt


def cpu_info():
    """Model name and clock as /proc/cpuinfo gives them (None if absent)."""
    name, mhz = None, None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                k = k.strip()
                if k == "model name" and name is None:
                    name = v.strip()
                elif k == "cpu MHz" and mhz is None:
                    mhz = float(v)
    except (OSError, ValueError):
        pass
    return name, mhz


def last_level_cache_bytes():
    """The largest cache of cpu0 (/sys/devices/system/cpu/cpu0/cache), or 0."""
    best = 0
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for d in os.listdir(base):
            try:
                with open(os.path.join(base, d, "size")) as f:
                    s = f.read().strip()
            except OSError:
                continue
            mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
            try:
                best = max(best, int(s.rstrip("KMG")) * mult)
            except ValueError:
                pass
    except OSError:
        pass
    return best


def blas_info(torch):
    m = re.search(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
    return m.group(1) if m else "unknown"


def blas_library():
    """The BLAS library this process mapped (/proc/self/maps), or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                base = os.path.basename(path)
                if base.startswith(("libblas", "libopenblas", "libmkl_rt", "libblis")):
                    return os.path.realpath(path)
    except OSError:
        pass
    return None


def reference_blas(path):
    """1 if path is the netlib reference BLAS of Debian's alternatives
    (.../blas/libblas.so.3: one thread, no blocking), which torch.mm calls
    when torch was built with BLAS_INFO=generic and nothing else provides
    libblas.so.3 (OpenBLAS: .../openblas-*/, BLIS: .../blis-*/)."""
    return path is not None and os.path.basename(os.path.dirname(path)) == "blas"


def main(argv):
    opt = parse(argv)
    try:
        import torch
        import torch.distributed as dist
    except ImportError as e:
        fail_input("torch is not installed for %s (%s): install Debian's python3-torch "
                   "(scripts/install-deps.sh)" % (sys.executable, e))
    if not dist.is_available():
        fail_input("this torch has no torch.distributed")
    from . import comm, measure

    kind = "cuda" if torch.cuda.is_available() else "cpu"
    if kind == "cuda" and opt["gemm"] == "onednn":
        fail_input("--gemm onednn times oneDNN on the CPU; this machine profiles its CUDA device")
    if kind == "cpu" and not dist.is_gloo_available():
        fail_input("this torch has no gloo backend for torch.distributed")
    threads = opt["threads"] or len(os.sched_getaffinity(0))
    torch.set_num_threads(threads)
    if kind == "cuda":
        # fp32 GEMMs at fp32: no TF32 tensor-core math (the profile's dtype)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    dev = measure.Device(kind)
    budget = opt["budget"]
    t_start = time.perf_counter()
    gemm_budget = min(budget * 0.4, 12.0 if opt["grid"] == "small" else 240.0)
    gemm, skipped = measure.gemm_grid(opt["gemm"], dev, opt["grid"], gemm_budget)
    elt = measure.eltwise_sweep(dev, min(budget * 0.1, 10.0))
    host = measure.host_overhead(dev)
    coll = comm.collectives(kind, opt["grid"], threads)
    elapsed = time.perf_counter() - t_start

    # ---- the device's figures (docs/device-model.md) ----
    best = max(gemm, key=lambda r: r["flops"])
    llc = last_level_cache_bytes() if kind == "cpu" else 0
    # DRAM: sizes whose three arrays exceed 4x the last-level cache (else
    # the largest size); cache: the best rate of the whole sweep.
    dram = [r for r in elt if llc and r["bytes"] >= 4 * llc] or [elt[-1]]
    mem_row = max(dram, key=lambda r: r["bps"])
    cache_row = max(elt, key=lambda r: r["bps"])
    p2p = coll["fits"]["p2p"]
    if kind == "cuda":
        props = torch.cuda.get_device_properties(0)
        units, mem_bytes = props.multi_processor_count, float(props.total_memory)
        host_s = host["time_s"]
        kernel_s = host.get("device_time_s", host["time_s"])
        dev_name = props.name
    else:
        # the threads a GEMM's output blocks are spread over; the reference
        # BLAS runs on the calling thread whatever torch's setting
        units = 1 if opt["gemm"] == "mm" and reference_blas(blas_library()) else threads
        mem_bytes = float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        host_s = kernel_s = host["time_s"]
        dev_name = "cpu"
    name = opt["name"] or ("cuda-profile" if kind == "cuda" else "cpu-profile")
    device = {
        "name": name, "count": comm.RANKS,
        "peak_flops": best["flops"], "mem_bytes": mem_bytes,
        "mem_bw_bps": mem_row["bps"], "net_bw_bps": p2p["link_bw_bps"],
        "dtype": "fp32", "bytes_per_elem": 4,
        "peak_fp32_flops": 0.0, "peak_tf32_flops": 0.0, "peak_fp16_flops": 0.0,
        "peak_bf16_flops": 0.0,
        # the model's ceiling (peak_flops x compute_eff) is the best GEMM rate measured
        "compute_eff": 1.0,
        # the achieved bandwidth is the measured one
        "mem_eff": 1.0,
        "kernel_overhead_s": kernel_s, "speed_cv": 0.0,
        "node": name + "-node", "devices_per_node": comm.RANKS, "intra_topo": "switch",
        "intra_bw_bps": p2p["link_bw_bps"], "intra_lat_s": p2p["alpha_s"],
        "inter_bw_bps": p2p["link_bw_bps"], "inter_lat_s": p2p["alpha_s"],
        "sm_count": units, "l2_bw_bps": cache_row["bps"], "host_kernel_s": host_s,
    }
    # Every figure to 6 significant digits in its cluster-spec unit, times
    # that unit: a cluster read from JSON must have a cluster spec that
    # reads back the same (docs/formats.md), and a spec number x reads as
    # x * unit, which an arbitrary double need not be.  The measurements
    # vary far more than 1e-6 from run to run.
    for key, unit in SPEC_UNITS.items():
        if device[key] > 0:
            device[key] = float("%.6g" % (device[key] / unit)) * unit
    cpu_name, cpu_mhz = cpu_info()
    profile = {
        "format": "dnnpar-profile", "version": 1,
        "host": socket.gethostname(), "platform": platform.platform(),
        "device": dev_name, "cpu_model": cpu_name, "cpu_mhz": cpu_mhz,
        "torch_version": torch.__version__, "blas": blas_info(torch),
        "blas_library": blas_library() if kind == "cpu" else None,
        "gemm_backend": opt["gemm"], "threads": threads, "grid": opt["grid"],
        "last_level_cache_bytes": llc, "elapsed_s": elapsed,
        "derived": {
            "peak_flops": "best GEMM rate: m=%d n=%d k=%d" % (best["m"], best["n"], best["k"]),
            "mem_bw_bps": "element-wise add of %d elements" % mem_row["elems"],
            "l2_bw_bps": "element-wise add of %d elements (the sweep's best)" % cache_row["elems"],
            "sm_count": ("CUDA multiprocessors" if kind == "cuda" else
                         "1: torch.mm runs the single-threaded reference BLAS" if units == 1
                         and threads > 1 else "torch threads, which a GEMM is split over"),
            "link": "p2p ping-pong alpha-beta fit between 2 local processes (%s); "
                    "inter tier not measured: set to the same" % coll["backend"],
        },
        "gemm": gemm, "gemm_skipped": skipped, "eltwise": elt, "host_op": host,
        "collectives": coll,
    }
    if opt["date"] is not None:
        profile["date"] = opt["date"]
    root = {"format": "dnnpar-cluster", "version": 1, "devices": [device],
            "hierarchy": "device types first, then halves (docs/time-model.md)",
            "profile": profile}
    with open(opt["raw"], "w") as f:
        json.dump(root, f, indent=1)
    return 0


def run(argv):
    """main(), with a failed measurement reported in one line (status 1)."""
    try:
        return main(argv)
    except SystemExit:
        raise
    except BaseException as e:  # a rank that died, an allocation, an interrupt
        msg = str(e).strip().splitlines()
        sys.stderr.write("dnnpar profile: a measurement failed: %s%s\n" %
                         (type(e).__name__, ": " + msg[-1][:300] if msg else ""))
        return 1


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
