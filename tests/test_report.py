"""The HTML report, rendered by a real browser (headless Chromium) and checked for what is
on the page: every section, chart sizes, nothing drawn outside its chart, nothing fetched."""
import html
import json
import re
import shutil
import subprocess
import sys

import pytest

from conftest import AGENTS, IN_CI, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

RECORD_AGENTS = AGENTS / "records"
FIELD = (str(RECORD_AGENTS / "Moody.py"), str(RECORD_AGENTS / "Stumbler.py"),
         str(RECORD_AGENTS / "Mischief.py"), "titfortat", "grudger", "defect", "random")
FAST = ("--isolation", "none", "--jobs", "1")

# Measures the page as laid out into `seen`, which browse() writes into the page, as text.
PROBE = """const box = e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; };
const rows = sel => [...document.querySelectorAll(sel)].map(
  tr => [...tr.cells].map(td => td.textContent));
const svgs = [...document.querySelectorAll('svg')].map(svg => {
  const b = svg.getBBox(), v = svg.viewBox.baseVal;
  return {id: svg.id, size: box(svg), content: [b.x, b.y, b.x + b.width, b.y + b.height],
          view: [v.width, v.height]};
});
const seen = {
  title: document.title,
  sections: [...document.querySelectorAll('section')].map(
    s => ({id: s.id, heading: s.querySelector('h2').textContent, size: box(s)})),
  standings: rows('#standings tbody tr'),
  metrics: rows('#metrics tbody tr'),
  parameters: rows('#parameters tr'),
  cells: document.querySelectorAll('#heat-map rect.cell').length,
  cellTitles: [...document.querySelectorAll('#heat-map rect.cell title')].map(t => t.textContent),
  bars: [...document.querySelectorAll('#elimination-chart rect')].map(r => box(r)[0]),
  means: document.querySelectorAll('#replicates-chart circle.mean-rank').length,
  images: document.images.length,
  scripts: document.scripts.length,
  faults: document.querySelector('#faults').textContent,
  header: document.querySelector('header').textContent,
  svgs: svgs,
  pageWidth: document.documentElement.scrollWidth, viewWidth: window.innerWidth,
};
"""


