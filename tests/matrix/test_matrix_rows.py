"""Matrix rows as data files: every row round-trips, a bad row is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from matrix import rows
from matrix.impls import IMPLS

if TYPE_CHECKING:
    from pathlib import Path


def test_every_row_round_trips_through_its_file(tmp_path: Path) -> None:
    paths = rows.export(tmp_path)
    assert [rows.load(p) for p in paths] == list(IMPLS)


def test_the_check_command_accepts_the_exported_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = rows.export(tmp_path)
    assert rows.main(["check", *map(str, paths)]) == 0
    assert capsys.readouterr().out.count(": ok\n") == len(IMPLS)


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
    assert "name 'mine' is not the file's name" in capsys.readouterr().err
