"""The interop grid with fake writers and readers: who is blamed for what."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import grid_fakes as fake
import pytest
from matrix import envs, grid, grid_judge, grid_report, grid_writer
from matrix.grid_requests import dumps, requests

import stspec

WRAPPERS = envs.REPO / "matrix" / "wrappers"


def _verdicts(result: dict[str, Any], writer: str, reader: str) -> dict[str, str]:
    return {k: v["verdict"] for k, v in result["cells"][writer][reader].items()}


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    writers = [
        fake.writer("good", fake.good),
        fake.writer("junk", fake.trailing_junk),
        fake.writer("flips", fake.flips_a_byte),
    ]
    readers = [
        fake.reader("strict", lambda a: a),
        fake.reader("reorders", fake.reversed_order),
        fake.reader("drops-metadata", fake.no_metadata, metadata=True),
        fake.reader("no-metadata-declared", fake.no_metadata, metadata=False),
        fake.reader("no-f64-declared", fake.no_f64, read_dtypes=["F32", "U8"]),
        fake.reader("no-f64", fake.no_f64),
        fake.reader("int32-declared", fake.int32_dimensions, max_dimension=2**31 - 1),
        fake.reader("int32", fake.int32_dimensions),
    ]
    out = tmp_path_factory.mktemp("interop")
    return grid.run_grid(writers, readers, out) | {"out": str(out)}


def test_a_reader_that_lists_tensors_in_another_order_loads_the_same(
    result: dict[str, Any],
) -> None:
    verdicts = _verdicts(result, "good", "reorders")
    assert set(verdicts.values()) == {"same"}
    assert len(verdicts) == len(requests())


def test_a_writer_that_breaks_the_spec_is_at_fault_not_the_readers(
    result: dict[str, Any],
) -> None:
    written = result["writers"]["junk"]
    assert all("wrote an invalid file" in o["fault"] for o in written.values())
    assert "[LAYOUT-TRAILING]" in written["one-u8"]["fault"]
    for reader in result["readers"]:
        assert set(_verdicts(result, "junk", reader).values()) == {"writer-fault"}


def test_a_writer_that_writes_other_bytes_is_at_fault_and_readers_match_its_file(
    result: dict[str, Any],
) -> None:
    fault = result["writers"]["flips"]["one-u8"]["fault"]
    assert fault == "wrote something other than the request: 't' bytes differ"
    # readers are compared with the file, not the request: they load it the same
    assert _verdicts(result, "flips", "strict")["one-u8"] == "same"


def test_dropped_metadata_is_a_difference_only_where_the_reader_reads_metadata(
    result: dict[str, Any],
) -> None:
    cell = result["cells"]["good"]["drops-metadata"]["metadata"]
    assert cell["verdict"] == "different"
    assert cell["detail"].startswith("metadata {}, not {")
    assert _verdicts(result, "good", "no-metadata-declared")["metadata"] == "same"


def test_a_refusal_outside_the_declared_dtypes_is_no_failure(
    result: dict[str, Any],
) -> None:
    assert (
        _verdicts(result, "good", "no-f64-declared")["dtype-F64"] == "refused-declared"
    )
    cell = result["cells"]["good"]["no-f64"]["dtype-F64"]
    assert (cell["verdict"], cell["detail"]) == ("refused", "F64 is not supported")


def test_a_refusal_beyond_a_declared_limit_is_no_failure(
    result: dict[str, Any],
) -> None:
    cell = result["cells"]["good"]["int32-declared"]["exact-integers"]
    assert cell == {
        "verdict": "refused-declared",
        "detail": "declares max_dimension 2,147,483,647 (this file: "
        "18,446,744,073,709,551,615): dimension does not fit int32",
    }
    assert set(_verdicts(result, "good", "int32-declared").values()) == {
        "same",
        "refused-declared",
    }
    assert _verdicts(result, "good", "int32")["exact-integers"] == "refused"


def _crashes_on_f64(error: str) -> Any:
    def change(answer: dict[str, Any]) -> dict[str, Any]:
        if any(t[0] == "F64" for t in answer["tensors"].values()):
            return {"result": "crashed", "error": error}
        return answer

    return change


@pytest.mark.parametrize(
    ("error", "declares", "verdict"),
    [
        ("KeyError: 'F64'", ["F32", "U8"], "refused-declared"),
        ("KeyError: 'F64'", None, "crashed"),
        ("killed by signal 11: ", ["F32", "U8"], "crashed"),
        ("exit status 2: panic: F64", ["F32", "U8"], "crashed"),
    ],
)
def test_only_an_exception_raised_outside_the_declaration_is_no_failure(
    tmp_path: Path, error: str, declares: list[str] | None, verdict: str
) -> None:
    caps = {} if declares is None else {"read_dtypes": declares}
    reader = fake.reader("r", _crashes_on_f64(error), **caps)
    done = grid.run_grid([fake.writer("w", fake.good)], [reader], tmp_path)
    cell = done["cells"]["w"]["r"]["dtype-F64"]
    assert cell["verdict"] == verdict
    assert cell["detail"].endswith(error)
    assert done["cells"]["w"]["r"]["dtype-F32"]["verdict"] == "same"


def test_the_grid_is_kept_as_json_a_table_and_the_files(result: dict[str, Any]) -> None:
    out = Path(result["out"])
    saved = json.loads((out / "grid.json").read_text())
    assert saved["cells"] == result["cells"]
    assert (out / "files" / "good" / "model-many-tensors.safetensors").is_file()
    table = (out / "grid.md").read_text()
    assert (
        "| good | 31/31 | 31/31 | **28/31** | 31/31 | 30/30 +1 undeclared | **30/31** |"
        in table
    )
    assert "| good | no-f64 | dtype-F64 | refused | F64 is not supported |" in table


def test_compare_names_each_difference() -> None:
    want = {
        "tensors": {"a": ["F32", [2], "x"], "b": ["U8", [1], "y"]},
        "metadata": None,
    }
    got = {"tensors": {"a": ["F16", [4], "z"], "c": ["U8", [1], "y"]}, "metadata": {}}
    assert grid_judge.compare(want, got, {"metadata_presence": True}) == (
        "tensors missing: 'b'; tensors not in the file: 'c'; 'a' dtype 'F16', "
        "not 'F32'; 'a' shape [4], not [2]; ..."
    )
    header_only = {"tensors": {"a": ["F32", [2], None], "b": ["U8", [1], None]}}
    assert grid_judge.compare(want, header_only, {}) == ""


def test_the_python_writer_script_writes_refuses_and_says_what_is_declared(
    tmp_path: Path,
) -> None:
    wanted = {r.name: r for r in requests()}
    lines = [
        json.dumps({"name": "one-u8", **json.loads(dumps(wanted["one-u8"]))}),
        json.dumps({"name": "bad", "metadata": {"k": 1}, "tensors": {}}),
    ]
    done = subprocess.run(
        [sys.executable, str(Path(grid.__file__).parent / "grid_writer.py"),
         str(WRAPPERS / "reference_st.py"), str(tmp_path)],
        input="\n".join(lines) + "\n", capture_output=True, text=True, check=True,
        env={"PYTHONPATH": ":".join(str(envs.REPO / p) for p in ("reference",))},
    )  # fmt: skip
    written, refused = (json.loads(line) for line in done.stdout.splitlines())
    assert written == {"request": "one-u8", "result": "written", "reason": "",
                       "undeclared": False}  # fmt: skip
    assert (tmp_path / "one-u8.safetensors").is_file()
    assert refused["result"] == "refused"
    assert "META-STRING" in refused["reason"]
    assert not (tmp_path / "bad.safetensors").exists()


def test_the_requests_are_valid_and_fixed() -> None:
    first, second = requests(), requests()
    assert [dumps(r) for r in first] == [dumps(r) for r in second]
    names = [r.name for r in first]
    assert len(names) == len(set(names))
    for request in first:
        stspec.serialize(
            dict(request.tensors), request.metadata
        )  # the reference accepts it
    assert max(len(r.tensors) for r in first) > 500


def test_the_python_writer_sorts_what_a_save_did_in_process(tmp_path: Path) -> None:
    # The same judgement as the script above, without a process: a declared
    # refusal is refused and leaves no file, anything else is crashed, and a
    # dtype outside write_dtypes is flagged as undeclared.
    class RefusalError(Exception):
        pass

    def save(path: str, _tensors: dict[str, object], metadata: object) -> None:
        Path(path).write_bytes(b"partial")
        if metadata == {"refuse": "1"}:
            raise RefusalError("META-STRING")
        if metadata == {"crash": "1"}:
            raise RuntimeError("boom")

    module = types.SimpleNamespace(
        save=save, WRITE_REJECTS=(RefusalError,), CAPABILITIES={"write_dtypes": ["U8"]}
    )
    tensor = {"t": {"dtype": "U8", "shape": [1], "hex": "07"}}
    answers = [
        grid_writer.write(
            module, {"name": name, "metadata": meta, "tensors": ts}, tmp_path
        )
        for name, meta, ts in [
            ("ok", {}, tensor),
            ("no", {"refuse": "1"}, tensor),
            ("bang", {"crash": "1"}, tensor),
            ("f16", {}, {"t": {"dtype": "F16", "shape": [1], "hex": "0000"}}),
        ]
    ]
    assert [(a["result"], a["undeclared"]) for a in answers] == [
        ("written", False),
        ("refused", False),
        ("crashed", False),
        ("written", True),
    ]
    assert answers[1]["reason"] == "RefusalError: META-STRING"
    assert answers[2]["reason"] == "RuntimeError: boom"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "f16.safetensors",
        "ok.safetensors",
    ]


def test_the_overview_blames_no_reader_for_a_writer_whose_files_break_the_spec(
    result: dict[str, Any],
) -> None:
    lines = {
        line.split(" | ")[0].removeprefix("| "): line
        for line in grid_report.overview(result).splitlines()
    }
    everything = len(requests())
    assert lines["junk"] == f"| junk | {everything} | {everything} |  |  |"
    assert lines["good"] == (
        f"| good | {everything} | 0 | 5 of 8 | drops-metadata, no-f64, int32 |"
    )
    assert lines["reorders"].startswith(f"| reorders | {2 * everything} | 0 | 0 |")
    assert lines["no-f64-declared"].endswith("| 0 | 2 |  |")