# what every probe ends with: what it saw (`seen`), as text in the page
WRITE_SEEN = """const out = document.createElement('pre');
out.id = 'probe';
out.textContent = JSON.stringify(seen);
document.body.appendChild(out);
"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    if IN_CI:
        pytest.fail("chromium is not installed: CI installs it (apt-get install chromium)")
    pytest.skip("chromium is not installed (apt-get install chromium)")


def browse(page, tmp_path, probe: str = PROBE, window: str = "1280,2000") -> dict:
    """Open `page` (with the probe added) in headless Chromium, offline, in a window of
    that size; what the probe saw."""
    probed = tmp_path / f"probed-{page.name}"
    script = f"<script>{probe}{WRITE_SEEN}</script>"
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", script + "</body>"),
                      encoding="utf-8")
    done = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
         f"--window-size={window}", "--dump-dom", probed.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found, "the page did not render (no probe output)"
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    page = folder / "report.html"
    status, out, err = run_cli("tournament", *FIELD, "--seed", "8", *FAST, "--format", "json",
                               "--report", page, "--db", folder / "run.sqlite")
    assert status == 0, err
    return page, json.loads(out), folder


def test_the_page_shows_every_section_in_order(report, tmp_path):
    page, result, _ = report
    seen = browse(page, tmp_path)
    assert seen["title"] == "Levinson tournament, seed 8"
    assert [s["id"] for s in seen["sections"]] == [
        "standings", "elimination", "head-to-head", "play", "faults", "rounds", "parameters",
        "games"]
    assert all(s["size"][0] > 300 and s["size"][1] > 60 for s in seen["sections"])
    winner = result["standings"][0]["agent"]
    assert f"Winner: {winner}" in seen["header"]
    assert seen["pageWidth"] <= seen["viewWidth"]  # nothing sticks out sideways


def test_standings_and_metrics_are_those_of_the_run(report, tmp_path):
    page, result, _ = report
    seen = browse(page, tmp_path)
    assert [(int(r[0]), r[1], int(r[3])) for r in seen["standings"]] == [
        (s["rank"], s["agent"], s["score"]) for s in result["standings"]]
    metrics = result["metrics"]["agents"]
    for row in seen["metrics"]:
        assert row[5] == f"{metrics[row[0]]['points_per_move']:.2f}"
        assert row[3] == f"{metrics[row[0]]['cooperation_played']:.0%}"
        assert [int(n) for n in row[6:]] == list(metrics[row[0]]["faults"].values())
    parameters = {row[0]: row[1] for row in seen["parameters"]}
    assert parameters["seed"] == "8" and parameters["flip"] == "0.25 0.1"


def test_the_charts_are_drawn_inside_their_frames(report, tmp_path):
    page, result, _ = report
    seen = browse(page, tmp_path)
    agents = len(result["standings"])
    assert seen["cells"] == agents * agents
    head_to_head = result["metrics"]["head_to_head"]
    some = next(iter(head_to_head))
    other = next(iter(head_to_head[some]))
    assert (f"{some} vs {other}: {head_to_head[some][other]:.2f} points per move"
            in seen["cellTitles"])
    # one bar per agent, longer the later it was dropped
    assert len(seen["bars"]) == agents
    dropped = [s["dropped_in"] or 99 for s in result["standings"]]
    by_round = sorted(zip(dropped, seen["bars"], strict=False))
    assert [bar for _, bar in by_round] == sorted(seen["bars"])
    for svg in seen["svgs"]:
        x0, y0, x1, y1 = svg["content"]
        width, height = svg["view"]
        assert svg["size"][0] > 100 and svg["size"][1] > 50, svg["id"]
        assert x0 >= -1 and y0 >= -1 and x1 <= width + 1 and y1 <= height + 1, svg["id"]


def test_faults_are_listed_and_agent_text_stays_text(report, tmp_path):
    page, _, _ = report
    seen = browse(page, tmp_path)
    assert "Stumbler: " in seen["faults"] and "stumbled on call 7" in seen["faults"]
    assert "<img src=x" in seen["faults"]            # Mischief's message, shown as text
    assert seen["images"] == 0 and seen["scripts"] == 1  # only the probe
    assert seen["title"] != "owned"


def test_the_file_is_self_contained(report):
    page, _, _ = report
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text.replace("&lt;script", "")
    # Mischief's message, escaped (a long one cut short with …), is text: no attribute
    assert not re.search(r"\b(src|href)=\"?[^\"#]", re.sub(r"&lt;img src=\S*", "", text))
    assert re.findall(r"https?://[^\"' ]+", text) == ["http://www.w3.org/2000/svg"] * \
        text.count("<svg ")
    assert "@import" not in text and "url(" not in text.replace("url(#scale)", "")


def test_show_makes_the_same_report_from_the_record(report, tmp_path):
    page, _, folder = report
    again = tmp_path / "again.html"
    status, _, err = run_cli("show", folder / "run.sqlite", "--report", again)
    assert status == 0, err
    assert again.read_text(encoding="utf-8") == page.read_text(encoding="utf-8")


def test_a_report_of_an_unfinished_record_says_so(report, tmp_path):
    import sqlite3

    _, result, folder = report
    copy = tmp_path / "cut.sqlite"
    copy.write_bytes((folder / "run.sqlite").read_bytes())
    with sqlite3.connect(copy) as connection:
        connection.execute("DELETE FROM move WHERE game IN (SELECT id FROM game WHERE round > 1)")
        connection.execute("DELETE FROM fault WHERE game IN "
                           "(SELECT id FROM game WHERE round > 1)")
        connection.execute("DELETE FROM game WHERE round > 1")
        connection.execute("DELETE FROM round_score WHERE round > 1")
        connection.execute("DELETE FROM round WHERE number > 1")
        connection.execute("UPDATE agent SET rank = NULL, dropped_in = NULL "
                           "WHERE dropped_in IS NULL OR dropped_in > 1")
        connection.execute("UPDATE run SET finished_at = NULL")
    page = tmp_path / "cut.html"
    status, _, err = run_cli("show", copy, "--report", page, "--format", "json")
    assert status == 0, err
    seen = browse(page, tmp_path)
    assert "Incomplete record: 1 completed round" in seen["header"]
    still_in = len(result["rounds"][1]["scores"])
    assert sum(1 for row in seen["standings"] if row[4] == "still in") == still_in


def test_replicates_get_a_chart(tmp_path):
    page = tmp_path / "report.html"
    status, _, err = run_cli("tournament", "defect", "titfortat", "random", "grudger",
                             "--seed", "3", *FAST, "--replicates", "6", "--report", page)
    assert status == 0, err
    seen = browse(page, tmp_path)
    assert "replicates" in [s["id"] for s in seen["sections"]]
    assert seen["means"] == 4


def test_long_names_fit_their_charts(tmp_path):
    from harness.agents.specs import callable_spec
    from harness.engine.tournament import Settings, run_tournament
    from harness.present.tournament_report import write_report
    from harness.run.replicates import run_replicates

    def always_c(hist, score):
        return "CCC"

    def always_d(hist, score):
        return "DDD"

    def copycat(hist, score):
        return hist[-1][1] * 3 if hist else "CCC"

    specs = [callable_spec(always_d, "TheStrategyThatAlwaysDefectsNoMatterWhat"),
             callable_spec(copycat, "CopycatWithAnUnusuallyLongNameForAnAgent"),
             callable_spec(always_c, "ZzzTheCooperatorWhoseNameSortsLastOfAll")]
    settings = Settings(jobs=1)
    result = run_tournament(specs, 5, settings)
    result.replicates = run_replicates(specs, 5, settings, 3, jobs=1)
    page = tmp_path / "long.html"
    write_report(page, result)
    seen = browse(page, tmp_path)
    assert len(seen["svgs"]) == 4
    for svg in seen["svgs"]:
        x0, y0, x1, y1 = svg["content"]
        width, height = svg["view"]
        assert x0 >= -1 and y0 >= -1 and x1 <= width + 1 and y1 <= height + 1, svg
    assert seen["pageWidth"] <= seen["viewWidth"]


def test_every_value_of_a_record_is_escaped_in_the_report(report, tmp_path):
    """Text columns (the ones SQLite and the type check let hold anything) edited to hold
    markup: the page shows it as text and runs nothing."""
    import sqlite3

    _, _, folder = report
    copy = tmp_path / "edited.sqlite"
    copy.write_bytes((folder / "run.sqlite").read_bytes())
    markup = "<script>document.title='owned'</script><img src=x>"
    with sqlite3.connect(copy) as connection:
        connection.execute("UPDATE agent SET language = ?, message = ?", (markup, markup))
        connection.execute("UPDATE run SET command = ?", (markup,))
        connection.execute("UPDATE fault SET message = ?, kind = 'invalid'", (markup,))
    page = tmp_path / "edited.html"
    status, _, err = run_cli("show", copy, "--report", page)
    assert status == 0, err
    seen = browse(page, tmp_path)
    assert seen["images"] == 0 and seen["scripts"] == 1 and seen["title"] != "owned"
    assert {row[2] for row in seen["standings"]} == {markup}
    assert markup in seen["faults"]


def test_the_template_escapes_everything_and_jinja_loads_only_for_a_report():
    from pathlib import Path

    from conftest import ROOT

    template = (ROOT / "harness" / "present" / "templates" / "report.html").read_text()
    assert "|safe" not in template.replace(" ", "") and "autoescape false" not in template
    assert "Markup" not in Path(ROOT / "harness" / "present" / "tournament_report.py").read_text()
    done = subprocess.run(
        [sys.executable, "-c", "import sys, harness, harness.cli, harness.present.outputs, "
         "harness.present.tournament_report; print('jinja2' in sys.modules)"],
        capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "False"
