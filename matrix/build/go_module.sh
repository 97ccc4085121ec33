#!/usr/bin/env bash
# Build a Go wrapper of matrix/wrappers/ (a folder with main.go, go.mod and
# go.sum pinning the library) with the Go module proxy, into DEST/bin/NAME.
# go.sum fixes every module's hash, so the build takes exactly those versions.
# Each go.mod replaces matrix/wire, the protocol plumbing the wrappers share,
# with ../_gowire: it is copied to DEST/_gowire, beside DEST/src.
#   usage: go_module.sh DEST NAME
set -euo pipefail
dest=$(realpath "$1")
name=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dest/src" "$dest/bin"
cp "$here/../wrappers/$name/"* "$dest/src/"
mkdir -p "$dest/_gowire"
cp "$here/../wrappers/_gowire/"* "$dest/_gowire/"
(cd "$dest/src" && GOFLAGS=-mod=readonly go build -trimpath -o "$dest/bin/$name" .)
"$dest/bin/$name" --describe
