"""The code-scanning example, run as GitHub would run its steps, on hostile checkouts.

A pull request decides what the checkout holds, including a ``stspec.sarif``
of its own.  The example's check step is run here with bash, in a scratch
checkout, with ``${{ runner.temp }}`` standing for a folder outside it; the
upload step's input is resolved the same way.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

import stspec

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "docs" / "howto" / "workflows").glob("*.yml"))
EXAMPLE = REPO / "docs" / "howto" / "workflows" / "code-scanning.yml"
# A valid SARIF 2.1.0 log with no results, without the word stspec looks for.
EMPTY_LOG = (
    '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[]}]}\n'
)


def _steps(path: Path) -> list[dict[str, Any]]:
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def _resolve(text: str, temp: Path) -> str:
    """Put in the one expression these steps use; refuse any other."""
    resolved = text.replace("${{ runner.temp }}", str(temp))
    assert "${{" not in resolved, resolved
    return resolved


def _upload_paths(path: Path) -> list[str]:
    return [
        str(step["with"]["sarif_file"])
        for step in _steps(path)
        if str(step.get("uses", "")).startswith("github/codeql-action/upload-sarif@")
    ]


def test_every_uploaded_log_is_outside_the_checkout() -> None:
    uploads = {example.name: _upload_paths(example) for example in EXAMPLES}
    assert uploads[EXAMPLE.name], "the code-scanning example uploads a log"
    for name, paths in uploads.items():
        for path in paths:
            assert path.startswith("${{ runner.temp }}/"), (name, path)


@pytest.mark.parametrize("planted", ["file", "folder", "none"])
def test_a_planted_log_neither_stops_the_check_nor_is_uploaded(
    planted: str, tmp_path: Path
) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    (checkout / "bad.safetensors").write_bytes(b"garbage!")
    stspec.write(checkout / "good.safetensors", {"w": ("U8", [1], b"x")})
    if planted == "file":
        (checkout / "stspec.sarif").write_text(EMPTY_LOG, encoding="utf-8")
    elif planted == "folder":
        (checkout / "stspec.sarif").mkdir()
        (checkout / "stspec.sarif" / "fake.sarif").write_text(EMPTY_LOG, "utf-8")
    (check,) = [step for step in _steps(EXAMPLE) if step.get("name") == "stspec check"]
    (upload,) = _upload_paths(EXAMPLE)
    # Something left at the log's path (a previous run, a planted folder).
    log = Path(_resolve(upload, temp))
    log.mkdir()
    (log / "fake.sarif").write_text(EMPTY_LOG, encoding="utf-8")
    env = {key: _resolve(str(value), temp) for key, value in check["env"].items()}
    bin_folder = str(Path(sys.executable).parent)  # where `stspec` is installed
    done = subprocess.run(
        ["bash", "-e", "-c", check["run"]],  # noqa: S607 - bash from PATH, as GitHub
        cwd=checkout,
        env={
            **os.environ,
            **env,
            "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # The check ran and failed on the bad file, whatever the checkout planted.
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bad.safetensors: HEADER-LIMIT at byte 0" in done.stdout
    # What the upload step reads is stspec's log of this run.
    uploaded = json.loads(log.read_text(encoding="utf-8"))
    assert uploaded["runs"][0]["tool"]["driver"]["name"] == "stspec"
    uris = [
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for result in uploaded["runs"][0]["results"]
    ]
    assert [uri for uri in uris if re.search(r"bad\.safetensors$", uri)], uris
    # The checkout's own file or folder is left as the pull request made it.
    if planted == "file":
        assert (checkout / "stspec.sarif").read_text("utf-8") == EMPTY_LOG
    elif planted == "folder":
        assert (checkout / "stspec.sarif" / "fake.sarif").is_file()
