#!/bin/bash -eu
# Builds every fuzz/fuzz_*.py harness into $OUT (base-builder-python, Python 3.11).
# OSS-Fuzz runs the same script (fuzz/oss-fuzz/build.sh calls it).
cd "$SRC/safetensors-spec"

# The image brings its own atheris (built for its sanitizers): install the
# project and the differential harness's default implementation, not
# fuzz/requirements.txt, whose pinned atheris would replace it.
pip3 install ".[conformance]" safetensors==0.8.0 numpy

# Seeds that fit max_len: libFuzzer truncates longer ones, and a truncated
# safetensors file dies at HEADER-BOUNDS.  fuzz/seeds.py copies the corpus files
# and past findings that fit and adds deep, escaped and costly ones sized to it.
MAX_LEN=65536
seeds="$WORK/seeds"
python3 fuzz/seeds.py "$seeds" --max-len "$MAX_LEN"

for fuzzer in fuzz/fuzz_*.py; do
  name=$(basename -s .py "$fuzzer")
  # --paths: the harnesses import fuzz/targets.py, budget.py and mutators.py.
  # safetensors is named at run time (STSPEC_IMPL) and numpy is imported by its
  # Rust code, so PyInstaller's analysis cannot see either.
  compile_python_fuzzer "$fuzzer" --paths fuzz \
    --hidden-import safetensors --hidden-import numpy
  # The round-trip harness reads a stream of choices, not files: no seeds.
  if [ "$name" != fuzz_roundtrip ]; then
    (cd "$seeds" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  fi
  # max_len leaves room for the cost oracles (budget.py): quadratic paths need
  # tens of kilobytes to stand out.  A slow input fails the budget (a finding
  # with its numbers) long before the timeout.
  printf '[libfuzzer]\nmax_len = %s\ntimeout = 25\nrss_limit_mb = 2560\n' "$MAX_LEN" \
    > "$OUT/$name.options"
done

# The dictionary holds header tokens; the round-trip harness reads its input
# as a stream of choices, where they would only waste mutations.
cp fuzz/safetensors.dict "$OUT/fuzz_reader.dict"
cp fuzz/safetensors.dict "$OUT/fuzz_differential.dict"
