"""Sphinx configuration of the documentation site (built by docs/build_site.py)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

project = "safetensors-spec"
author = "the safetensors-spec contributors"
copyright = "the safetensors-spec contributors"  # noqa: A001 - Sphinx's name

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "stspec_site",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "README.md"]

# GitHub-style heading slugs, so that `[text](#some-heading)` links work both
# on GitHub and in the site
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "deflist"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}

# -n (nitpicky): every cross-reference must resolve.  The standard library and
# the other packages named in signatures have no inventory here (the build is
# offline), so references into them are not checked.
nitpick_ignore_regex = [
    ("py:(class|obj|exc|data|func|meth|attr)", r"(?!stspec).*"),
]

html_theme = "furo"
html_title = "safetensors-spec"
html_static_path: list[str] = []
html_show_sourcelink = False
