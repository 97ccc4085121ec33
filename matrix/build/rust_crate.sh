#!/usr/bin/env bash
# Build matrix/wrappers/stcli (our CLI) against the Hugging Face `safetensors`
# crate at exactly VERSION, from crates.io, with rustup's cargo.  The lock file
# matrix/wrappers/stcli/VERSION.lock pins every crate of the build (the
# library, serde_json, sha2, memmap2 and what they pull in), so the build takes
# exactly those versions (--locked refuses any other).  Without a lock file
# for VERSION (a version being added) cargo resolves one and it is kept in
# DEST/cli/Cargo.lock, to be committed as VERSION.lock.
#   usage: rust_crate.sh DEST VERSION     -> DEST/bin/stcli
set -euo pipefail
dest=$(realpath "$1")
version=$2
here=$(cd "$(dirname "$0")" && pwd)
src="$here/../wrappers/stcli"
cargo=${STCLI_CARGO:-cargo}
cli="$dest/cli"
mkdir -p "$cli/src" "$dest/bin"
cp "$src/main.rs" "$cli/src/main.rs"
# Versions before 0.6 take serialize_to_file's metadata by reference, and 0.2
# has another writer API; the features select those calls (main.rs,
# `metadata_by_ref`, `api_0_2`).
features=()
case "$version" in
    0.2.*) features=(--features api_0_2) ;;
    0.[345].*) features=(--features metadata_by_ref) ;;
esac
cat > "$cli/Cargo.toml" <<TOML
[package]
name = "stcli"
version = "0.1.0"
edition = "2021"

[features]
metadata_by_ref = []
api_0_2 = []

[dependencies]
safetensors = "=$version"
serde_json = "1"
sha2 = "0.10"
memmap2 = "0.9"
TOML
locked=()
if [ -f "$src/$version.lock" ]; then
    cp "$src/$version.lock" "$cli/Cargo.lock"
    locked=(--locked)
fi
(cd "$cli" && STCLI_CRATE_VERSION="$version" CARGO_TARGET_DIR="$dest/target" \
    "$cargo" build --release --quiet "${locked[@]}" "${features[@]}")
cp "$dest/target/release/stcli" "$dest/bin/stcli"
"$dest/bin/stcli" --describe
