#!/usr/bin/env bash
# Build matrix/wrappers/aprst (our reader CLI) against aprender's parser, the
# crate aprender-core at exactly VERSION, from crates.io, with rustup's cargo.
# The lock file matrix/wrappers/aprst/Cargo.lock pins every crate of the build
# (--locked refuses any other); it was resolved from the Cargo.lock that the
# aprender VERSION crate publishes, so the parser is built with the
# dependencies its own release uses.  A heavy build: aprender-core is one crate
# of some 480,000 lines, about 6 minutes of CPU in release mode.  A
# CARGO_TARGET_DIR set by the caller (cargo's own variable) is used as it is,
# so a build already made there is not made again.
#   usage: rust_aprender.sh DEST VERSION     -> DEST/bin/aprst
set -euo pipefail
dest=$(realpath "$1")
version=$2
here=$(cd "$(dirname "$0")" && pwd)
src="$here/../wrappers/aprst"
cargo=${APRST_CARGO:-cargo}
cli="$dest/cli"
mkdir -p "$cli/src" "$dest/bin"
cp "$src/main.rs" "$cli/src/main.rs"
cat > "$cli/Cargo.toml" <<TOML
[package]
name = "aprst"
version = "0.1.0"
edition = "2021"

[dependencies]
aprender-core = "=$version"
serde_json = "1"
sha2 = "0.10"
TOML
locked=()
if [ -f "$src/Cargo.lock" ]; then
    cp "$src/Cargo.lock" "$cli/Cargo.lock"
    locked=(--locked)
fi
target=${CARGO_TARGET_DIR:-$dest/target}
(cd "$cli" && APRST_CRATE_VERSION="$version" CARGO_TARGET_DIR="$target" \
    "$cargo" build --release --quiet "${locked[@]}")
cp "$target/release/aprst" "$dest/bin/aprst"
"$dest/bin/aprst" --describe
