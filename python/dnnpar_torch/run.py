"""Launch the ranks (one CPU process each, gloo), compare with the
single-process reference and report (docs/torch.md)."""
import datetime
import json
import math
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from . import LOSS_RTOL, ROUNDING_FACTOR, WEIGHT_RTOL
from .model import elems
from .grouped import held
from .norms import channels, with_params
from .execute import (KINDS, LRS, Run, holder_sets, loss_of, make_data, reference,
                      worker_run)
from .shards import InputError, ring_total


class RankFailed(Exception):
    """A rank stopped, or the ranks' results do not fit together: a bug or the
    machine, not the input (exit status 1)."""


# A training run is stable when no step's loss exceeds the first step's this
# many times (and every loss and parameter is finite): synthetic data and
# targets drawn afresh each step keep a stable run's losses of one scale.
GROWTH_LIMIT = 10.0
# ... and its float32 weights within this of float64's, relatively (stable_lr).
ROUNDING_LIMIT = 1e-2


def stable(ref):
    """True if the reference (losses, params, norms) stayed finite and its
    losses within GROWTH_LIMIT x the first step's."""
    losses, params, norms = ref
    if not all(math.isfinite(x) for x in losses):
        return False
    if any(x > GROWTH_LIMIT * abs(losses[0]) for x in losses[1:]):
        return False
    tensors = [x for pair in params for x in pair if x is not None] + \
        [x for pair in norms.values() for x in pair if x is not None]
    return all(bool(torch.isfinite(x).all()) for x in tensors)


def stable_lr(run):
    """(lr, float32 reference, float64 reference) at the first learning rate
    of LRS under which the float64 reference is stable and the float32 one's
    weights stay within ROUNDING_LIMIT of it (relatively): a plain SGD step
    diverges when lr times the squared norm of a layer's input exceeds 2 (a
    wide FC under the squared error: AlexNet's fc6-fc8 at 0.05), and well
    before that a large step makes float32 training so far from float64 that
    the tolerance (4x that distance) checks little (ResNet-18, batch 8, at
    0.005: 3%).  Whatever the strategy; so the rate is chosen on the
    references, for every strategy of the run alike.  Cost: two references
    per rate rejected.  Raises InputError when no rate qualifies."""
    for lr in LRS:
        ref64 = reference(run, torch.float64, lr)
        if not stable(ref64):
            continue
        ref = reference(run, torch.float32, lr)
        if stable(ref) and rounding(ref, ref64)[0] <= ROUNDING_LIMIT:
            return lr, ref, ref64
    raise InputError("%s: model %s: single-process training is unstable (a loss not "
                     "finite or growing over %gx in %d steps, or float32 weights over %g "
                     "from float64's) at every learning rate tried (%s): nothing to compare "
                     "the ranks with" % (run.doc.get("strategy", run.path), run.model.name,
                                         GROWTH_LIMIT, run.steps, ROUNDING_LIMIT,
                                         ", ".join("%g" % x for x in LRS)))


def _worker(rank, paths, lrs, tmp, world):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + os.path.join(tmp, "store"),
                            rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=300))
    try:
        for i, p in enumerate(paths):
            run = Run(p)
            run.lr = lrs[i]
            groups = {hs: dist.new_group(list(hs)) for hs in holder_sets(run)}
            res = worker_run(run, rank, groups)
            torch.save(res, os.path.join(tmp, "r%d_%d.pt" % (i, rank)))
            dist.barrier()
    finally:
        dist.destroy_process_group()


def _rel(a, b):
    return abs(a - b) / max(abs(b), 1e-30)


def _max_rel(a, b):
    """max |a - b| / max |b| over whole tensors (None pairs skipped)."""
    if a is None or b is None or b.numel() == 0:
        return 0.0
    return float((a.double() - b.double()).abs().max()) / max(float(b.abs().max()), 1e-30)


def rounding(ref, ref64):
    """The float32 reference's own relative difference from float64 training:
    (weights and norm parameters, loss), the scale of float32 rounding for
    this model and batch."""
    losses, params, norms = ref
    losses64, params64, norms64 = ref64
    w = 0.0
    for (wa, ba), (wb, bb) in zip(params, params64):
        w = max(w, _max_rel(wa, wb), _max_rel(ba, bb))
    for k in norms:
        for a, b in zip(norms[k], norms64[k]):
            w = max(w, _max_rel(a, b))
    return w, max(_rel(a, b) for a, b in zip(losses, losses64))


