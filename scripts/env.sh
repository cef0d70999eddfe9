# Sourced by the scripts: one build directory outside the clone, so every clone and every
# CI run on this machine reuses the same artefacts, and the tools cargo installs on PATH.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wheelwright/target}"
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT
step() { printf '\n==> %s\n' "$*"; }
