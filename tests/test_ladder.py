"""`pdharness ladder`: what a pass plays, through the real console script and real agent
files in the sandbox (the ladder's default), and what it refuses."""
import json
import os
import signal
import sqlite3

import pytest

from conftest import pdharness, stop_when

pytestmark = pytest.mark.slow   # every test here starts the CLI and agents' processes

RULES = ("--length", "3", "5", "--games-per-pair", "2", "--jobs", "2")

AGENT = """def {name}(hist, score):
    return [{moves}]
"""


def write_agent(folder, name, moves='"C", "C", "C"', extra=""):
    path = folder / f"{name}.py"
    path.write_text(extra + AGENT.format(name=name, moves=moves), encoding="utf-8")
    return path


def ladder(folder, db, *args, status=0):
    """A pass: (its JSON, its stderr)."""
    done = pdharness("ladder", folder, "--db", db, *RULES, "--format", "json", *args,
                     status=status)
    return (json.loads(done.stdout) if status == 0 else None), done.stderr


def games_of(db):
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT a.agent, b.agent, g.number, a.digest, b.digest FROM game g "
            "JOIN version a ON a.id = g.version_a JOIN version b ON b.id = g.version_b "
            "ORDER BY g.id").fetchall()


def entry(result, agent):
    return next(e for e in result["entries"] if e["agent"] == agent and e["status"] in
                ("ok", "reference"))


def test_a_pass_plays_only_what_is_owed(tmp_path, sandboxed):
    folder, db = tmp_path / "subs", tmp_path / "ladder.sqlite"
    folder.mkdir()
    write_agent(folder, "AdamsBrown")
    write_agent(folder, "ChenDiaz", '"D", "D", "D"')
    first, err = ladder(folder, db, "--reference", "titfortat")
    assert first["games_played"] == 3 * 2           # three agents, two games a pair
    assert {e["agent"] for e in first["entries"]} == {"AdamsBrown", "ChenDiaz", "titfortat"}
    assert entry(first, "titfortat")["status"] == "reference"
    assert entry(first, "AdamsBrown")["name"] != "AdamsBrown"    # a pseudonym by default
    assert set(entry(first, "AdamsBrown")["rating"]) == {"mu", "sigma"}
    assert all(set(e) == {"agent", "name", "version", "status", "rating", "games"}
               for e in first["entries"])

    again, err = ladder(folder, db, "--reference", "titfortat")
    assert again["games_played"] == 6 and "pass 2: 0 games played of 0 owed" in err
    assert again["entries"] == first["entries"]

    write_agent(folder, "EvansFord", '"C", "D", "C"')
    third, err = ladder(folder, db, "--reference", "titfortat")
    assert "pass 3: 6 games played of 6 owed" in err     # its three pairs, nothing else
    new = [game for game in games_of(db)[6:]]
    assert all("EvansFord" in game[:2] for game in new) and len(new) == 6

    # a failing version is listed with its reason and plays nothing; the earlier one plays
    old = entry(third, "ChenDiaz")["version"]
    write_agent(folder, "ChenDiaz", '"D", "D"')
    fourth, err = ladder(folder, db, "--reference", "titfortat")
    assert "pass 4: 0 games played of 0 owed" in err
    failed = [e for e in fourth["entries"] if e["status"] == "failed"]
    assert [(e["agent"], e["games"], e["rating"]) for e in failed] == [("ChenDiaz", 0, None)]
    assert failed[0]["version"] != old and "bad-answer" in err
    assert entry(fourth, "ChenDiaz")["version"] == old

    # a passing version replaces it: it plays its pairs again, the old games stay
    write_agent(folder, "ChenDiaz", '"D", "C", "D"')
    fifth, err = ladder(folder, db, "--reference", "titfortat")
    assert "pass 5: 6 games played of 6 owed" in err
    recorded = games_of(db)
    assert len(recorded) == 18 and fifth["games_played"] == 18
    chen = {digest for a, b, _, da, db_ in recorded for name, digest in ((a, da), (b, db_))
            if name == "ChenDiaz"}
    assert len(chen) == 2 and entry(fifth, "ChenDiaz")["version"] in chen
    assert entry(fifth, "ChenDiaz")["games"] == 6 + 6   # its old games count for it too


def test_a_version_that_changes_the_names_case_is_the_same_agent(tmp_path, sandboxed):
    """Names are one agent in any case: `Adamsbrown.py` uploaded after `AdamsBrown.py` is
    AdamsBrown's new version, and the passes after it play (they once stopped, exit 70)."""
    folder, db = tmp_path / "subs", tmp_path / "ladder.sqlite"
    folder.mkdir()
    write_agent(folder, "AdamsBrown")
    write_agent(folder, "ChenDiaz", '"D", "D", "D"')
    ladder(folder, db)
    (folder / "AdamsBrown.py").unlink()
    write_agent(folder, "Adamsbrown", '"D", "C", "D"')
    for number in (2, 3):
        result, err = ladder(folder, db)
        assert f"pass {number}: {2 if number == 2 else 0} games played" in err, err
    assert {e["agent"] for e in result["entries"] if e["status"] == "ok"} == {
        "AdamsBrown", "ChenDiaz"}
    assert entry(result, "AdamsBrown")["games"] == 4


