#!/usr/bin/env bash
# Sets up this machine (Debian packages), builds ibfsim and runs the whole default test suite.
# Long runs carry the ctest label "long" and are left out; run them with: ctest --test-dir build -L long
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
ctest --test-dir build --output-on-failure -j "$(nproc)" -LE long
