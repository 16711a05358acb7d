#!/usr/bin/env bash
# Sets up this machine (Debian packages), builds ibfsim and runs the quickstart scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build
./build/ibfsim run scenarios/quickstart.yaml
