#!/bin/bash
# Builds .gpu/, everything a GPU machine needs to check tangle there without a Rust
# toolchain or network: the release `tangle`, glslang with its libraries, the probe kernels
# compiled by ptxas for sm_90, their inputs, the conformance corpus and 2,000 fuzz programs
# as AmberScript (subgroup size 32, nesting 1-6). Run from the repository root after
# `tools/install-oracles.sh`; then run `tools/gpu/run.sh` on the GPU machine with `.gpu`
# beside it (docs/gpu.md). `.gpu/` is ignored by git.
set -euo pipefail
root=$(pwd)
oracles=${TANGLE_ORACLES:-$root/.oracles}
g=$root/.gpu
rm -rf "$g"; mkdir -p "$g/oracles/bin" "$g/oracles/lib" "$g/in"
cargo build --release -q -p tangle-cli
cp target/release/tangle "$g/tangle"
# glslang: its binary and shared libraries, behind a launcher that finds them.
prefix=$(dirname "$(dirname "$(readlink -f "$(grep -o '"[^"]*glslangValidator"' "$oracles/bin/glslangValidator" | tr -d '"')")")")
cp "$prefix/bin/glslangValidator" "$g/oracles/lib/glslangValidator.real"
for f in libglslang.so.13 libSPIRV.so.13 libglslang-default-resource-limits.so.13 libSPIRV-Tools-shared.so; do
  cp -L "$prefix/lib/$f" "$g/oracles/lib/"
done
cat > "$g/oracles/bin/glslangValidator" <<'LAUNCH'
#!/bin/sh
d=$(cd "$(dirname "$0")/../lib" && pwd)
LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/glslangValidator.real" "$@"
LAUNCH
chmod +x "$g/oracles/bin/glslangValidator"
# The probe kernels, as crates/sim/tests/probes.rs compiles them.
probes=$root/../shared/probes
{ for k in 1 2 3 4 5 6 7; do echo "#include \"$probes/k$k.cu\""; done
  echo '__device__ int ext(int *a, int x) { return a[x & 63] + x; }'; } > "$g/probes.cu"
"$oracles/bin/nvcc" -cubin -O3 -arch=sm_90 -o "$g/probes_sm90.cubin" "$g/probes.cu"
rm "$g/probes.cu"
python3 - "$g/in" <<'PY'
import struct, sys
def w(name, vals):
    open(sys.argv[1] + '/' + name, 'wb').write(struct.pack('<%di' % len(vals), *vals))
w('small.bin', [(i * 7 + 3) % 11 - 1 for i in range(4096)])
w('deep.bin', [(i * 97) % 60 for i in range(256)])
w('q.bin', [i % 4 for i in range(4096)])
PY
cp tools/gpu/probes.txt "$g/probes.txt"
cp -r "$root/../shared/conformance/amber" "$g/conformance"
cargo run --release -q -p tangle-fuzz --example amber_corpus -- "$g/fuzz" 2000
(cd "$g" && tar cJf fuzz.tar.xz fuzz && rm -rf fuzz)
cp tools/gpu/run.sh "$g/run.sh"
du -sh "$g"
