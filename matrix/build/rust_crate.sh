#!/usr/bin/env bash
# Build matrix/wrappers/stcli (our CLI) against the Hugging Face `safetensors`
# crate, whose Rust source ships in the PyPI sdist, offline: Debian's Rust
# toolchain (rustc-web/cargo-web, >= the crate's rust-version 1.80) and Debian's
# packaged crates (/usr/share/cargo/registry) instead of crates.io.
#   usage: rust_crate.sh DEST [VERSION]     -> DEST/bin/stcli
set -euo pipefail
dest=$(realpath "$1")
version=${2:-0.8.0}
here=$(cd "$(dirname "$0")" && pwd)
cargo=${STCLI_CARGO:-/usr/bin/cargo}
mkdir -p "$dest/dist" "$dest/bin"

# pip prepares metadata for every sdist it downloads; the real backend (maturin)
# would need crates.io for that, so a stand-in backend answers with the name and
# version only.  Nothing is built by pip.
stub="$dest/dist/backend"
mkdir -p "$stub"
cat > "$stub/maturin.py" <<PY
import os
def get_requires_for_build_wheel(config_settings=None):
    return []
def prepare_metadata_for_build_wheel(directory, config_settings=None):
    name = "safetensors-$version.dist-info"
    os.makedirs(os.path.join(directory, name))
    with open(os.path.join(directory, name, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: safetensors\nVersion: $version\n")
    return name
PY
PYTHONPATH="$stub" python3 -m pip download --quiet --no-deps --no-binary :all: \
    --no-build-isolation "safetensors==$version" -d "$dest/dist"
tar -xzf "$dest/dist/safetensors-$version.tar.gz" -C "$dest/dist"
crate="$dest/dist/safetensors-$version/safetensors"

# hashbrown is used only without `std`; Debian packages an older major version.
# The dev-dependencies (criterion, proptest) are not needed to build the library.
sed -i -e '/^hashbrown = /d' -e '/^\[dev-dependencies\]/,/^\[/{/^\[dev-dependencies\]/d;/^[a-z]/d}' \
    "$crate/Cargo.toml"

cli="$dest/cli"
mkdir -p "$cli/src" "$cli/.cargo"
cp "$here/../wrappers/stcli/main.rs" "$cli/src/main.rs"
cat > "$cli/Cargo.toml" <<TOML
[package]
name = "stcli"
version = "0.1.0"
edition = "2021"

[dependencies]
safetensors = { path = "$crate" }
serde_json = "1"
sha2 = "0.10"
memmap2 = "0.5"
TOML
cat > "$cli/.cargo/config.toml" <<TOML
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
TOML
(cd "$cli" && STCLI_CRATE_VERSION="$version" CARGO_HOME="$dest/cargo-home" \
    "$cargo" build --release --quiet)
cp "$cli/target/release/stcli" "$dest/bin/stcli"
"$dest/bin/stcli" --describe
