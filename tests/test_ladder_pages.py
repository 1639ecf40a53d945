"""The ladder's site rendered by a real browser (headless Chromium, offline): the
leaderboard, an agent's page and a game's page show what they should, every link resolves
to a page of the site, nothing is fetched or run, and a phone-sized window needs no
sideways scrolling of the page itself."""
import csv
import json
from pathlib import Path
from urllib.parse import urlparse

import pytest

from conftest import pdharness
from test_ladder import write_agent
from test_report import browse as report_browse

pytestmark = pytest.mark.slow

PROBE = """const seen = {
  title: document.title,
  h1: document.querySelector('h1').textContent,
  rows: [...document.querySelectorAll('tbody tr')].map(tr => [...tr.cells].map(td => td.textContent)),
  links: [...document.querySelectorAll('a')].map(a => a.getAttribute('href')),
  refs: document.querySelectorAll('.ref').length,
  points: document.querySelectorAll('#rating-chart circle.point').length,
  chart: document.querySelector('#rating-chart') ? document.querySelector('#rating-chart').getBoundingClientRect().width : 0,
  turns: document.querySelector('pre.turns') ? document.querySelector('pre.turns').textContent : '',
  note: document.querySelector('#note') ? document.querySelector('#note').textContent : '',
  images: document.images.length,
  scripts: document.scripts.length,
  pageWidth: document.documentElement.scrollWidth, viewWidth: window.innerWidth,
};
"""


def browse(page: Path, tmp_path) -> dict:
    """What the probe saw of PAGE in a phone-sized window (test_report.py's browser)."""
    return report_browse(page, tmp_path, PROBE, "400,1200")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    base = tmp_path_factory.mktemp("ladder")
    folder, db, pages = base / "subs", base / "ladder.sqlite", base / "site"
    folder.mkdir()
    write_agent(folder, "AdamsBrown")
    write_agent(folder, "ChenDiaz", '"D", "D", "D"')
    common = ("ladder", folder, "--db", db, "--site", pages, "--length", "3", "5",
              "--games-per-pair", "2", "--reference", "titfortat", "--isolation",
              "process", "--format", "json", "--seed", "9")
    pdharness(*common)
    write_agent(folder, "EvansFord", '"C", "D", "C"', extra="# new in pass 2\n")
    pdharness(*common)
    write_agent(folder, "ChenDiaz", '"D", "D"')       # fails validation: names itself
    (folder / "GarciaHill.py").symlink_to("/etc/passwd")
    result = json.loads(pdharness(*common).stdout)
    return pages, result, db


def test_no_public_page_names_a_team(site):
    pages, result, _ = site
    assert {e["status"] for e in result["entries"]} >= {"failed", "unreadable"}
    for page in pages.iterdir():
        text = page.read_text(encoding="utf-8")
        for team in ("AdamsBrown", "ChenDiaz", "EvansFord", "GarciaHill"):
            assert team not in text, (page.name, team)


def test_the_leaderboard(site, tmp_path):
    pages, result, _ = site
    seen = browse(pages / "index.html", tmp_path)
    assert seen["images"] == 0 and seen["scripts"] == 1   # the probe's only
    assert seen["pageWidth"] <= seen["viewWidth"]         # a phone scrolls only the table
    shown = [row[1].replace("reference", "").strip() for row in seen["rows"]]
    assert shown == [entry["name"] for entry in result["entries"]]
    assert "AdamsBrown" not in json.dumps(seen)           # pseudonyms only
    assert seen["refs"] >= 1 and "tournament" in seen["note"]
    mus = [f"{entry['rating']['mu']:.2f}" if entry["rating"] else "–"
           for entry in result["entries"]]
    assert [row[2] for row in seen["rows"]] == mus


def test_an_agent_page_and_its_games(site, tmp_path):
    pages, result, db = site
    index = browse(pages / "index.html", tmp_path)
    agent_pages = [link for link in index["links"] if link.startswith("agent-")]
    assert len(agent_pages) == 3
    seen = browse(pages / agent_pages[0], tmp_path)
    assert seen["points"] >= 1 and 0 < seen["chart"] <= seen["viewWidth"]
    games = [link for link in seen["links"] if link.startswith("game-")]
    assert len(games) == 2 * 3                            # two games with each of three
    for link in set(seen["links"]) | set(index["links"]):
        assert not urlparse(link).scheme and (pages / link).is_file(), link
    game = browse(pages / games[0], tmp_path)
    assert game["h1"].startswith("Game ") and game["turns"].startswith("turn")
    turns = [text for text in game["turns"].splitlines()[1:] if text.strip()]
    assert 3 <= len(turns) <= 5 and all(" > " in text for text in turns)
    for link in game["links"]:
        assert (pages / link).is_file(), link


def test_the_instructors_key_is_beside_the_record_not_in_the_site(site):
    pages, result, db = site
    rows = list(csv.DictReader(Path(str(db) + ".pseudonyms.csv").open(encoding="utf-8")))
    by_agent = {row["agent"]: row["pseudonym"] for row in rows}
    assert {e["agent"]: e["name"] for e in result["entries"] if e["status"] == "ok"} == \
        {agent: name for agent, name in by_agent.items() if agent != "titfortat"}
    assert not list(pages.glob("*.csv"))
