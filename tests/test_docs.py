"""The documentation site (docs/), as CI builds it: with warnings as errors, loading nothing
from another host, a command reference that shows every option, a schema page that names
every table and column the code creates, a front page from which a newcomer reaches what
they came for, and no reference in the code to a file that is not in the repository."""
from __future__ import annotations

import importlib.util
import re
import sqlite3
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag

import click
import pytest

from conftest import IN_CI, ROOT

DOCS = ROOT / "docs"


def sphinx_installed() -> None:
    if importlib.util.find_spec("sphinx") and importlib.util.find_spec("myst_parser") \
            and importlib.util.find_spec("sphinx_click"):
        return
    if IN_CI:
        pytest.fail("sphinx, myst-parser or sphinx-click is not installed: the test extra "
                    "installs them", pytrace=False)
    pytest.skip("the documentation's packages are not installed (pip install '.[docs]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built as the README says, `python -m sphinx -W -b html docs OUT`, afresh."""
    sphinx_installed()
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-E", "-q", "-b", "html",
                           str(DOCS), str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return out


# -- reading the built HTML --------------------------------------------------------------------
class Page(HTMLParser):
    """A built page: what it loads (tag, attribute, address), its links (with their text),
    and the text under each element that has an id (a section, an option)."""

    LOADS = {"script": "src", "link": "href", "img": "src", "iframe": "src", "source": "src",
             "embed": "src", "object": "data", "video": "src", "audio": "src"}

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.loads: list[tuple[str, str, str]] = []
        self.links: list[tuple[str, str]] = []
        self.by_id: dict[str, list[str]] = {}
        self._all: list[str] = []
        self._open: list[tuple[str, str | None]] = []   # (tag, id) of every open element
        self._link: list[str] | None = None
        self.feed(text)

    VOID = {"br", "img", "link", "meta", "input", "hr", "source", "embed", "wbr", "col"}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        wanted = self.LOADS.get(tag)
        if wanted and attributes.get(wanted):
            self.loads.append((tag, wanted, attributes[wanted]))
        if tag == "a" and attributes.get("href"):
            self._link = [attributes["href"], ""]
        if tag in self.VOID:
            return
        self._open.append((tag, attributes.get("id")))
        if attributes.get("id"):
            self.by_id.setdefault(attributes["id"], [])

    def handle_endtag(self, tag):
        if tag == "a" and self._link is not None:
            self.links.append((self._link[0], self._link[1].strip()))
            self._link = None
        for depth in range(len(self._open) - 1, -1, -1):
            if self._open[depth][0] == tag:
                del self._open[depth:]
                break

    def handle_data(self, data):
        if self._link is not None:
            self._link[1] += data
        self._all.append(data)
        for _tag, element_id in self._open:
            if element_id:
                self.by_id[element_id].append(data)

    def text(self, element_id: str | None = None) -> str:
        parts = self._all if element_id is None else self.by_id.get(element_id, [])
        return " ".join("".join(parts).split())


def page(site: Path, name: str) -> Page:
    return Page((site / name).read_text(encoding="utf-8"))


@pytest.mark.slow   # builds the site (once for the module): seconds
def test_the_site_builds_with_warnings_as_errors_and_has_every_page(site):
    """Every page of docs/ is built (none left out of the tables of contents, which -W
    would have refused), the reference among them."""
    built = {path.stem for path in site.glob("*.html")}
    sources = {path.stem for path in DOCS.glob("*.md")}
    assert sources <= built, sources - built
    assert {"index", "student", "instructor", "rules", "reference", "security", "schema",
            "interface", "facts", "experiments", "llm", "cluster", "performance"} <= sources


@pytest.mark.slow   # builds the site (once for the module): seconds
def test_no_page_loads_anything_from_another_host(site):
    """Offline and private: no script, style sheet, image or frame of any page comes from
    another host (a font or a counter would tell it who reads the course's pages)."""
    remote = [f"{path.name}: <{tag} {attribute}={address}>"
              for path in sorted(site.rglob("*.html"))
              for tag, attribute, address in Page(path.read_text(encoding="utf-8")).loads
              if re.match(r"^\s*(https?:)?//", address, re.I)]
    assert remote == []
    styles = [path.name for path in site.rglob("*.css")
              if re.search(r"@import\s+url\(\s*['\"]?(https?:)?//|url\(\s*['\"]?(https?:)?//",
                           path.read_text(encoding="utf-8", errors="replace"), re.I)]
    assert styles == []


# -- the command reference ---------------------------------------------------------------------
def every_option() -> list[tuple[str, click.Option]]:
    """(command, option) for every option of every listed command, from the click group
    itself: what `pdharness COMMAND --help` offers."""
    from harness.cli import cli

    context = click.Context(cli, info_name="pdharness")
    found = [("", option) for option in cli.params if isinstance(option, click.Option)]
    for name in cli.list_commands(context):
        command = cli.get_command(context, name)
        found += [(name, option) for option in command.params
                  if isinstance(option, click.Option) and not option.hidden]
    return found


def option_block(reference: str, command: str, flag: str) -> str | None:
    """The reference's entry for FLAG of COMMAND: from its anchor to the end of its entry."""
    slug = re.sub(r"^-+", "", flag)
    prefix = f"pdharness-{command}-" if command else "pdharness-"
    start = reference.find(f'id="cmdoption-{prefix}{slug}"')
    if start < 0:
        return None
    return reference[start:reference.find("</dd></dl>", start)]


@pytest.mark.slow   # builds the site (once for the module): seconds
def test_the_reference_shows_every_option_of_every_command_with_its_default(site):
    """Walk the click group: each option's every flag (`-j` and `--jobs`, `--quiet` and
    `--no-quiet`) has its entry under its command, and an option whose help shows a default
    shows it there too. An option added without reaching the reference fails here."""
    reference = (site / "reference.html").read_text(encoding="utf-8")
    options = every_option()
    assert len({command for command, _ in options}) >= 11
    missing, no_default = [], []
    for command, option in options:
        for flag in (*option.opts, *option.secondary_opts):
            block = option_block(reference, command, flag)
            if block is None or f'<span class="pre">{flag}</span>' not in block:
                missing.append(f"{command or 'pdharness'} {flag}")
        shown = option.show_default and option.default is not None and not option.is_flag
        block = option_block(reference, command, option.opts[0])
        if shown and block is not None and "Default" not in block:
            no_default.append(f"{command} {option.opts[0]}")
    assert missing == []
    assert no_default == []


@pytest.mark.slow   # builds the site (once for the module): seconds
def test_the_reference_is_of_the_real_commands(site):
    """Each command has a section of its own, named as on the command line (not the name
    of the function that implements it)."""
    from harness.cli import COMMANDS

    built = page(site, "reference.html")
    for name in COMMANDS:
        assert built.text(f"pdharness-{name}").startswith(name), name


# -- the record's schema -----------------------------------------------------------------------
def created(schema: str) -> dict[str, list[str]]:
    connection = sqlite3.connect(":memory:")
    connection.executescript(schema)
    names = [row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY rowid")]
    return {name: [row[1] for row in connection.execute(f"PRAGMA table_info({name})")]
            for name in names}


def documented(part: str) -> dict[str, str]:
    """The rows of the schema page's tables in PART (by its heading), by table name; the
    views, named in the paragraph after the table, as one row each."""
    text = (DOCS / "schema.md").read_text(encoding="utf-8")
    section = text.split(f"## {part}", 1)[1].split("\n## ", 1)[0]
    rows = {match.group(1): match.group(2)
            for match in re.finditer(r"^\| `(\w+)` \|(.*)$", section, re.M)}
    for match in re.finditer(r"`(\w+)` \(((?:[^()]|\([^)]*\))*)\)", section.split(
            "Two views", 1)[1].split("For example", 1)[0] if "Two views" in section else ""):
        rows[match.group(1)] = match.group(2)
    return rows


@pytest.mark.parametrize("part, module", [
    ("The tournament record", "harness.store.db"),
    ("The experiment record", "harness.run.experiment.record")])
def test_the_schema_page_names_every_table_and_column_the_code_creates(part, module):
    """Created from the code's own SQL: every table and view is on the page, each with
    every one of its columns, and the page names no table the code does not create."""
    schema = created(importlib.import_module(module).SCHEMA)
    rows = documented(part)
    assert sorted(rows) == sorted(schema), "tables (and views) on the page and in the code"
    unnamed = [f"{table}.{column}" for table, columns in schema.items() for column in columns
               if f"`{column}`" not in rows[table]
               and not (table == "run" and column.startswith("payoff_")
                        and "`payoff_t/r/p/s`" in rows[table])]
    assert unnamed == []


# -- the interface page ------------------------------------------------------------------------
@pytest.mark.slow   # builds the site (once for the module): seconds
def test_the_interface_names_every_problem_code_and_every_protocol_verb(site):
    from harness.core import protocol
    from harness.validation.problems import CODES

    interface = (DOCS / "interface.md").read_text(encoding="utf-8")
    submit = (DOCS / "submit.md").read_text(encoding="utf-8")
    assert [code for code in CODES if f"`{code}`" not in interface] == []
    assert [code for code in CODES if f"`{code}`" not in submit] == []
    built = page(site, "interface.html").text()
    assert [verb.word for verb in protocol.VERBS if verb.word not in built] == []
    assert [verb.about[:40] for verb in protocol.VERBS
            if " ".join(verb.about[:40].split()) not in built] == []


# -- a newcomer on the front page --------------------------------------------------------------
NEEDS = {
    # what they came for: (the words a link on the way says, what the page it reaches holds)
    "how to write a Hy agent": ("Hy", ("(defn KhosmoodLevinson", "hist")),
    "how to give agents numpy": ("numpy", ("agent-packages", "--agent-package", "numpy")),
    "how to run the autograder": ("autograder", ("pdharness autograder", "run_autograder",
                                                  "autograder.zip")),
    # the table of what each mode protects, with `process`'s columns as root and as a user
    "what --isolation process protects": ("process", ("reads the other submissions",
                                                       "root, readable", "sandbox (user) process none")),
}


def reachable(site: Path, depth: int = 2) -> list[tuple[str, str, str]]:
    """(link text, page, fragment) of every local link within DEPTH clicks of the front
    page."""
    seen, frontier, found = {"index.html"}, ["index.html"], []
    for _ in range(depth):
        following = []
        for name in frontier:
            for href, text in page(site, name).links:
                target, fragment = urldefrag(href)
                if re.match(r"^[a-z]+:", target) or (target and not target.endswith(".html")):
                    continue
                target = target or name
                found.append((text, target, fragment))
                if target not in seen and (site / target).exists():
                    seen.add(target)
                    following.append(target)
        frontier = following
    return found


@pytest.mark.slow   # builds the site (once for the module): seconds
def test_a_newcomer_reaches_what_they_came_for_within_two_links_of_the_front_page(site):
    """From the front page, a link whose words say it (within two clicks) leads to the
    section that answers: a Hy agent's function, the agent-packages declaration, the
    autograder's bundle, and what process isolation protects."""
    links = reachable(site)
    unmet = []
    for need, (words, holds) in NEEDS.items():
        answered = any(words.lower() in text.lower()
                       and all(part in page(site, target).text(fragment or None)
                               for part in holds)
                       for text, target, fragment in links if (site / target).exists())
        if not answered:
            unmet.append(need)
    assert unmet == []


# -- every file the code names is in the repository --------------------------------------------
SCANNED = ("harness", "lisp_bridge", "tests", "benchmarks")
SUFFIXES = {".py", ".hy", ".lisp", ".md", ".toml", ".txt", ".html", ".cfg"}
# a path of the repository named in a comment, docstring or message: a Markdown file, or
# anything under docs/
MENTION = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md|docs/[\w./-]*[\w/])(?![\w/-])")
ISSUE = re.compile(r"\b(?:issues?|PR) #?\d+\b", re.I)


def scanned_files() -> list[Path]:
    return sorted(path for folder in SCANNED for path in (ROOT / folder).rglob("*")
                  if path.is_file() and path.suffix in SUFFIXES
                  and "__pycache__" not in path.parts and path.name != "test_docs.py")


# files a test makes for itself, named like documents
MADE_BY_TESTS = {"notes.md"}


def exists(name: str, beside: Path) -> bool:
    """From the repository's top, beside the file that names it, or a page of the site
    named by itself (`rules.md`)."""
    name = name.rstrip(".")
    return name in MADE_BY_TESTS or any((folder / name).exists()
                                        for folder in (ROOT, beside.parent, DOCS))


def test_every_file_the_code_names_exists():
    """A comment saying "see docs/rules.md" is only worth reading if the page is there: each
    Markdown file or docs/ path named in harness/, lisp_bridge/, tests/ and benchmarks/
    exists. Each that does not is listed as FILE:LINE."""
    dangling = []
    for path in scanned_files():
        for number, line in enumerate(path.read_text(encoding="utf-8",
                                                     errors="replace").splitlines(), 1):
            for match in MENTION.finditer(line):
                if not exists(match.group(1), path):
                    dangling.append(f"{path.relative_to(ROOT)}:{number}: {match.group(1)}")
    assert dangling == [], "\n".join(dangling)


def test_no_comment_points_at_an_issue_number():
    """An issue number says nothing to a reader of the code: the reason is written out
    instead. (Documents may still date a measurement by the work it came with.)"""
    pointing = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}"
                for path in scanned_files() if path.suffix != ".md"
                for number, line in enumerate(path.read_text(
                    encoding="utf-8", errors="replace").splitlines(), 1)
                if ISSUE.search(line)]
    assert pointing == [], "\n".join(pointing)


def test_the_readme_is_short_and_links_into_the_site():
    """At most 250 lines, and every page it links to exists."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    linked = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(set(linked)) >= 10
    assert [name for name in linked if not (ROOT / name).exists()] == []


def test_the_python_page_lists_every_built_in_agent():
    """The table of built-in agents students play against names each one the code has."""
    from harness.agents.builtins import BUILTINS

    table = (DOCS / "python.md").read_text(encoding="utf-8").split("## Built-in agents", 1)[1]
    listed = set(re.findall(r"^\| (`[^|]+`) \|", table, re.M))
    names = {name for cell in listed for name in re.findall(r"`([a-z]+)`", cell)}
    assert sorted(set(BUILTINS) - names) == []
    assert sorted(names - set(BUILTINS)) == []