def test_the_same_passes_from_scratch_give_the_same_ratings(tmp_path, sandboxed):
    results = []
    for run in ("one", "two"):
        folder, db = tmp_path / run / "subs", tmp_path / run / "ladder.sqlite"
        folder.mkdir(parents=True)
        write_agent(folder, "AdamsBrown", extra="import random\n",
                    moves='random.choice("CD"), "C", "D"')
        write_agent(folder, "ChenDiaz", '"D", "D", "C"')
        ladder(folder, db, "--seed", "11", "--reference", "titfortat,grudger")
        write_agent(folder, "EvansFord", '"C", "D", "C"')
        jobs = ("--jobs", "1") if run == "one" else ("--jobs", "2")
        results.append(ladder(folder, db, *jobs, "--reference", "titfortat,grudger")[0])
    assert results[0] == results[1]
    assert len({e["rating"]["mu"] for e in results[0]["entries"]}) > 1


def test_a_record_of_another_folder_or_seed_is_refused(tmp_path, sandboxed):
    folder, db = tmp_path / "subs", tmp_path / "ladder.sqlite"
    folder.mkdir()
    write_agent(folder, "AdamsBrown")
    ladder(folder, db, "--seed", "5")
    other = tmp_path / "other"
    other.mkdir()
    _, err = ladder(other, db, status=2)
    assert err.count("\n") == 1 and "not of" in err and "Traceback" not in err
    _, err = ladder(folder, db, "--seed", "6", status=2)
    assert err.count("\n") == 1 and "another seed" in err
    _, err = ladder(folder, db, "--flip", "0.1", "0.1", status=2)
    assert err.count("\n") == 1 and "flip_start" in err
    tournament = tmp_path / "run.sqlite"
    pdharness("tournament", "titfortat", "defect", "--db", tournament, "--isolation", "none")
    _, err = ladder(folder, tournament, status=2)
    assert err.count("\n") == 1 and "not a ladder" in err


def test_bad_submissions_get_a_line_and_a_status(tmp_path, sandboxed):
    folder, db = tmp_path / "subs", tmp_path / "ladder.sqlite"
    folder.mkdir()
    write_agent(folder, "AdamsBrown")
    write_agent(folder, "ChenDiaz")
    (folder / "ChenDiaz (1).py").write_text(AGENT.format(name="ChenDiaz", moves='"D"'))
    (folder / "EvansFord.py").write_bytes(b"# " + b"x" * (2 << 20))          # too large
    os.symlink("/etc/passwd", folder / "GarciaHill.py")                      # a link
    os.mkfifo(folder / "IvanovJones.py")                                     # a FIFO
    result, err = ladder(folder, db)
    statuses = {e["agent"]: e["status"] for e in result["entries"]}
    assert statuses["ChenDiaz"] == "name-collision"
    assert statuses["EvansFord"] == statuses["GarciaHill"] == statuses["IvanovJones"] \
        == "unreadable"
    assert statuses["AdamsBrown"] == "ok" and result["games_played"] == 0
    lines = [text for text in err.splitlines() if text.startswith("pdharness: ladder: ")]
    assert len([text for text in lines if "unreadable" in text or "collision" in text]) == 5
    assert "Traceback" not in err

    # gone: the agent is withdrawn, plays nothing new, and keeps its games
    write_agent(folder, "KimLopez")
    (folder / "ChenDiaz (1).py").unlink()
    result, err = ladder(folder, db)
    assert result["games_played"] == 2 * 3
    (folder / "KimLopez.py").unlink()
    write_agent(folder, "MooreNash")
    result, err = ladder(folder, db)
    kim = next(e for e in result["entries"] if e["agent"] == "KimLopez")
    assert kim["status"] == "withdrawn" and kim["games"] == 4
    assert "pass 3: 4 games played of 4 owed" in err     # MooreNash's two pairs only


SLOW = """import time
def {name}(hist, score):
    time.sleep(0.05)
    return ["C", "D", "C"]
"""


def test_a_killed_pass_is_finished_by_the_next(tmp_path, sandboxed):
    folder, db = tmp_path / "subs", tmp_path / "ladder.sqlite"
    folder.mkdir()
    for name in ("AdamsBrown", "ChenDiaz", "EvansFord", "GarciaHill"):
        (folder / f"{name}.py").write_text(SLOW.format(name=name), encoding="utf-8")
    args = ["ladder", folder, "--db", db, "--length", "5", "5", "--games-per-pair", "6",
            "--jobs", "1", "--seed", "3"]
    status = stop_when(args, lambda: _count(db) >= 3, signal.SIGKILL)
    assert status == -signal.SIGKILL, "the pass ended before it could be killed"
    kept = games_of(db)
    assert 3 <= len(kept) < 36
    done = pdharness(*args, "--format", "json")
    assert f"played of {36 - len(kept)} owed" in done.stderr
    after = games_of(db)
    assert after[:len(kept)] == kept and len(after) == len(set(after)) == 36
    assert json.loads(done.stdout)["games_played"] == 36


