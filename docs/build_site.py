"""Build the documentation site and check every internal link and anchor in it.

    python docs/build_site.py OUT      # sphinx-build -W --keep-going -n, then links
    python docs/build_site.py --links-only OUT

Sphinx's own ``linkcheck`` builder fetches external URLs; CI has no network, so
this checks what the site itself promises: each relative link names a file of
the built site, and each ``#fragment`` an id in that file.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

DOCS: Final = Path(__file__).resolve().parent


class _Page(HTMLParser):
    """The ids a page defines and the links it makes."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name"):
            if values.get(key) and (key == "id" or tag == "a"):
                self.ids.add(str(values[key]))
        if tag == "a" and values.get("href") is not None:
            self.links.append(str(values["href"]))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def broken_links(site: Path) -> list[str]:
    """Every internal link of the built site that leads nowhere, as text."""
    pages = {path: _parse(path) for path in sorted(site.rglob("*.html"))}
    problems = []
    for path, page in pages.items():
        for href in page.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith("mailto:"):
                continue  # external: not checked offline
            target = (
                (path.parent / unquote(parts.path)).resolve() if parts.path else path
            )
            if target.is_dir():
                target /= "index.html"
            where = f"{path.relative_to(site)}: link {href!r}"
            if not target.is_file():
                missing = os.path.relpath(target, site.resolve())
                problems.append(f"{where}: no file {missing}")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if fragment not in ids:
                    problems.append(f"{where}: no id {fragment!r} in that page")
    return problems


def build(out: Path) -> int:
    """Run sphinx-build with warnings as errors; its exit status."""
    command = [
        sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q",
        "-b", "html", str(DOCS), str(out),
    ]  # fmt: skip
    return subprocess.run(command, check=False).returncode  # noqa: S603


def main(argv: list[str] | None = None) -> int:
    """Build (unless --links-only) and check the links; 0 when all is well."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the folder the site is built into")
    parser.add_argument("--links-only", action="store_true", help="do not build")
    args = parser.parse_args(argv)
    if not args.links_only and (status := build(args.out)) != 0:
        return status
    problems = broken_links(args.out.resolve())
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} broken internal links", file=sys.stderr)
        return 1
    print(f"site built in {args.out}; every internal link and anchor resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
