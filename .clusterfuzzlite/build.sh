#!/bin/bash -eu
# Builds every fuzz/fuzz_*.py harness into $OUT (base-builder-python, Python 3.11).
cd "$SRC/safetensors-spec"

# The image brings its own atheris (built for its sanitizers): install the
# project and the differential harness's default implementation, not
# fuzz/requirements.txt, whose pinned atheris would replace it.
pip3 install ".[conformance]" safetensors==0.8.0 numpy

for fuzzer in fuzz/fuzz_*.py; do
  name=$(basename -s .py "$fuzzer")
  # --paths: the harnesses import fuzz/targets.py and fuzz/mutators.py;
  # numpy is imported by safetensors' Rust code, which PyInstaller cannot see.
  compile_python_fuzzer "$fuzzer" --paths fuzz --hidden-import numpy
  # Seeds: the committed corpus plus this harness's past findings.
  zip -q -j "$OUT/${name}_seed_corpus.zip" corpus/files/*.safetensors
  regressions="fuzz/regressions/${name#fuzz_}"
  if compgen -G "$regressions/*" > /dev/null; then
    zip -q -j "$OUT/${name}_seed_corpus.zip" "$regressions"/*
  fi
  printf '[libfuzzer]\nmax_len = 65536\ntimeout = 25\nrss_limit_mb = 2560\n' \
    > "$OUT/$name.options"
done

# The dictionary holds header tokens; the round-trip harness reads its input
# as a stream of choices, where they would only waste mutations.
cp fuzz/safetensors.dict "$OUT/fuzz_reader.dict"
cp fuzz/safetensors.dict "$OUT/fuzz_differential.dict"
