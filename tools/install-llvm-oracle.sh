#!/usr/bin/env bash
# Installs LLVM's `opt` (Debian's llvm-19, pinned) without root into .oracles/llvm, with a
# launcher .oracles/bin/opt-19 that sets LD_LIBRARY_PATH: the oracle for the static rules
# of convergence-control tokens (`opt -passes=verify`, docs/tokens.md). The launcher is
# named opt-19 so that no search can fall back on an older `opt` on PATH (Debian 12's
# /usr/bin/opt is LLVM 14, which predates convergence tokens).
#
# Called by tools/install-oracles.sh; idempotent. Needs apt-get (Debian or Ubuntu package
# lists with llvm-19 in them) and dpkg-deb; without them it says so and leaves opt out
# (tests that need it skip outside CI).
#
# Usage: tools/install-llvm-oracle.sh [--quiet]
#   TANGLE_ORACLES=<dir>  install somewhere other than <repo>/.oracles
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${TANGLE_ORACLES:-$root/.oracles}
quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1
say() { [ "$quiet" = 1 ] || echo "$@"; }

# The pinned release: Debian 12's llvm-19. Its verifier's messages are what the tests
# compare with.
llvm_version='1:19.1.7-3~deb12u1'
packages=(llvm-19 libllvm19)
stamp_text="llvm-19=$llvm_version"
llvm_dir="$dest/llvm"
launcher="$dest/bin/opt-19"

if [ -f "$llvm_dir/stamp" ] && [ "$(cat "$llvm_dir/stamp")" = "$stamp_text" ] && [ -x "$launcher" ]; then
  say "oracles: opt-19 up to date in $dest/bin"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
  echo "oracles: apt-get and dpkg-deb are needed to install opt-19; skipping it" >&2
  exit 0
fi
echo "oracles: installing LLVM $llvm_version (opt) into $llvm_dir" >&2
rm -rf "$llvm_dir" "$launcher"
mkdir -p "$llvm_dir/debs" "$dest/bin"
if ! (
  cd "$llvm_dir/debs"
  specs=()
  for p in "${packages[@]}"; do specs+=("$p=$llvm_version"); done
  if ! apt-get download -qq "${specs[@]}" 2>/dev/null; then
    # Package lists may be missing on a fresh machine; refresh them when allowed.
    if [ "$(id -u)" = 0 ]; then apt-get update -qq; fi
    apt-get download -qq "${specs[@]}"
  fi
); then
  # Not fatal: the other oracles stay usable, and the tests that need opt-19 skip (or,
  # under CI=true, fail with "not found").
  echo "oracles: could not download llvm-19 $llvm_version with apt-get; opt-19 left out" >&2
  rm -rf "$llvm_dir"
  exit 0
fi
for deb in "$llvm_dir"/debs/*.deb; do
  dpkg-deb -x "$deb" "$llvm_dir/root"
done
rm -rf "$llvm_dir/debs"
libdir="$llvm_dir/root/usr/lib/x86_64-linux-gnu"
opt="$llvm_dir/root/usr/lib/llvm-19/bin/opt"
cat >"$launcher" <<LAUNCH
#!/bin/sh
LD_LIBRARY_PATH="$libdir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$opt" "\$@"
LAUNCH
chmod +x "$launcher"
if ! "$launcher" --version >/dev/null 2>&1; then
  echo "oracles: opt-19 does not run (a shared library missing?):" >&2
  "$launcher" --version >&2 || true
  exit 1
fi
printf '%s\n' "$stamp_text" >"$llvm_dir/stamp"
say "  opt-19            $launcher"
