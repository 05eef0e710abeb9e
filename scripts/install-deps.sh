#!/usr/bin/env bash
# Install the Debian packages dnnpar needs, only those that are missing.
# Idempotent and quiet when everything is present.
set -euo pipefail
pkgs=(gcc make pkg-config libjansson-dev libprotobuf-c-dev protobuf-c-compiler libonnx-dev
      gnuplot-nox graphviz valgrind python3-torch)
# python3-torch (Debian's PyTorch 1.13, for /usr/bin/python3) runs the
# strategies of `dnnpar run-torch` (docs/torch.md) and tests/torch/run.sh.
# `make fuzz` also needs clang's libFuzzer (install-deps.sh fuzz).
[ "${1:-}" = fuzz ] && pkgs+=(clang-14 libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
