#!/bin/bash
# The checks to run on a machine with an NVIDIA GPU (SM90 for the probe cubin), from the
# repository root with `.gpu/` (made by tools/gpu/bundle.sh) beside it; results go to
# $OUT (or /tmp/out). Each script runs in its own process: after a kernel faults, CUDA's
# errors are sticky for the rest of the process. See docs/gpu.md.
set -u
G=$PWD/.gpu
export TANGLE_ORACLES=$G/oracles
T=$G/tangle
O=${OUT:-/tmp/out}
mkdir -p "$O"
{ nvidia-smi; uname -a; } > "$O/machine.txt" 2>&1
# 1. The probe kernels (ptxas 13.5, sm_90) on the GPU, each against every simulated schedule.
( cd "$G"
  while read -r k args; do
    a=()
    for x in $args; do a+=(--arg "$x"); done
    echo "== $k"
    timeout 120 "$T" sim probes_sm90.cubin --kernel "$k" "${a[@]}" --gpu --against-sim \
      --policy all,exhaustive
    echo "exit $?"
  done < probes.txt ) > "$O/probes.log" 2>&1
# 2. Scripts compiled by tangle for the GPU and run on it against the reference, one
#    process each, 8 at a time: the bundled ones, the conformance corpus, fuzz programs.
mkdir -p /tmp/fz && tar xJf "$G/fuzz.tar.xz" -C /tmp/fz
each() {
  find "$@" -name '*.amber' | sort | xargs -P 8 -I{} bash -c \
    "timeout 60 '$T' run --engine gpu -v '{}' 2>&1 | grep -v lane-instructions"
}
each tests/amber examples > "$O/bundled.log"
each "$G/conformance" > "$O/conformance.log"
each /tmp/fz/fuzz > "$O/fuzz.log"
for f in bundled conformance fuzz; do
  echo "$f: $(grep -c ': PASS' "$O/$f.log") pass, $(grep -c ': FAIL' "$O/$f.log") fail, \
$(grep -c 'on the GPU\|gpu sm_' "$O/$f.log") GPU disagreements"
done | tee "$O/summary.txt"
