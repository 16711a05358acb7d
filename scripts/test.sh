#!/usr/bin/env bash
# Sets up this machine (Debian packages), builds ibfsim and runs the whole default test suite.
# Long runs carry the ctest label "long" and are left out; run them with: ctest --test-dir build -L long
# (and the fuzz targets for as long as asked: IBFSIM_FUZZ_SECONDS=3600 ctest --test-dir build-fuzz -L fuzz-long).
# The Slurm test (label "slurm") starts a one-node Slurm on this machine; run it with:
#   ctest --test-dir build -L slurm
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
ctest --test-dir build --output-on-failure -j "$(nproc)" -LE "long|slurm"

# The whole suite once more under AddressSanitizer and UndefinedBehaviorSanitizer (any undefined
# behaviour aborts), in a clang build that also has the fuzz targets (fuzz/README.md): every test
# but the long ones, and each fuzz target for a few seconds from its seeds (ctest -L fuzz-short).
# -O1: the sanitizers' usual level, fast enough for the scenario tests.
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DIBFSIM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1"
cmake --build build-fuzz
export UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build-fuzz --output-on-failure -j "$(nproc)" -LE "long|slurm"   # also leaves out fuzz-long
