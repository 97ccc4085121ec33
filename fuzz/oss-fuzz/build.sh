#!/bin/bash -eu
# OSS-Fuzz build script (projects/safetensors-spec/build.sh in google/oss-fuzz):
# the repository's own ClusterFuzzLite build, so the two never drift apart.
exec "$SRC/safetensors-spec/.clusterfuzzlite/build.sh"
