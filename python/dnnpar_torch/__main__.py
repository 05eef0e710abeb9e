"""python3 -m dnnpar_torch [--json FILE] RUN.json...: execute the run files
`dnnpar run-torch` wrote (one per strategy, the same number of ranks) and
report the checks of docs/torch.md.  Exit status: 0 every check passed,
1 a check failed, 2 bad input or no torch."""
import os
import sys


def fail_input(msg):
    sys.stderr.write("dnnpar run-torch: %s\n" % msg)
    sys.exit(2)


def main(argv):
    json_out, paths = None, []
    i = 0
    while i < len(argv):
        if argv[i] == "--json" and i + 1 < len(argv):
            json_out = argv[i + 1]
            i += 2
        else:
            paths.append(argv[i])
            i += 1
    if not paths:
        fail_input("usage: python3 -m dnnpar_torch [--json FILE] RUN.json...")
    try:
        import torch  # noqa: F401
        import torch.distributed as dist
    except ImportError as e:
        fail_input("torch is not installed for %s (%s): install Debian's python3-torch "
                   "(scripts/install-deps.sh)" % (sys.executable, e))
    if not dist.is_available() or not dist.is_gloo_available():
        fail_input("this torch has no gloo backend for torch.distributed")
    from .run import RankFailed, run_all
    from .shards import InputError
    try:
        return run_all(paths, json_out)
    except InputError as e:
        fail_input(str(e))
    except RankFailed as e:
        sys.stderr.write("dnnpar run-torch: %s\n" % e)
        return 1
    except Exception as e:  # noqa: BLE001 - a bug: one line, no traceback for the user
        if os.environ.get("DNNPAR_TORCH_TRACEBACK"):
            raise
        sys.stderr.write("dnnpar run-torch: internal error (a bug in the executor, "
                         "DNNPAR_TORCH_TRACEBACK=1 shows where): %s: %s\n"
                         % (type(e).__name__, e))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
