#!/usr/bin/env bash
# Installs every Debian package ibfsim needs to build, test and write its outputs.
# Idempotent and non-interactive: packages already present are skipped.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libsystemc-dev          # simulation kernel
  libboost-dev libboost-graph-dev   # Boost.CRC (header-only) and Boost.Graph
  libyaml-cpp-dev libfmt-dev libcli11-dev nlohmann-json3-dev libpcap-dev
  libmetis-dev            # partitions a fabric among threads (sim/fabric/fabric_partition.h)
  libopenmpi-dev openmpi-bin  # one simulation across MPI ranks (sim/core/rank_exchange.h), mpirun in the tests
  libzstd-dev zstd        # compressed result tables (outputs.compress); the zstd command reads them back in the tests
  catch2                  # Catch2 v2 test framework
  tshark                  # decodes our captures in the tests
  gnuplot-nox             # renders sweep plots
  gtkwave                 # its vcd2fst checks our waveforms in the tests
  python3                 # small helpers in tests, the docs' link check
  clang                   # libFuzzer, ASan and UBSan: the fuzz targets and the sanitizer pass (scripts/test.sh)
  ibsim-utils             # OFED's ibsim: a test loads our exported net files into it
  libumad2sim0            # ibsim's libumad2sim.so: runs real OpenSM/diags against ibsim
  opensm                  # real OpenSM 3.3: scripts/make_opensm_golden.sh (golden LIDs/LFTs)
  infiniband-diags        # dump_lfts/ibroute: read the LFTs back from ibsim in that script
  chromium                # headless: a test loads report.html and reads its DOM back
  pybind11-dev python3-dev  # the Python module (build/python/ibfsim)
  python3-pytest python3-pandas python3-matplotlib  # its tests, DataFrames, examples/sweep_curve.py
  python3-zstandard       # pandas reads the compressed tables (ports.csv.zst) with it
  libotf2-trace-dev       # reads MPI traces in OTF2 for trace replay (sim/workload/otf2_trace_reader.h)
  python3-otf2            # scripts/make_otf2_trace.py writes the test's and the scenario's trace with it
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  # tshark asks whether non-root users may capture; answer in advance.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
