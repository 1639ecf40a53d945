"""Sphinx configuration of pdharness's documentation site.

Built offline, warnings as errors: `python -m sphinx -W -b html docs OUT` (the `docs`
extra installs what it needs; tests/test_docs.py builds it the same way). The pages are
MyST Markdown, so they read as Markdown on GitHub too; the command reference is
generated from the click commands themselves (sphinx-click)."""
from __future__ import annotations

import sys
from pathlib import Path

# the reference documents the checkout's own commands, installed or not
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# the site's own directives (the protocol's verbs, from the table that owns them)
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

from harness.core.package import __version__  # noqa: E402

project = "pdharness"
author = "the pdharness authors"
copyright = "the pdharness authors"
version = release = __version__

extensions = ["myst_parser", "sphinx_click", "protocol_verbs"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", ".venv", "**/.pytest_cache"]

# `[text](page.md#a-heading)` links work on GitHub and in the site alike
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

# blocks without a language are shown as they are (the command lines' output, JSON
# abridged with `...`): no lexer guesses at them and warns
highlight_language = "none"

# options are shown as typed: `--isolation`, not an en dash and a hyphen
smartquotes = False

html_theme = "alabaster"
html_title = f"pdharness {release}"
html_static_path = ["_static"]
html_css_files = ["pdharness.css"]
html_theme_options = {
    "description": "The Levinson Prisoner's Dilemma tournament monitor",
    "fixed_sidebar": True,
    "page_width": "1180px",
    "sidebar_width": "250px",
    "show_relbars": True,
    # alabaster's defaults name web fonts; the site loads nothing from another host
    "font_family": "system-ui, -apple-system, 'Segoe UI', sans-serif",
    "head_font_family": "system-ui, -apple-system, 'Segoe UI', sans-serif",
    "code_font_family": "ui-monospace, 'DejaVu Sans Mono', monospace",
}
html_sidebars = {"**": ["about.html", "navigation.html", "searchbox.html"]}
html_show_sourcelink = False
html_copy_source = False
