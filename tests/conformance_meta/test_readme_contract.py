"""The documented contract examples (buffer returns, REJECTS, capabilities, the
protocol-2 program) are working implementations that pass the cases they can."""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

import pytest
from _suite_runner import ROOT, run_suite

if TYPE_CHECKING:
    from pathlib import Path

# the adapter contract, as the documentation pages give it, in their order
PAGES = ("python-adapter.md", "capabilities.md", "command-protocol.md")
CONTRACT = "".join(
    (ROOT / "docs" / "reference" / page).read_text(encoding="utf-8") for page in PAGES
)
EXAMPLES = re.findall(r"```python\n(.*?)```", CONTRACT, re.DOTALL)
SELECT = (
    "y_dtype_f16_values or y_dtype_f64_values or y_layout_50000_tensors "
    "or n_layout_hole_between_tensors or n_prefix_file_empty"
)


def test_the_contract_has_its_examples() -> None:
    assert len(EXAMPLES) >= 5
    assert sum("--describe" in code for code in EXAMPLES) == 1


@pytest.mark.parametrize(
    "code",
    [c for c in EXAMPLES if "def save(" not in c],  # the first runs elsewhere
    ids=lambda code: next(
        (w for w in ("REJECTS", "CAPABILITIES", "--describe") if w in code), "buffers"
    ),
)
def test_a_readme_example_is_a_working_implementation(
    code: str, tmp_path: Path
) -> None:
    program = tmp_path / "example.py"
    program.write_text(code)
    impl = f"cmd:{sys.executable} {program}" if "--describe" in code else str(program)
    run = run_suite(impl, "-k", SELECT, tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    results = set(run.results.values())
    assert results <= {"passed", "not-applicable"}, run.results
    assert "passed" in results
    if "CAPABILITIES" in code:
        assert run.results["test_must_accept[y_dtype_f64_values]"] == "not-applicable"
