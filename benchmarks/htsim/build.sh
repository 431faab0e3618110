#!/usr/bin/env bash
# Builds htsim (BSD-2, from the tarball in $BURSTLAB_SHARED/anchors/htsim/, as that
# folder's build.sh does) into DIR (default: $BURSTLAB_HTSIM_DIR or /tmp/burstlab-htsim)
# and compiles the three drivers of the network speed benchmark against it:
#   DIR/sim/htsim_lossy_tcp   single flow (the anchor's own main_lossy_tcp.cpp)
#   DIR/sim/htsim_dumbbell_tcp, DIR/sim/htsim_chain_tcp   (this folder's sources)
# htsim itself is built once; the drivers are recompiled when their sources change.
# Usage: build.sh [DIR]; prints DIR/sim.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${BURSTLAB_SHARED:-$(cd "$here/../../.." && pwd)/shared}
anchor="$shared/anchors/htsim"
dir=${1:-${BURSTLAB_HTSIM_DIR:-/tmp/burstlab-htsim}}
tarball=$(ls "$anchor"/csg-htsim-*-sim.tar.gz 2>/dev/null | head -1)
if [[ -z "$tarball" ]]; then
    echo "error: no htsim tarball in $anchor (set BURSTLAB_SHARED to the shared folder)" >&2
    exit 2
fi
mkdir -p "$dir"
if [[ ! -f "$dir/sim/libhtsim.a" ]]; then
    tar -xzf "$tarball" -C "$dir"
    make -C "$dir/sim" -j"$(nproc)" libhtsim.a >/dev/null
fi
cxx() { # OUT SOURCE: compile a driver unless it is newer than its sources
    local out="$dir/sim/$1" src=$2
    if [[ ! -x "$out" || "$src" -nt "$out" || "$here/bench_common.h" -nt "$out" ]]; then
        g++ -Wall -std=c++11 -O3 -fPIE -I"$dir/sim" -I"$here" "$src" -o "$out" -L"$dir/sim" -lhtsim
    fi
}
cxx htsim_lossy_tcp "$anchor/main_lossy_tcp.cpp"
cxx htsim_dumbbell_tcp "$here/main_dumbbell_tcp.cpp"
cxx htsim_chain_tcp "$here/main_chain_tcp.cpp"
echo "$dir/sim"
