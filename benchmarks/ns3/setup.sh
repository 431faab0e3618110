#!/usr/bin/env bash
# Creates the optional ns-3 reference environment (issue 4): benchmarks/ns3/.venv, with the
# system site-packages visible (numpy, and burstlab when it is installed there) and the pinned
# ns3 wheel from requirements.txt. The default test run never needs it. CPyCppyy comes as a
# source package and is compiled on install (a C++ compiler; about 3-4 minutes on 2 cores).
#
#   bash benchmarks/ns3/setup.sh            # create / update the venv
#   NS3_VENV=/some/dir bash benchmarks/ns3/setup.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${NS3_VENV:-$here/.venv}"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv --system-site-packages "$venv"
fi
"$venv/bin/python" -m pip install -q -r "$here/requirements.txt"
# Import check (the first import of the cppyy bindings takes 10-20 s).
"$venv/bin/python" -c 'from ns import ns; print("ns-3", ns.Simulator.Now().GetSeconds() == 0.0 and "ok")'
echo "ns-3 environment ready: $venv/bin/python"
