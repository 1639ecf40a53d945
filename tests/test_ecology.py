"""`tournament --ecology`: Axelrod's ecological tournament of a pdharness run."""
from __future__ import annotations

import json
import re

import pytest

from harness.run.ecology import reproduce

from conftest import run_cli


class _Results:
    """What axelrod.Ecosystem reads of a ResultSet."""

    def __init__(self, matrix):
        self.num_players = len(matrix)
        self.payoff_matrix = matrix
        self.payoff_stddevs = [[0.0] * len(matrix) for _ in matrix]


@pytest.mark.parametrize("matrix", [
    [[3.0, 0.0, 3.0], [5.0, 1.0, 1.04], [3.0, 0.98, 3.0]],
    [[1.0, 2.5], [0.5, 2.0]],
    [[2.2, 0.1, 4.0, 1.0], [3.3, 1.0, 0.0, 2.0], [0.5, 4.5, 3.0, 1.5], [1.0, 1.0, 1.0, 1.0]],
])
def test_the_shares_are_axelrods_ecosystem(axelrod, matrix):
    ecosystem = axelrod.Ecosystem(_Results(matrix))
    ecosystem.reproduce(40)
    ours = reproduce(matrix, 40)
    assert len(ours) == len(ecosystem.population_sizes) == 41
    for mine, theirs in zip(ours, ecosystem.population_sizes, strict=True):
        assert mine == pytest.approx(theirs, rel=1e-12, abs=1e-15)


def test_the_classic_ecology_defect_rises_then_titfortat_ends_largest(tmp_path):
    """{cooperate, defect, titfortat}, no noise, the classic game: Axelrod's ecological
    story, from pdharness's own games, through the console script."""
    report = tmp_path / "report.html"
    status, out, err = run_cli("tournament", "cooperate", "defect", "titfortat",
                               "--ecology", "200", "--flip", "0", "0", "--moves-per-turn",
                               "1", "--seed", "5", "--isolation", "none", "--format", "json",
                               "--report", report)
    assert status == 0, err
    ecology = json.loads(out)["ecology"]
    assert ecology["generations"] == 200
    shares = [dict(zip(ecology["agents"], row, strict=True)) for row in ecology["shares"]]
    assert len(shares) == 201
    for row in shares:
        assert sum(row.values()) == pytest.approx(1.0, abs=1e-9)
        assert all(share >= 0 for share in row.values())
    assert shares[0] == pytest.approx({name: 1 / 3 for name in shares[0]})
    peak = max(range(len(shares)), key=lambda g: shares[g]["defect"])
    assert shares[1]["defect"] > shares[0]["defect"] and 0 < peak < 200   # rises, then falls
    assert shares[-1]["defect"] < shares[peak]["defect"] / 10
    assert max(shares[-1], key=shares[-1].get) == "titfortat"
    assert ecology["survivors"][0]["agent"] == "titfortat"
    html = report.read_text()
    chart = re.search(r'<section id="ecology">.*?</section>', html, re.S)
    assert chart and chart.group(0).count("<polyline") == 3
    assert not re.search(r'(src|href)="https?://', chart.group(0))   # nothing fetched
    # the table names the survivors
    status, out, _ = run_cli("tournament", "cooperate", "defect", "titfortat", "--ecology",
                             "200", "--flip", "0", "0", "--moves-per-turn", "1", "--seed", "5",
                             "--isolation", "none")
    assert status == 0 and re.search(r"survivors titfortat \d+\.\d%", out)


def test_an_ecology_is_the_same_with_any_jobs():
    runs = []
    for jobs in ("1", "2"):
        status, out, err = run_cli("tournament", "cooperate", "defect", "titfortat", "random",
                                   "--ecology", "30", "--seed", "9", "--isolation", "none",
                                   "--jobs", jobs, "--format", "json")
        assert status == 0, err
        runs.append(json.loads(out)["ecology"])
    assert runs[0] == runs[1]