def _count(db) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as connection:
            return connection.execute("SELECT count(*) FROM game").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_bundle_is_one_submission_whose_version_covers_every_file(tmp_path, sandboxed):
    from harness.agents.bundles import folder_as_bundle

    folder, db = tmp_path / "subs", tmp_path / "ladder.sqlite"
    bundle = folder / "AdamsBrown"
    bundle.mkdir(parents=True)
    (bundle / "helper.py").write_text("MOVES = ['C', 'D', 'C']\n", encoding="utf-8")
    (bundle / "AdamsBrown.py").write_text(
        "from helper import MOVES\ndef AdamsBrown(hist, score):\n    return MOVES\n",
        encoding="utf-8")
    write_agent(folder, "ChenDiaz")
    first, _ = ladder(folder, db)
    assert entry(first, "AdamsBrown")["version"] == folder_as_bundle(bundle, "AdamsBrown").digest
    assert first["games_played"] == 2
    (bundle / "helper.py").write_text("MOVES = ['D', 'D', 'C']\n", encoding="utf-8")
    second, err = ladder(folder, db)
    assert "pass 2: 2 games played of 2 owed" in err    # a helper's edit is a new version
    assert entry(second, "AdamsBrown")["version"] != entry(first, "AdamsBrown")["version"]


def test_every_minutes_passes_until_sigterm(tmp_path, sandboxed):
    folder, db = tmp_path / "subs", tmp_path / "ladder.sqlite"
    folder.mkdir()
    write_agent(folder, "AdamsBrown")
    write_agent(folder, "ChenDiaz")
    status = stop_when(["ladder", folder, "--db", db, *RULES, "--every", "0.01"],
                       lambda: _finished_passes(db) >= 3, signal.SIGTERM)
    assert status in (0, 143)     # between passes, or during one: its games kept
    assert len(games_of(db)) == 2     # later passes found nothing owed
    # whatever the signal interrupted, the next pass goes on from the record
    again, _ = ladder(folder, db)
    assert again["games_played"] == 2


def _finished_passes(db) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as connection:
            return connection.execute(
                "SELECT count(*) FROM pass WHERE finished_at IS NOT NULL").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_real_names_and_what_the_public_board_never_shows(tmp_path, sandboxed):
    folder, db = tmp_path / "subs", tmp_path / "ladder.sqlite"
    folder.mkdir()
    write_agent(folder, "AdamsBrown")
    (folder / "ChenDiaz.py").write_bytes(b"# " + b"x" * (2 << 20))
    hidden, _ = ladder(folder, db)
    shown = {e["agent"]: e["name"] for e in hidden["entries"]}
    assert "ChenDiaz" not in shown["ChenDiaz"] and "AdamsBrown" not in shown["AdamsBrown"]
    real, _ = ladder(folder, db, "--names", "real")
    assert {e["agent"]: e["name"] for e in real["entries"]} == {
        "AdamsBrown": "AdamsBrown", "ChenDiaz": "ChenDiaz"}
    done = pdharness("ladder", folder, "--db", db, *RULES)
    assert "AdamsBrown" not in done.stdout and shown["AdamsBrown"] in done.stdout


def test_one_pass_at_a_time(tmp_path):
    import fcntl

    folder, db = tmp_path / "subs", tmp_path / "ladder.sqlite"
    folder.mkdir()
    with open(tmp_path / "ladder.sqlite.lock", "w") as held:   # a pass still running
        fcntl.flock(held, fcntl.LOCK_EX)
        _, err = ladder(folder, db, status=2)
    assert err.count("\n") == 1 and "another pass" in err and not db.exists()
    result, _ = ladder(folder, db)      # once it ends, the next pass runs
    assert result == {"games_played": 0, "entries": []}


def test_a_hostile_file_name_reaches_no_terminal_or_page_raw(tmp_path, sandboxed):
    folder, db, site = tmp_path / "subs", tmp_path / "ladder.sqlite", tmp_path / "site"
    folder.mkdir()
    write_agent(folder, "AdamsBrown")
    hostile = "Chen\x1b]0;owned\x07\u202eDiaz"
    (folder / f"{hostile}.py").write_text(AGENT.format(name="ChenDiaz", moves='"C"'))
    done = pdharness("ladder", folder, "--db", db, *RULES, "--site", site)
    for text in [done.stdout, done.stderr, *(p.read_text() for p in site.iterdir())]:
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\x1b" in done.stderr      # said, escaped
