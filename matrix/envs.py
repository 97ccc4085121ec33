"""Set up each implementation's isolated environment under ``.matrix/``.

Layout (``STSPEC_MATRIX_DIR`` overrides the root):

``.matrix/NAME/venv``         a Python implementation's own virtual environment
``.matrix/NAME/node_modules`` a Node implementation's own packages
``.matrix/NAME/bin``          a built program, or tool links (tinygrad's clang)
``.matrix/_layer-torch/venv`` torch, shared read-only through a ``.pth`` file
``.matrix/_suite/venv``       pytest + hypothesis, which drives ``cmd:`` programs

An environment is rebuilt only when what it was built from changes (a stamp
file holds the pins).  Everything comes from PyPI, npm or Debian by name.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final

from matrix.impls import COMMAND_PINS, LAYERS, SUITE_PINS

if TYPE_CHECKING:
    from matrix.impls import Impl

__all__ = [
    "REPO",
    "env_dir",
    "matrix_root",
    "python_of",
    "run_env",
    "setup",
    "suite_python",
]

REPO: Final = Path(__file__).resolve().parent.parent
_STAMP: Final = ".installed.json"
_PY: Final = f"python{sys.version_info.major}.{sys.version_info.minor}"
# build script -> the folder of matrix/wrappers/ it builds beside every wrapper
_SHARED_SOURCES: Final = {"go_module.sh": REPO / "matrix" / "wrappers" / "_gowire"}


def matrix_root() -> Path:
    """The folder that holds every environment."""
    return Path(os.environ.get("STSPEC_MATRIX_DIR", REPO / ".matrix"))


def env_dir(name: str) -> Path:
    """The environment folder of one implementation (or ``_suite``/``_layer-X``)."""
    return matrix_root() / name


def python_of(name: str) -> Path:
    """The interpreter of a Python environment."""
    return env_dir(name) / "venv" / "bin" / "python"


def suite_python() -> Path:
    """The interpreter that runs the suite against ``cmd:`` programs."""
    return python_of("_suite")


def _log(message: str) -> None:
    print(f"[matrix] {message}", file=sys.stderr, flush=True)


def _check(argv: list[str], **kwargs: object) -> None:
    _log(" ".join(argv))
    subprocess.run(argv, check=True, **kwargs)  # type: ignore[call-overload]  # noqa: S603


def _stamp_matches(folder: Path, stamp: dict[str, object]) -> bool:
    path = folder / _STAMP
    try:
        return bool(json.loads(path.read_text(encoding="utf-8")) == stamp)
    except (OSError, ValueError):
        return False


def _write_stamp(folder: Path, stamp: dict[str, object]) -> None:
    (folder / _STAMP).write_text(json.dumps(stamp, sort_keys=True), encoding="utf-8")


def _venv(
    name: str,
    requirements: tuple[str, ...],
    layer: str | None = None,
    no_deps: tuple[str, ...] = (),
) -> None:
    folder = env_dir(name)
    stamp: dict[str, object] = {"pip": list(requirements), "layer": layer}
    if no_deps:
        stamp["no_deps"] = list(no_deps)
    if _stamp_matches(folder, stamp):
        return
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    _check([sys.executable, "-m", "venv", str(folder / "venv")])
    if layer is not None:
        _venv(f"_layer-{layer}", LAYERS[layer])
        # The layer's packages are visible but not installed here: pip sees them
        # as satisfied, so an implementation that needs torch does not pull in
        # a second copy (or a CUDA build).
        site = folder / "venv" / "lib" / _PY / "site-packages"
        layer_site = env_dir(f"_layer-{layer}") / "venv" / "lib" / _PY / "site-packages"
        (site / f"_matrix_layer_{layer}.pth").write_text(
            f"{layer_site}\n", encoding="ascii"
        )
    pip = [str(python_of(name)), "-m", "pip", "install", "--quiet"]
    if requirements:
        _check([*pip, *requirements])
    if no_deps:
        _check([*pip, "--no-deps", *no_deps])
    _write_stamp(folder, stamp)


def _node(name: str, packages: tuple[str, ...]) -> None:
    folder = env_dir(name)
    stamp: dict[str, object] = {"npm": list(packages)}
    if _stamp_matches(folder, stamp):
        return
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "package.json").write_text(
        json.dumps({"name": f"matrix-{name}", "private": True}), encoding="utf-8"
    )
    _check(
        [
            "npm",
            "install",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--prefix",
            str(folder),
            *packages,
        ]
    )
    _write_stamp(folder, stamp)


def _apt(packages: tuple[str, ...]) -> None:
    missing = [
        p
        for p in packages
        if subprocess.run(  # noqa: S603
            ["dpkg-query", "-W", "-f=${Status}", p],  # noqa: S607
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        != "install ok installed"
    ]
    if missing:
        _check(["apt-get", "install", "-y", "-q", *missing], env=_apt_env())


def _apt_env() -> dict[str, str]:
    return {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}


def _build(impl: Impl) -> None:
    assert impl.build is not None  # noqa: S101 - the caller checked
    folder = env_dir(impl.name)
    script = REPO / "matrix" / "build" / impl.build
    stamp: dict[str, object] = {
        "build": impl.build,
        "script": script.read_text(encoding="utf-8"),
    }
    if impl.build_args:
        stamp["args"] = list(impl.build_args)
    # A program built from a folder of matrix/wrappers/ (stcli): a changed
    # source must rebuild it, or the results would describe the old program.
    sources = REPO / "matrix" / "wrappers" / impl.wrapper
    if sources.is_dir():
        stamp["sources"] = {
            path.name: path.read_text(encoding="utf-8")
            for path in sorted(sources.iterdir())
            if path.is_file()
        }
    # The Go wrappers share a helper module the build script copies too.
    shared = _SHARED_SOURCES.get(impl.build)
    if shared is not None:
        stamp["shared"] = {
            path.name: path.read_text(encoding="utf-8")
            for path in sorted(shared.iterdir())
            if path.is_file()
        }
    if _stamp_matches(folder, stamp):
        return
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    _check(["bash", str(script), str(folder), *impl.build_args])
    _write_stamp(folder, stamp)


def setup(impl: Impl) -> None:
    """Install (or confirm) everything ``impl`` needs."""
    _apt(impl.apt)
    if impl.kind == "python":
        _venv(impl.name, (*SUITE_PINS, *impl.pip), impl.layer, impl.pip_no_deps)
    else:
        _venv("_suite", (*SUITE_PINS, *COMMAND_PINS))
    if impl.npm:
        _node(impl.name, impl.npm)
    if impl.build:
        _build(impl)
    if "clang-19" in impl.apt:
        # tinygrad's CPU backend runs `clang`; Debian's default clang (14)
        # cannot compile its __bf16 code, so its PATH sees clang-19 as clang.
        bin_dir = env_dir(impl.name) / "bin"
        bin_dir.mkdir(exist_ok=True)
        link = bin_dir / "clang"
        if not link.exists():
            link.symlink_to("/usr/bin/clang-19")


def run_env(impl: Impl) -> dict[str, str]:
    """The environment variables an implementation's runs need."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        str(REPO / part) for part in ("reference", "conformance", "corpus")
    )
    env.update(impl.env)
    bin_dir = env_dir(impl.name) / "bin"
    if bin_dir.is_dir():
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["STSPEC_MATRIX_ENV"] = str(env_dir(impl.name))
    return env
