# Sourced by the scripts: one build directory outside the clone, so every clone and every
# CI run on this machine reuses the same artefacts, and the tools cargo installs on PATH.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wheelwright/target}"
# Incremental caches grow with every change and only help an edit-compile loop; the
# scripts build from clean checkouts, where they only take disk space.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT
# Each step says when it began (seconds since the script started), so a log shows where the time went.
step() { printf '\n==> [%d s] %s\n' "$SECONDS" "$*"; }
