#!/usr/bin/env bash
# Sets up this machine (Debian packages), builds ibfsim and runs the whole default test suite.
# Long runs carry the ctest label "long" and are left out; run them with: ctest --test-dir build -L long
# The Slurm test (label "slurm") starts a one-node Slurm on this machine; run it with:
#   ctest --test-dir build -L slurm
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
ctest --test-dir build --output-on-failure -j "$(nproc)" -LE "long|slurm"

# AddressSanitizer pass over the fabric layer: its tests (topology readers and writers, the
# corrupted-input test among them) once more in a second build where any out-of-bounds access,
# use after free or leak is an error, so that no topology input can crash the loader. Only
# test_fabric and ibfsim are built, at -O0, which keeps this to about 1.5 minutes on 2 cores.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" \
  -DCMAKE_CXX_FLAGS="-fsanitize=address -fno-omit-frame-pointer" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address"
cmake --build build-asan --target test_fabric ibfsim
ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -L fabric -LE long