def check(run, ref_losses, ref_params, ref_norms, results, ref_rounding=(0.0, 0.0)):
    """(numerics, bytes) of one strategy's rank results; ref_rounding is
    rounding()'s (weights, loss) for the tolerances."""
    m = run.model
    # Loss: the whole output assembled from the ranks (any holder of a piece).
    n_units = m.units[m.output.name]
    cell = elems(m.output.out) // n_units
    losses = []
    for step in range(run.steps):
        full = torch.zeros((run.batch, n_units, cell))
        covered = torch.zeros((run.batch, n_units), dtype=torch.bool)
        for r in results:
            y, (bo, uo) = r["outputs"][step]
            full[bo[0]:bo[1], uo[0]:uo[1]] = y.reshape(bo[1] - bo[0], uo[1] - uo[0], cell)
            covered[bo[0]:bo[1], uo[0]:uo[1]] = True
        if not bool(covered.all()):
            b, u = [int(x) for x in (~covered).nonzero()[0]]
            raise RankFailed("%s: no rank holds sample %d, output unit %d of '%s' at step %d "
                             "(an executor bug)" % (run.path, b, u, m.output.name, step))
        _, target = make_data(m, run.batch, step)
        out = full.reshape(run.batch, n_units * full.shape[2])
        tgt = target if m.output.kind == "softmax" else target.reshape(out.shape)
        losses.append(float(loss_of(m, out, tgt, run.batch)))
    loss_diff = max(_rel(a, b) for a, b in zip(losses, ref_losses))
    # Weights: every rank's shard against the same slice of the reference.
    wdiff = 0.0
    for r in results:
        d = r["rank"]
        for v, (wl, bl) in enumerate(r["params"]):
            w, b = ref_params[v]
            if w is None:
                continue
            _, iv, ov = run.shards[d][v]
            info = m.info[v]
            per = w.shape[1] // info["in_units"] if w.dim() == 4 or \
                m.planned[v].keep_positions else info["in_cell"]
            scale = max(float(w.abs().max()), 1e-30)
            if m.planned[v].groups > 1:  # the blocks of its groups it trains
                cpu = info["in_shape"][0] // info["in_units"]
                for rows, cols in held(m.planned[v], info["in_shape"][0],
                                       (iv[0] * cpu, iv[1] * cpu), ov):
                    lr = slice(rows.start - ov[0], rows.stop - ov[0])
                    wdiff = max(wdiff, float((wl[lr, cols] - w[rows, cols]).abs().max()) / scale)
                ws = w[:0]
            else:
                ws = w[ov[0]:ov[1], iv[0] * per:iv[1] * per]
            if ws.numel():
                wdiff = max(wdiff, float((wl - ws).abs().max()) / scale)
            if bl is not None and bl.numel():
                scale = max(float(b.abs().max()), 1e-30)
                wdiff = max(wdiff, float((bl - b[ov[0]:ov[1]]).abs().max()) / scale)
        # norms' scales and shifts: every rank's channels against the reference's
        for o in with_params(m):
            lo, hi = channels(run, o, d)
            for local, ref in zip(r["norms"][o.name], ref_norms[o.name]):
                if ref is not None and hi > lo:
                    scale = max(float(ref.abs().max()), 1e-30)
                    wdiff = max(wdiff, float((local - ref[lo:hi]).abs().max()) / scale)
    weight_rtol = max(WEIGHT_RTOL, ROUNDING_FACTOR * ref_rounding[0])
    loss_rtol = max(LOSS_RTOL, ROUNDING_FACTOR * ref_rounding[1])
    numerics_ok = wdiff <= weight_rtol and loss_diff <= loss_rtol
    ranks, match = [], True
    for r in results:
        pred = run.doc["devices"][r["rank"]]
        ar = {int(k): int(x) for k, x in pred["allreduce_bytes"].items()}
        sent = ring_total(sum(r["sent"].values()), r["allreduce"])
        recv = ring_total(sum(r["received"].values()), r["allreduce"])
        ok = (r["steps_alike"] and all(r["sent"][k] == pred["p2p_sent_bytes"][k] and
                  r["received"][k] == pred["p2p_received_bytes"][k] for k in KINDS)
              and r["allreduce"] == ar and sent == pred["sent_bytes"]
              and recv == pred["received_bytes"])
        match = match and ok
        ts = r["times"]
        ranks.append({
            "rank": r["rank"], "sent_bytes": sent, "received_bytes": recv,
            "predicted_sent_bytes": pred["sent_bytes"],
            "predicted_received_bytes": pred["received_bytes"], "match": ok,
            "simulated_received_bytes": pred.get("sim_received_bytes"),
            "p2p_sent_bytes": r["sent"], "p2p_received_bytes": r["received"],
            "allreduce_bytes": {str(k): x for k, x in sorted(r["allreduce"].items())},
            "step_time_s": sum(ts[1:]) / len(ts[1:]) if len(ts) > 1 else ts[0]})
    return {"strategy": run.doc["strategy"], "model": m.name, "cluster": run.doc["cluster"],
            "batch": run.batch, "steps": run.steps, "n_ranks": run.ranks,
            "learning_rate": run.lr,
            "numerics_ok": numerics_ok, "max_rel_weight_diff": wdiff,
            "max_rel_loss_diff": loss_diff, "weight_rtol": weight_rtol, "loss_rtol": loss_rtol,
            "reference_rounding": {"weights": ref_rounding[0], "loss": ref_rounding[1]},
            "loss": losses, "reference_loss": ref_losses, "bytes_match": match,
            "ranks": ranks}


