"""The machinery on two implementations: reference and HF 0.8.0 (dev venv).

A partial run (a -k selection of cases) through ``python -m matrix run``,
then the page rendered from it opened in headless Chromium, asserting on
what Chromium parsed (the DOM) and painted (the screenshot's pixels).
"""

import fcntl
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from external_tools import chromium

# the module's fixture runs the suite on two implementations (python -m matrix run)
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
SELECT = (
    "y_dtype_f32_values or n_structure_duplicate_tensor_identical"
    " or i_text_leading_space or n_layout_hole_between_tensors"
    " or test_writer_refuses_reserved_name"
)


def _run_and_render(out: Path) -> None:
    env = {**os.environ, "STSPEC_MATRIX_DIR": str(out / "envs")}
    for name in ("reference", "hf-0.8.0"):
        subprocess.run(
            [sys.executable, "-m", "matrix", "run", "--only", name,
             "--python", sys.executable, "-k", SELECT, "--results", str(out)],
            cwd=REPO, env=env, check=True, timeout=600,
        )  # fmt: skip
    subprocess.run(
        [sys.executable, "-m", "matrix", "render", "--results", str(out)],
        cwd=REPO, env=env, check=True, timeout=120,
    )  # fmt: skip


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runs and the page, made once for every xdist worker of the session."""
    base = tmp_path_factory.getbasetemp()  # xdist: .../pytest-N/popen-gwK
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = session / "matrix-runs"
    folder.mkdir(exist_ok=True)
    out = folder / "results"
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (folder / "made").exists():
            shutil.rmtree(out, ignore_errors=True)  # a run that failed before
            out.mkdir()
            _run_and_render(out)
            (folder / "made").touch()
    return out


def test_each_case_gets_its_outcome(results: Path) -> None:
    ref = json.loads((results / "reference.json").read_text())
    hf = json.loads((results / "hf-0.8.0.json").read_text())
    assert ref["run"]["complete"] is False  # a -k run says it is partial
    assert ref["run"]["selected"] == SELECT
    assert ref["cases"]["y_dtype_f32_values"] == {"outcome": "accepted", "ok": True}
    assert (
        ref["cases"]["n_structure_duplicate_tensor_identical"]["outcome"] == "rejected"
    )
    assert ref["cases"]["i_text_leading_space"]["outcome"] == "rejected"
    # HF's documented deviations (README): duplicates accepted, leading space too
    dup = hf["cases"]["n_structure_duplicate_tensor_identical"]
    assert dup["outcome"] == "accepted"
    assert dup["ok"] is False
    assert "KEY-UNIQUE" in dup["detail"]
    assert hf["cases"]["i_text_leading_space"] == {"outcome": "accepted", "ok": True}
    assert hf["tests"]["test_writer_refuses_reserved_name"]["ok"] is False
    assert ref["tests"]["test_writer_refuses_reserved_name"]["ok"] is True
    caps = hf["implementation"]["described"]["capabilities"]
    assert caps["write"] is True
    assert "F6_E2M3" not in caps["write_dtypes"]


def _chromium_run(page: Path, tmp_path: Path, *args: str) -> str:
    return chromium(page, tmp_path / "profile", *args)


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA PNG (what Chromium writes) into rows of pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8
            channels = {2: 3, 6: 4}[colour]
        elif kind == b"IDAT":
            chunks += body
        pos += 12 + length
    raw = zlib.decompress(chunks)
    stride = width * channels
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        filter_type = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if filter_type == 1:
                line[i] = (line[i] + a) & 0xFF
            elif filter_type == 2:
                line[i] = (line[i] + b) & 0xFF
            elif filter_type == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif filter_type == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, channels, rows


def test_page_renders_in_chromium(results: Path, tmp_path: Path) -> None:
    page = results / "index.html"
    dom = _chromium_run(page, tmp_path, "--dump-dom")
    manifest = json.loads((REPO / "corpus" / "manifest.json").read_text())
    # Chromium parsed one row per corpus case (but the on-request dense
    # header, which these runs did not request), two implementation columns
    assert dom.count('class="case"') == len(manifest["cases"]) - 1
    assert dom.count('<th class="impl"') == 4  # pruned view + full view
    row = dom.split('id="n_structure_duplicate_tensor_identical"')[1].split("</tr>")[0]
    assert 'class="c ok-reject"' in row  # the reference
    assert 'class="c should-reject"' in row  # HF accepts the duplicate
    assert 'href="../spec/SPEC.md#key-unique"' in row
    # the pruned view leads with the dangerous group
    pruned = dom.split('id="pruned-table"')[1].split("</table>")[0]
    first_group = pruned.split('class="group"')[1].split("</tr>")[0]
    assert "should-reject" in first_group


def test_page_paints_the_outcome_colours(results: Path, tmp_path: Path) -> None:
    shot = tmp_path / "page.png"
    _chromium_run(
        results / "index.html",
        tmp_path,
        "--window-size=1200,1400",
        f"--screenshot={shot}",
    )
    width, channels, rows = _png_pixels(shot.read_bytes())
    colours = set()
    for line in rows[::3]:
        for x in range(0, width * channels, channels * 3):
            colours.add(line[x : x + 3])
    red, green, blue_dark = b"\xd6\x27\x28", b"\x74\xc4\x74", b"\x1f\x5f\x99"
    assert red in colours  # "invalid file ACCEPTED" is painted
    assert green in colours  # "invalid file rejected"
    assert blue_dark in colours  # "implementation-defined: rejected"


# Loads the page in a frame, scrolls the full grid half-way and reports where
# its header row and the table are, and what the score table holds.
_SCROLL_PROBE = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="page" src="index.html" style="width:1200px;height:700px;border:0">
</iframe><script>
document.getElementById("page").onload = () => {
  const win = document.getElementById("page").contentWindow;
  const doc = win.document;
  const grid = doc.getElementById("full-table");
  win.scrollTo(0, grid.offsetTop + grid.offsetHeight / 2);
  const seen = {
    first_heading: doc.querySelector("h2").id,
    score_rows: Array.from(doc.querySelectorAll("#scores tr.score"),
                           (row) => row.cells[0].textContent),
    header_top: grid.querySelector("thead th.impl").getBoundingClientRect().top,
    grid_top: grid.getBoundingClientRect().top,
  };
  const out = document.createElement("pre");
  out.id = "seen";
  out.textContent = JSON.stringify(seen);
  document.body.appendChild(out);
};
</script></body></html>
"""


def test_page_opens_with_scores_and_keeps_headers_in_view(
    results: Path, tmp_path: Path
) -> None:
    probe = results / "scroll-probe.html"
    probe.write_text(_SCROLL_PROBE, "utf-8")
    dom = _chromium_run(
        probe,
        tmp_path,
        "--allow-file-access-from-files",
        "--virtual-time-budget=10000",
        "--dump-dom",
    )
    seen = json.loads(dom.split('<pre id="seen">')[1].split("</pre>")[0])
    assert seen["first_heading"] == "score"
    assert len(seen["score_rows"]) == 2  # reference and HF 0.8.0
    assert any("stspec" in name for name in seen["score_rows"])
    # the grid scrolled far past its top, its header row stayed in view
    assert seen["grid_top"] < -1000
    assert 0 <= seen["header_top"] < 5


def test_each_row_records_its_corpus_seed(results: Path) -> None:
    # STSPEC_CORPUS_SEED=<seed> python -m matrix run --only NAME repeats its bytes
    for name in ("reference", "hf-0.8.0"):
        seed = json.loads((results / f"{name}.json").read_text())["run"]["corpus_seed"]
        assert isinstance(seed, str)
        assert len(seed) == 16
        int(seed, 16)
