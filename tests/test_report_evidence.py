"""The report links its evidence: the run's date, the harness version, each agent's source
hash, and every heat-map cell and listed fault linked to a turn-by-turn view of its game in
the same offline file - links followed in headless Chromium (a followed link opens its
section, with no script in the page)."""
from __future__ import annotations

import hashlib
import re
import subprocess

import pytest

from conftest import AGENTS, run_cli
from test_report import browse, chromium

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

RAISER = AGENTS / "outcome" / "FirstCallRaiser.py"
FIELD = (str(RAISER), str(AGENTS / "records" / "Stumbler.py"), "titfortat", "defect",
         "random")

LINKS = """<script>
const links = [...document.querySelectorAll('a[href^="#game-"]')].map(a => {
  const target = document.getElementById(a.getAttribute('href').slice(1));
  const cell = a.querySelector('rect.cell');
  return {href: a.getAttribute('href'), from: cell ? 'heat' : 'fault',
          tip: cell ? cell.querySelector('title').textContent : a.closest('ul').previousElementSibling.textContent,
          found: !!target, tag: target ? target.tagName : '',
          summary: target ? target.closest('details').querySelector('summary').textContent : '',
          turns: target ? target.textContent.split('\\n').length : 0};
});
const pre = document.createElement('pre'); pre.id = 'links';
pre.textContent = JSON.stringify(links); document.body.appendChild(pre);
</script>"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("evidence")
    page = folder / "report.html"
    status, _out, err = run_cli("tournament", *FIELD, "--seed", "5", "--length", "6", "6",
                                "--isolation", "process", "--db", folder / "run.sqlite",
                                "--report", page)
    assert status == 0, err
    return page, folder


def links_seen(page, tmp_path) -> list[dict]:
    import html
    import json

    probed = tmp_path / "links.html"
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", LINKS + "</body>"))
    done = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", probed.as_uri()],
        capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="links">(.*?)</pre>', done.stdout, re.S)
    assert found, done.stderr[-2000:]
    return json.loads(html.unescape(found.group(1)))


def test_every_heat_map_cell_and_fault_links_to_its_game(report, tmp_path):
    page, _folder = report
    links = links_seen(page, tmp_path)
    assert all(link["found"] and link["tag"] == "PRE" for link in links)
    heat = [link for link in links if link["from"] == "heat"]
    assert len(heat) == 5 * 4                 # every cell but the diagonal
    for link in heat:
        me, them = re.match(r"(\S+) vs (\S+):", link["tip"]).groups()
        assert f" {me} " in f" {link['summary']} " and f" {them} " in f" {link['summary']} "
        assert link["turns"] == 6 + 1         # the header row and six turns
    faults = [link for link in links if link["from"] == "fault"]
    assert faults and all("faults" in link["summary"] for link in faults)
    assert {link["tip"].split(":")[0] for link in faults} >= {"FirstCallRaiser", "Stumbler"}


def test_following_a_link_opens_the_game(report, tmp_path):
    page, _folder = report
    target = re.search(r'href="(#game-\d+)"', page.read_text(encoding="utf-8")).group(1)
    done = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri() + target],
        capture_output=True, text=True, timeout=120)
    opened = re.findall(r'<details class="game" open="">.*?<pre id="([^"]+)"', done.stdout,
                        re.S)
    assert opened == [target[1:]]


def test_the_report_says_when_by_what_and_from_which_sources(report, tmp_path):
    import harness

    page, _folder = report
    seen = browse(page, tmp_path)
    assert re.search(r"run started \d{4}-\d\d-\d\dT", seen["header"])
    assert f"pdharness {harness.__version__}" in seen["header"]
    digest = hashlib.sha256(RAISER.read_bytes()).hexdigest()
    row = next(row for row in seen["standings"] if row[1] == "FirstCallRaiser")
    assert row[-1] == digest[:12]
    assert "Note: FirstCallRaiser faulted on the first call of every game" in seen["header"]
    assert len(page.read_bytes()) < 200_000


def test_a_stopped_run_is_labelled_so_in_the_report(tmp_path):
    page = tmp_path / "stopped.html"
    status, _out, err = run_cli("tournament", "titfortat", "defect", "random", "grudger",
                                "--seed", "3", "--length", "4", "4", "--max-rounds", "1",
                                "--isolation", "none", "--report", page)
    assert status == 0, err
    seen = browse(page, tmp_path)
    assert "Stopped after round 1 (--max-rounds): no winner" in seen["header"]
    assert "Winner" not in seen["header"] and "Co-winners" not in seen["header"]
    assert sum(row[4] == "still in" for row in seen["standings"]) >= 2
