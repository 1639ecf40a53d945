"""--replicates N: N more tournaments with seeds derived from the run's seed, summarized per
agent (mean rank with a 95% interval, share of wins, rank histogram)."""
import json
import math
import sqlite3
import statistics

import pytest

from conftest import run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

FIELD = ("defect", "titfortat", "random", "grudger", "pavlov")
FAST = ("--isolation", "none")


def replicated(*extra, seed=12, count=8):
    status, out, err = run_cli("tournament", *FIELD, "--seed", seed, *FAST,
                               "--replicates", count, "--format", "json", *extra)
    assert status == 0, err
    return json.loads(out)


def test_the_same_seed_gives_the_same_replicates_with_any_jobs():
    serial, parallel = replicated("--jobs", "1"), replicated("--jobs", "2")
    assert serial["replicates"] == parallel["replicates"]
    assert serial["standings"] == parallel["standings"]


def test_each_replicate_is_the_tournament_of_its_derived_seed(tmp_path):
    from harness.core.seeds import replicate_seed

    path = tmp_path / "run.sqlite"
    result = replicated("--db", path, count=3)
    assert result["replicates"]["seeds"] == [replicate_seed(12, k) for k in (1, 2, 3)]
    with sqlite3.connect(path) as connection:
        recorded = connection.execute(
            "SELECT agent, rank, score, dropped_in FROM replicate WHERE replicate = 2 "
            "ORDER BY rank, agent").fetchall()
    status, out, _ = run_cli("tournament", *FIELD, "--seed", replicate_seed(12, 2), *FAST,
                             "--format", "json")
    alone = json.loads(out)["standings"]
    assert recorded == [(s["agent"], s["rank"], s["score"], s["dropped_in"]) for s in alone]


def test_the_summary_follows_from_the_replicates(tmp_path):
    path = tmp_path / "run.sqlite"
    count = 8
    summary = replicated("--db", path, count=count)["replicates"]
    assert summary["count"] == count
    with sqlite3.connect(path) as connection:
        ranks = {}
        for agent, rank in connection.execute("SELECT agent, rank FROM replicate"):
            ranks.setdefault(agent, []).append(rank)
    assert {a["agent"] for a in summary["agents"]} == set(FIELD)
    means = [a["mean_rank"] for a in summary["agents"]]
    assert means == sorted(means)
    for agent in summary["agents"]:
        mine = ranks[agent["agent"]]
        assert len(mine) == count == sum(agent["rank_counts"])
        assert agent["rank_counts"] == [mine.count(r) for r in range(1, len(FIELD) + 1)]
        assert agent["wins"] == mine.count(1)
        assert agent["win_share"] == pytest.approx(mine.count(1) / count, abs=1e-4)
        mean = statistics.mean(mine)
        assert agent["mean_rank"] == pytest.approx(mean, abs=1e-4)
        half = 2.365 * statistics.stdev(mine) / math.sqrt(count)   # t(0.975, 7)
        assert agent["rank_interval"] == pytest.approx([mean - half, mean + half], abs=1e-3)


def test_replicates_are_in_the_table_and_the_grades():
    status, out, err = run_cli("tournament", *FIELD, "--seed", "12", *FAST, "--replicates",
                               "5")
    assert status == 0, err
    table = out[out.index("Replicates: 5 more tournaments"):].splitlines()
    assert len(table) == 2 + len(FIELD)
    assert {line.split()[0] for line in table[2:]} == set(FIELD)
    status, out, _ = run_cli("tournament", *FIELD, "--seed", "12", *FAST, "--replicates",
                             "5", "--format", "csv")
    header, *rows = out.strip().splitlines()
    assert header.endswith("replicates_mean_rank,replicates_rank_low,replicates_rank_high,"
                           "replicates_win_share")
    assert all(row.split(",")[-4] for row in rows)


def test_one_replicate_has_no_interval():
    summary = replicated(count=1)["replicates"]
    assert all(a["rank_interval"] is None for a in summary["agents"])
    assert sorted(sum(a["rank_counts"]) for a in summary["agents"]) == [1] * len(FIELD)


@pytest.mark.parametrize("df,expected", [(1, 12.706), (7, 2.365), (30, 2.042), (40, 2.021),
                                          (60, 2.000), (120, 1.980), (10_000, 1.960)])
def test_t_quantiles(df, expected):
    from harness.store.replicate_summary import t95

    assert t95(df) == pytest.approx(expected, abs=2e-3)


def test_replicates_must_be_positive():
    status, _, err = run_cli("tournament", "defect", "titfortat", "--replicates", "0")
    assert status == 2 and "--replicates" in err
