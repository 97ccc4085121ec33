"""Matrix rows as data files: every committed row is valid, a bad row is refused."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING

import pytest
from matrix import rows
from matrix.impls import IMPLS

if TYPE_CHECKING:
    from pathlib import Path

ROW_FILES = sorted(rows.ROWS.glob("*.toml"))
HF_CRATES = ("0.2.8", "0.3.3", "0.4.5", "0.5.3", "0.6.2", "0.7.0", "0.8.0")


@pytest.mark.parametrize("path", ROW_FILES, ids=lambda p: p.stem)
def test_every_committed_row_file_passes_the_check(path: Path) -> None:
    # the schema (exact pins, plain names), the wrapper, probe and build
    # script exist, a cmd row has a build script or npm pins, the name is
    # the file's
    assert rows.load(path).name == path.stem


def test_the_rows_are_the_files_in_table_order() -> None:
    assert rows.load_all() == IMPLS
    assert len(IMPLS) == len(ROW_FILES)
    # the table's order is the files' word: ordered rows by place, each its own,
    # then the rows without one by name
    placed = [impl.order for impl in IMPLS if impl.order is not None]
    assert placed == sorted(set(placed))
    unplaced = [impl.name for impl in IMPLS if impl.order is None]
    assert [impl.name for impl in IMPLS[len(placed) :]] == sorted(unplaced)


def test_a_row_written_by_dumps_loads_as_the_same_row(tmp_path: Path) -> None:
    for impl in IMPLS:
        path = tmp_path / f"{impl.name}.toml"
        path.write_text(rows.dumps(impl))
        assert rows.load(path) == impl


def test_the_check_command_accepts_the_committed_rows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert rows.main(["check", *map(str, ROW_FILES)]) == 0
    assert capsys.readouterr().out.count(": ok\n") == len(ROW_FILES)


def test_rows_without_an_order_follow_the_ordered_ones_by_name(
    tmp_path: Path,
) -> None:
    base = IMPLS[0]
    for impl in (
        replace(base, name="zz", order=None),
        replace(base, name="aa", order=None),
        replace(base, name="mm", order=5),
    ):
        (tmp_path / f"{impl.name}.toml").write_text(rows.dumps(impl))
    assert [impl.name for impl in rows.load_all(tmp_path)] == ["mm", "aa", "zz"]


def test_two_rows_in_one_place_are_refused(tmp_path: Path) -> None:
    for name in ("one", "two"):
        impl = replace(IMPLS[0], name=name, order=7)
        (tmp_path / f"{name}.toml").write_text(rows.dumps(impl))
    with pytest.raises(ValueError, match=r"two\.toml: order: 7 is also one's"):
        rows.load_all(tmp_path)


GOOD = 'name = "mine"\ntitle = "mine 1.0"\nlanguage = "Python"\nkind = "python"\n'


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (
            'wrapper = "../../etc/passwd"\n',
            "wrapper: '../../etc/passwd' does not match",
        ),
        ('wrapper = "no_such_st.py"\n', "matrix/wrappers/no_such_st.py does not exist"),
        ('wrapper = "reference_st.py"\npip = ["mylib>=1"]\n', "pip/0: 'mylib>=1'"),
        ('wrapper = "reference_st.py"\nnpm = ["x@latest"]\n', "npm/0: 'x@latest'"),
        ('wrapper = "reference_st.py"\nbuild = "../x.sh"\n', "build: '../x.sh'"),
        ('wrapper = "reference_st.py"\nsuite_args = ["-p evil"]\n', "suite_args/0"),
        ('wrapper = "reference_st.py"\nlayer = "tensorflow"\n', "layer: 'tensorflow'"),
        ('wrapper = "reference_st.py"\nmemory_limit_mib = 1\n', "memory_limit_mib: 1"),
        ('wrapper = "reference_st.py"\nowner = "me"\n', "'owner' was unexpected"),
        ('wrapper = "reference_st.py"\ntracker = "http://x"\n', "tracker: 'http://x'"),
        # where findings go, and what the wrapper calls: every row says both
        ('wrapper = "reference_st.py"\n', "(row): 'tracker' is a required property"),
        ('wrapper = "reference_st.py"\n', "(row): 'api' is a required property"),
        ('wrapper = "reference_st.py"\norder = -1\n', "order: -1"),
        ('wrapper = "reference_st.py"\nprobe = "gone.py"\n', "wrappers/gone.py does"),
        ('wrapper = "stcli"\nbuild = "nope.sh"\n', "matrix/build/nope.sh does not"),
        ("wrapper = [\n", "not TOML"),
    ],
)
def test_a_row_that_breaks_the_schema_is_refused_saying_why(
    tmp_path: Path, extra: str, problem: str
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(GOOD + extra)
    with pytest.raises(ValueError, match=r"mine\.toml: ") as raised:
        rows.load(path)
    assert problem in str(raised.value)


def test_a_new_row_with_a_tracker_and_its_api_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(
        GOOD + 'wrapper = "reference_st.py"\npip = ["mylib==1.0"]\n'
        'tracker = "https://example.org/issues"\napi = "mylib.load(path)"\n'
    )
    impl = rows.load(path)
    assert (impl.name, impl.pip, impl.memory_limit_mib) == (
        "mine",
        ("mylib==1.0",),
        2048,
    )
    assert rows.main(["check", str(path)]) == 0
    other = tmp_path / "other.toml"
    other.write_text(path.read_text())
    assert rows.main(["check", str(other)]) == 1
    assert "name: 'mine' is not the file's name" in capsys.readouterr().err


def test_a_cmd_row_with_nothing_to_install_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(GOOD.replace('"python"', '"cmd"') + 'wrapper = "stcli"\n')
    with pytest.raises(ValueError, match="a cmd row needs a build script"):
        rows.load(path)


def test_the_list_command_names_every_row_in_table_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert rows.main(["list"]) == 0
    assert json.loads(capsys.readouterr().out) == [impl.name for impl in IMPLS]


def test_the_row_the_how_to_shows_passes_once_its_wrapper_exists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = rows.ROWS.parents[1] / "docs" / "howto" / "add-your-implementation.md"
    shown = re.findall(r"```toml\n(.*?)```", page.read_text("utf-8"), re.DOTALL)
    assert len(shown) == 1
    path = tmp_path / "mylib.toml"
    path.write_text(shown[0])
    # as the page runs it: before the wrapper is written, that is all it lacks
    assert rows.main(["check", str(path)]) == 1
    assert capsys.readouterr().err.count("\n") == 1
    with pytest.raises(ValueError, match=r"wrapper: matrix/wrappers/mylib_st\.py does"):
        rows.load(path)
    path.write_text(shown[0].replace('"mylib_st.py"', '"reference_st.py"'))
    assert rows.load(path).api == "mylib.load(path), mylib.save(path, tensors)"


def test_a_change_concerns_the_rows_whose_files_it_touches(
    capsys: pytest.CaptureFixture[str],
) -> None:
    changed = [
        "matrix/rows/mlx.toml",  # the row itself
        "matrix/wrappers/java_djl/DjlReader.java",  # a file of a wrapper's folder
        "matrix/build/rust_crate.sh",  # the build script of every crate row
        "matrix/wrappers/reference_st.py",  # the reference's probe
        "matrix/wrappers/_spec.py",  # shared by all: left to a full run
        "matrix/rows/gone.toml",  # a row the change deleted
        "docs/index.md",
    ]
    assert rows.main(["affected", *changed]) == 0
    listed = capsys.readouterr().out.split()
    assert listed == [
        "matrix/rows/djl.toml",
        *(f"matrix/rows/hf-rust-{v}.toml" for v in sorted(HF_CRATES)),
        "matrix/rows/mlx.toml",
        "matrix/rows/reference.toml",
    ]


def test_the_apt_command_names_the_debian_packages_of_the_rows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = [str(rows.ROWS / f"{name}.toml") for name in ("tinygrad", "mlx")]
    assert rows.main(["apt", *files]) == 0
    tinygrad = rows.load(rows.ROWS / "tinygrad.toml")
    assert tinygrad.apt  # a row that needs one
    assert capsys.readouterr().out.split() == sorted(tinygrad.apt)
    assert rows.main(["apt", files[1]]) == 0
    assert capsys.readouterr().out.split() == []
