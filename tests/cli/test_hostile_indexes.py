"""Indexes nobody here made: huge, with numbers JSON has no room for, or not JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from stspec.audit.shards import CAP

from .models import INDEX, run

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize("kind", ["non-string values", "duplicate names"])
def test_index_json_findings_are_capped_like_every_other(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = 20_000
    if kind == "non-string values":
        text = json.dumps({"weight_map": {f"t{n}": n for n in range(count)}})
    else:
        text = '{"weight_map": {' + ", ".join(['"w": "a.safetensors"'] * count) + "}}"
    (tmp_path / INDEX).write_text(text, encoding="utf-8")
    status, out, _ = run(capsys, "check", str(tmp_path))
    lines = out.splitlines()
    assert status == 1
    assert len(lines) == CAP + 2
    more = count - CAP - (kind == "duplicate names")  # the first "w" is no duplicate
    assert lines[-2] == f"{tmp_path / INDEX}: SHARD-INDEX-JSON: {more} more not shown"
    assert lines[-1] == f"{tmp_path / INDEX}: model invalid: the index cannot be used"
    status, out, _ = run(capsys, "check", "--json", str(tmp_path))
    (model,) = json.loads(out)["models"]
    assert len(model["findings"]) == CAP
    assert model["omitted"] == {"SHARD-INDEX-JSON": more}
    assert model["errors"] == CAP + more
    # The JSON report stays as small as the text: no finding beyond the cap
    # is built, let alone printed.
    assert len(out) < 100 * 1000


def test_a_number_too_long_for_python_is_a_finding_at_its_offset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = '{"metadata": {"total_size": ' + "9" * 5000 + '}, "weight_map": {}}'
    (tmp_path / INDEX).write_text(text, encoding="utf-8")
    status, out, err = run(capsys, "check", str(tmp_path))
    assert (status, err) == (1, "")
    assert out.splitlines() == [
        (
            f"{tmp_path / INDEX}: SHARD-INDEX-JSON at byte {text.index('9')}: the "
            "index holds a number of 5000 digits, more than this checker reads (4300)"
        ),
        f"{tmp_path / INDEX}: model invalid: the index cannot be used",
    ]


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(
    token: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "NaN" inside a string is no token: only the bare one is found.
    text = '{"metadata": {"note": "NaN", "total_size": ' + token
    text += '}, "weight_map": {}}'
    (tmp_path / INDEX).write_text(text, encoding="utf-8")
    status, out, _ = run(capsys, "check", str(tmp_path))
    assert status == 1
    assert out.splitlines()[0] == (
        f"{tmp_path / INDEX}: SHARD-INDEX-JSON at byte {text.rindex(token)}: the "
        f"index is not JSON: {token} is not a JSON value"
    )
