# shellcheck shell=bash
# warm.sh - sourced by tests/torch/run.sh and tests/docs/check.sh: the warm
# interpreter of tests/torch/warm.py (torch imported once; each run-torch's
# python run forked from it).
#   warm_start DIR PY  starts the server on DIR/warm.sock with interpreter PY
#                      (its messages in DIR/warm.log) and writes the stub
#                      DIR/python3-warm (warm_stub) that run-torch runs as
#                      DNNPAR_PYTHON; returns at once (the import goes on).
#   warm_ready         waits for the server (at most 120 s); status 0 if it
#                      is up, 1 if it stopped or never came up.
#   warm_stop          stops it (it also stops when its starter ends).
warm_start() {
    local dir=$1 py=$2 here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    export DNNPAR_TORCH_WARM_PYTHON=$py DNNPAR_TORCH_WARM_SOCKET=$dir/warm.sock
    warm_stub=$dir/python3-warm
    printf '#!/bin/sh\nexec %q -SB %q "$@"\n' "$py" "$here/warm.py" > "$warm_stub"
    chmod +x "$warm_stub"
    "$py" -B "$here/warm.py" --serve "$DNNPAR_TORCH_WARM_SOCKET" < /dev/null > "$dir/warm.log" 2>&1 &
    warm_pid=$!
}
warm_ready() {
    local _
    for _ in $(seq 1200); do
        [ -S "$DNNPAR_TORCH_WARM_SOCKET" ] && return 0
        kill -0 "$warm_pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
warm_stop() {  # (waited for: its CPU time, and its handlers', count as its starter's)
    [ -n "${warm_pid:-}" ] && kill "$warm_pid" 2>/dev/null && wait "$warm_pid" 2>/dev/null
    return 0
}
