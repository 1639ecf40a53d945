"""Results labelled as what they are: a run stopped by --max-rounds and an unfinished record
have no winner, co-winners are agents tied in the last round, and an agent whose turns were
the default answer gets a note in the table, the JSON and the report."""
from __future__ import annotations

import json
import sqlite3

import pytest

from conftest import AGENTS, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

FIELD = ("titfortat", "defect", "random", "grudger", "pavlov", "cooperate")
RAISER = AGENTS / "outcome" / "FirstCallRaiser.py"


def out_column(table: str) -> dict[str, str]:
    rows = {}
    for row in table.splitlines():
        words = row.split()
        if len(words) >= 4 and words[0].isdigit():
            rows[words[1]] = " ".join(words[3:5]) if words[3] == "still" else words[3]
    return rows


def test_a_run_stopped_by_max_rounds_has_no_winner(tmp_path):
    status, out, err = run_cli("tournament", *FIELD, "--seed", "4", "--max-rounds", "1",
                               "--length", "5", "5", "--isolation", "none")
    assert status == 0, err
    assert "Stopped after round 1 (--max-rounds): no winner" in out
    assert "Co-winners" not in out
    column = out_column(out)
    assert "winner" not in column.values()
    assert list(column.values()).count("still in") >= 2
    status, out, err = run_cli("tournament", *FIELD, "--seed", "4", "--max-rounds", "1",
                               "--length", "5", "5", "--isolation", "none", "--format", "json")
    outcome = json.loads(out)["outcome"]
    assert outcome["ending"] == "stopped" and outcome["after_round"] == 1


def test_agents_tied_in_the_last_round_are_co_winners():
    status, out, err = run_cli("tournament", "cooperate", "titfortat", "--flip", "0", "0",
                               "--seed", "1", "--length", "4", "4", "--isolation", "none")
    assert status == 0, err
    assert "Co-winners (all tied in round 1): cooperate, titfortat" in out
    assert set(out_column(out).values()) == {"winner"}


def test_show_of_an_unfinished_record_gives_a_provisional_order(tmp_path):
    db = tmp_path / "run.sqlite"
    status, _out, err = run_cli("tournament", *FIELD, "--seed", "4", "--length", "5", "5",
                                "--isolation", "none", "--db", db)
    assert status == 0, err
    with sqlite3.connect(db) as connection:   # as a run stopped after round 1 leaves it
        connection.execute("DELETE FROM move WHERE game IN (SELECT id FROM game WHERE "
                           "round > 1)")
        connection.execute("DELETE FROM fault WHERE game IN (SELECT id FROM game WHERE "
                           "round > 1)")
        for table, column in (("game", "round"), ("round_score", "round"),
                              ("round", "number")):
            connection.execute(f"DELETE FROM {table} WHERE {column} > 1")
        connection.execute("UPDATE agent SET rank = NULL, score = NULL, dropped_in = NULL "
                           "WHERE dropped_in > 1 OR dropped_in IS NULL")
        connection.execute("UPDATE run SET finished_at = NULL")
    status, out, err = run_cli("show", db)
    assert status == 0, err
    assert "Unfinished: provisional order after round 1" in out
    assert "winner" not in out_column(out).values() and "Co-winners" not in out


def test_a_run_stopped_in_its_first_round_says_no_round_completed():
    """Not "provisional order after round 0 ... ranked by round 0's score": there is none."""
    from harness.present.outcome import UNFINISHED, Ending

    headline = Ending(UNFINISHED, 0, ("A", "B", "C")).headline
    assert headline == "Unfinished: no round completed yet; all 3 agents still in, not ranked"
    assert "round 1" in Ending(UNFINISHED, 1, ("A", "B")).headline


def test_an_agent_that_faulted_every_first_call_gets_a_note(tmp_path):
    status, out, err = run_cli("tournament", RAISER, "cooperate", "titfortat", "--seed", "2",
                               "--length", "6", "6", "--isolation", "process")
    assert status == 0, err
    note = next(line for line in out.splitlines() if line.startswith("Note: FirstCallRaiser"))
    assert "first call of every game" in note and "exception" in note and "C C C" in note
    status, out, err = run_cli("tournament", RAISER, "cooperate", "titfortat", "--seed", "2",
                               "--length", "6", "6", "--isolation", "process",
                               "--format", "json")
    notes = json.loads(out)["outcome"]["notes"]
    assert list(notes) == ["FirstCallRaiser"]


def test_show_agent_summarizes_many_faults_by_kind_and_lists_all_on_request(tmp_path):
    db = tmp_path / "run.sqlite"
    status, _out, err = run_cli("tournament", AGENTS / "core" / "Raiser.py", "titfortat",
                                "defect", "--seed", "1", "--length", "20", "20",
                                "--isolation", "process", "--db", db)
    assert status == 0, err
    with sqlite3.connect(db) as connection:
        total = connection.execute("SELECT count(*) FROM fault WHERE agent = 'Raiser'"
                                   ).fetchone()[0]
    assert total > 10
    status, out, err = run_cli("show", db, "--agent", "Raiser")
    assert status == 0, err
    assert f"Faults ({total}: {total} exception):" in out
    listed = [row for row in out.splitlines() if row.startswith("  game ") and "turn" in row]
    assert len(listed) == 3
    assert f"... and {total - 3} more exception faults (--all-faults" in out
    status, out, err = run_cli("show", db, "--agent", "Raiser", "--all-faults")
    listed = [row for row in out.splitlines() if row.startswith("  game ") and "turn" in row]
    assert len(listed) == total


def test_without_a_winner_the_table_shows_the_round_score_it_ranks_by():
    """After two rounds the totals and the last round's scores differ: the order is the
    round's, and the `round score` column shows it (the JSON's round scores)."""
    args = ("tournament", *FIELD, "--seed", "4", "--max-rounds", "2", "--length", "5", "5",
            "--isolation", "none")
    status, out, err = run_cli(*args)
    assert status == 0, err
    _, result, _ = run_cli(*args, "--format", "json")
    last = json.loads(result)["rounds"][-1]["scores"]
    header = next(row for row in out.splitlines() if row.lstrip().startswith("rank"))
    assert header.split() == ["rank", "agent", "score", "out", "round", "score", "faults"]
    still = [row.split() for row in out.splitlines()
             if row.split()[:1] and row.split()[0].isdigit() and "still in" in row]
    assert len(still) >= 2
    assert [int(words[5]) for words in still] == [last[words[1]] for words in still]
    assert [int(words[5]) for words in still] == sorted((int(w[5]) for w in still), reverse=True)