def text(rep):
    out = ["strategy %s: model %s, batch %d, cluster %s, %d ranks, %d steps%s" % (
        rep["strategy"], rep["model"], rep["batch"], rep["cluster"], rep["n_ranks"],
        rep["steps"], "" if rep["learning_rate"] == LRS[0] else
        " (learning rate %g: training is unstable at %g)" % (rep["learning_rate"], LRS[0])),
        "numerics: max relative weight difference %.3g (tolerance %.3g), loss %.3g "
        "(tolerance %.3g): %s" % (rep["max_rel_weight_diff"], rep["weight_rtol"],
                                  rep["max_rel_loss_diff"], rep["loss_rtol"],
                                  "ok" if rep["numerics_ok"] else "FAILED"),
        "  (tolerances: 1e-4, or %g x the float32 reference's own difference from float64, "
        "%.3g and %.3g)" % (ROUNDING_FACTOR, rep["reference_rounding"]["weights"],
                            rep["reference_rounding"]["loss"]),
        "bytes: %s" % ("every rank sent and received what dnnpar predicted"
                       if rep["bytes_match"] else "FAILED: a rank differs from the prediction"),
        "%4s  %14s  %14s  %14s  %14s  %14s  %9s" % (
            "rank", "sent B", "received B", "predicted sent", "predicted recv", "simulator recv",
            "step ms")]
    for r in rep["ranks"]:
        sim = r["simulated_received_bytes"]
        out.append("%4d  %14.1f  %14.1f  %14.1f  %14.1f  %14s  %9.2f%s" % (
            r["rank"], r["sent_bytes"], r["received_bytes"], r["predicted_sent_bytes"],
            r["predicted_received_bytes"], "-" if sim is None else "%.1f" % sim,
            1e3 * r["step_time_s"], "" if r["match"] else "  differs"))
    out.append("(simulator recv: what dnnpar's step simulator charges the rank's device class "
               "at continuous shares, docs/time-model.md \"Executed accounting\")")
    return "\n".join(out)


def run_all(paths, json_out):
    runs = [Run(p) for p in paths]
    world = runs[0].ranks
    for r in runs:
        if r.ranks != world:
            raise InputError("%s: %d ranks, not %d like %s" % (r.path, r.ranks, world,
                                                                runs[0].path))
    torch.set_num_threads(1)
    refs, refs64 = [], []
    for r in runs:
        r.lr, ref, ref64 = stable_lr(r)
        refs.append(ref)
        refs64.append(ref64)
    roundings = [rounding(ref, ref64) for ref, ref64 in zip(refs, refs64)]
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    with tempfile.TemporaryDirectory(prefix="dnnpar-torch-") as tmp:
        try:
            mp.spawn(_worker, args=(paths, [r.lr for r in runs], tmp, world), nprocs=world,
                     join=True)
        except mp.ProcessRaisedException as e:
            # One line: the failing rank and the error its traceback ends with.
            last = [l for l in str(e).strip().splitlines() if l.strip()]
            raise RankFailed("rank %d failed: %s" % (e.error_index, last[-1] if last else "?"))
        except mp.ProcessExitedException as e:
            raise RankFailed("rank %d exited with status %s" % (e.error_index, e.exit_code))
        reps = []
        for i, run in enumerate(runs):
            results = [torch.load(os.path.join(tmp, "r%d_%d.pt" % (i, k))) for k in range(world)]
            reps.append(check(run, *refs[i], results, roundings[i]))
    if json_out != "-":
        print("\n\n".join(text(r) for r in reps))
    if json_out is not None:
        doc = reps[0] if len(reps) == 1 else {"runs": reps}
        s = json.dumps(doc, indent=1, sort_keys=False) + "\n"
        if json_out == "-":
            sys.stdout.write(s)
        else:
            try:
                with open(json_out, "w") as f:
                    f.write(s)
            except OSError as e:
                raise InputError("cannot write %s: %s" % (json_out, e))
    return 0 if all(r["numerics_ok"] and r["bytes_match"] for r in reps) else 1
