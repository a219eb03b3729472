#!/usr/bin/env bash
# The whole test suite: installs the oracle tools (idempotent), checks formatting and lints,
# then runs every test of the workspace. README.md names this command and .ci/run calls it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

tools/install-oracles.sh
export TANGLE_ORACLES="${TANGLE_ORACLES:-$root/.oracles}"

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# Every target: libraries, binaries, tests, examples and benches (criterion benches run
# each benchmark once in test mode). --all-targets leaves out doc tests, so they run apart.
cargo test --workspace --all-targets --locked "$@"
cargo test --workspace --doc --locked "$@"
