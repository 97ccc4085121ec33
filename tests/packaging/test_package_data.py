"""What the wheel carries, and where the installed package finds (and writes) it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import stspec_conformance
import stspec_corpus
from stspec import SPEC_VERSION, __version__
from stspec_corpus import _paths
from stspec_corpus._cli import main

if TYPE_CHECKING:
    from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _setup_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stspec_setup", ROOT / "setup.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_wheel_ships_corpus_spec_and_baselines() -> None:
    shipped = {target for _, target in _setup_module().shipped_files()}
    corpus = {f"stspec_corpus/data/{p.name}" for p in (ROOT / "corpus").glob("*.json")}
    files = {
        f"stspec_corpus/data/files/{p.name}"
        for p in (ROOT / "corpus" / "files").iterdir()
    }
    assert corpus == {
        "stspec_corpus/data/manifest.json",
        "stspec_corpus/data/manifest.schema.json",
    }
    assert len(files) > 300
    assert corpus | files <= shipped
    assert {
        "stspec/spec/SPEC.md",
        "stspec/spec/header.schema.json",
        "stspec_conformance/baselines/safetensors-0.8.0.txt",
    } <= shipped


def test_readme_links_become_absolute_for_the_package_index() -> None:
    setup = _setup_module()
    text = (
        "[spec](spec/SPEC.md), [dir](./corpus/), [hf](https://github.com/x/y), "
        "[here](#the-corpus), [mail](mailto:a@b.c)"
    )
    assert setup.absolute_links(text, "https://h/") == (
        "[spec](https://h/spec/SPEC.md), [dir](https://h/corpus/), "
        "[hf](https://github.com/x/y), [here](https://h/README.md#the-corpus), "
        "[mail](mailto:a@b.c)"
    )
    published = setup.absolute_links((ROOT / "README.md").read_text("utf-8"))
    assert setup._RELATIVE_LINK.search(published) is None
    assert setup._ANCHOR_LINK.search(published) is None


def test_one_version_for_spec_package_corpus_and_suite() -> None:
    assert __version__.startswith(SPEC_VERSION + ".")
    assert stspec_corpus.__version__ == __version__
    assert stspec_conformance.__version__ == __version__


def test_a_checkout_reads_and_writes_its_own_corpus() -> None:
    assert _paths.source_dir() == ROOT / "corpus"
    assert stspec_corpus.default_dir() == ROOT / "corpus"
    assert _paths.writable_dir() == ROOT / "corpus"


def _installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Pretend the package sits in site-packages with its shipped data."""
    package = tmp_path / "site-packages" / "stspec_corpus"
    (package / "data").mkdir(parents=True)
    (package / "data" / "manifest.json").write_text("{}")
    monkeypatch.setattr(_paths, "PACKAGE", package)
    monkeypatch.setattr(_paths, "SHIPPED", package / "data")
    return package


def test_an_installed_package_reads_its_shipped_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _installed(tmp_path, monkeypatch)
    assert _paths.source_dir() is None
    assert stspec_corpus.default_dir() == package / "data"
    (package / "data" / "manifest.json").unlink()
    with pytest.raises(FileNotFoundError, match="no corpus"):
        stspec_corpus.default_dir()


def test_generate_never_writes_into_an_installed_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    package = _installed(tmp_path, monkeypatch)
    assert main(["generate"]) == 2
    assert "--out DIR" in capsys.readouterr().err
    assert sorted(p.name for p in package.rglob("*")) == ["data", "manifest.json"]
    assert main(["generate", "--out", str(tmp_path / "mine")]) == 0
    assert (tmp_path / "mine" / "manifest.json").is_file()


def test_lint_without_jsonschema_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)  # import fails
    assert main(["lint", "--no-recipes"]) == 2
    assert "pip install 'safetensors-spec[lint]'" in capsys.readouterr().err
