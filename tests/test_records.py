"""The SQLite record of a run (--db), read back by `show`, and its guarantees."""
import json
import sqlite3

import pytest

from conftest import AGENTS, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

RECORD_AGENTS = AGENTS / "records"
FAST = ("--isolation", "none", "--jobs", "1")
FIELD = (str(RECORD_AGENTS / "Moody.py"), str(RECORD_AGENTS / "Stumbler.py"), "titfortat",
         "grudger", "defect", "random")


def argument(name):
    """How the command line names an agent of FIELD."""
    path = RECORD_AGENTS / f"{name}.py"
    return str(path) if path.exists() else name


def record(tmp_path, *extra, name="run.sqlite", agents=FIELD, seed=7):
    path = tmp_path / name
    status, out, err = run_cli("tournament", *agents, "--seed", seed, "--db", path, *FAST,
                               "--format", "json", *extra)
    assert status == 0, err
    return path, json.loads(out)


def rows(path, sql, *parameters):
    with sqlite3.connect(path) as connection:
        return connection.execute(sql, parameters).fetchall()


def test_the_record_holds_parameters_seed_agents_rounds_games_faults_and_every_move(tmp_path):
    path, result = record(tmp_path, "--flip", "0.2", "0.5", "--length", "12", "20",
                          "--payoffs", "5", "4", "1", "0")
    (run,) = rows(path, "SELECT seed, flip_start, flip_decay, length_min, length_max, "
                        "moves_per_turn, payoff_r, isolation, finished_at, command FROM run")
    assert run[:8] == (7, 0.2, 0.5, 12, 20, 3, 4, "none")
    assert run[8] is not None and "--db" in run[9]

    agents = {row[0]: row[1:] for row in rows(
        path, "SELECT name, language, sha256, status, rank, score, dropped_in FROM agent")}
    assert set(agents) == {s["agent"] for s in result["standings"]}
    import hashlib
    moody = (RECORD_AGENTS / "Moody.py").read_bytes()
    assert agents["Moody"][:2] == ("python", hashlib.sha256(moody).hexdigest())
    for standing in result["standings"]:
        assert agents[standing["agent"]][3:] == (standing["rank"], standing["score"],
                                                 standing["dropped_in"])

    recorded_rounds = rows(path, "SELECT number, game_length FROM round ORDER BY number")
    assert recorded_rounds == [(r["round"], r["game_length"]) for r in result["rounds"]]
    for r in result["rounds"]:
        scores = dict(rows(path, "SELECT agent, score FROM round_score WHERE round = ?",
                           r["round"]))
        assert scores == r["scores"]
        assert sorted(name for (name,) in rows(
            path, "SELECT agent FROM round_score WHERE round = ? AND dropped", r["round"])) \
            == r["dropped"]

    games = rows(path, "SELECT round, a, b, score_a, score_b, faults_a, faults_b, length "
                       "FROM game ORDER BY id")
    assert [g[:7] for g in games] == [
        (g["round"], g["a"], g["b"], *g["score"], g["faults"]["a"], g["faults"]["b"])
        for g in result["games"]]
    (moves,) = rows(path, "SELECT count(*) FROM move")
    assert moves[0] == sum(g[7] for g in games) * 3

    stumbles = rows(path, "SELECT kind, message FROM fault WHERE agent = 'Stumbler'")
    assert {kind for kind, _ in stumbles} == {"invalid", "exception"}
    assert any("stumbled on call 7" in message for _, message in stumbles)
    faults = result["standings"][[s["agent"] for s in result["standings"]].index("Stumbler")]
    assert len(stumbles) == sum(faults["faults"].values())


def test_scores_recomputed_from_the_recorded_moves_match_the_games(tmp_path):
    path, _ = record(tmp_path)
    points = {("C", "C"): (3, 3), ("C", "D"): (0, 5), ("D", "C"): (5, 0), ("D", "D"): (1, 1)}
    totals = {}
    for game, a, b in rows(path, "SELECT game, played_a, played_b FROM move"):
        gained = points[a, b]
        totals[game] = tuple(x + y for x, y in zip(totals.get(game, (0, 0)), gained, strict=True))
    for game, score_a, score_b in rows(path, "SELECT id, score_a, score_b FROM game"):
        assert totals[game] == (score_a, score_b)


def test_the_views_answer_the_usual_questions_by_hand(tmp_path):
    path, result = record(tmp_path)
    by_hand = dict(rows(path, "SELECT agent, avg(played = 'C') FROM agent_move GROUP BY agent"))
    for name, metrics in result["metrics"]["agents"].items():
        assert by_hand[name] == pytest.approx(metrics["cooperation_played"], abs=1e-4)
    standings = rows(path, "SELECT rank, agent, score FROM standings")
    assert standings == [(s["rank"], s["agent"], s["score"]) for s in result["standings"]]


def test_a_round_is_written_whole_or_not_at_all(tmp_path):
    from harness.agents.specs import builtin_spec
    from harness.engine.tournament import Settings, run_tournament
    from harness.store.recorder import Recorder

    specs = [builtin_spec(n) for n in ("titfortat", "defect", "random")]
    path = tmp_path / "run.sqlite"
    recorder = Recorder.create(path, specs, 3, Settings(jobs=1))
    finished = run_tournament(specs, 3, Settings(jobs=1))
    state_games = finished.games[:3]
    broken = finished.games[3] if len(finished.games) > 3 else finished.games[0]
    # a move that cannot be stored (NOT NULL) fails the round's last statement
    if hasattr(broken, "played_b"):
        broken.played_b[-1] = None
    else:
        broken.turns[-1] = broken.turns[-1]._replace(played_b=None)

    class State:
        dropped_in = {"defect": None, "random": 1, "titfortat": None}
        disqualified = {}

    with pytest.raises(sqlite3.IntegrityError):
        recorder.round_finished(State, finished.rounds[0], state_games + [broken])
    recorder.close()
    for table in ("round", "round_score", "game", "fault", "move"):
        assert rows(path, f"SELECT count(*) FROM {table}") == [(0,)]
    assert rows(path, "SELECT count(*) FROM agent WHERE dropped_in IS NOT NULL") == [(0,)]


def test_an_existing_file_is_never_overwritten(tmp_path):
    path = tmp_path / "run.sqlite"
    path.write_text("evidence")
    status, out, err = run_cli("tournament", "defect", "titfortat", "--db", path, *FAST)
    assert status == 2
    assert "already exists" in err and "Traceback" not in err
    assert path.read_text() == "evidence"


def test_the_largest_seed_is_recorded_exactly_and_a_larger_one_refused_in_one_line(tmp_path):
    seed = 2 ** 63 - 1          # seeds are 63 bits, as the OS-drawn ones (docs/rules.md)
    path, result = record(tmp_path, agents=("defect", "titfortat", "random"), seed=seed)
    status, out, err = run_cli("show", path, "--format", "json")
    assert status == 0, err
    assert json.loads(out)["seed"] == seed
    assert json.loads(out)["standings"] == result["standings"]
    status, _out, err = run_cli("tournament", "defect", "titfortat", "--seed", str(2 ** 63),
                                "--isolation", "none")
    assert status == 2
    assert len(err.strip().splitlines()) == 1 and "--seed" in err


# -- show ----------------------------------------------------------------------------------
def test_show_prints_what_the_run_printed(tmp_path):
    path, result = record(tmp_path)
    status, out, err = run_cli("show", path, "--format", "json")
    assert status == 0, err
    assert json.loads(out) == result
    status, table, _ = run_cli("show", path)
    _, live, _ = run_cli("tournament", *FIELD, "--seed", 7, *FAST)
    assert table == live


def test_show_agent_lists_its_games_and_faults_with_messages(tmp_path):
    path, result = record(tmp_path)
    status, out, err = run_cli("show", path, "--agent", "stumbler")
    assert status == 0, err
    assert out.startswith("Stumbler  (python,")
    assert "stumbled on call 7" in out and "invalid" in out
    played = [g for g in result["games"] if "Stumbler" in (g["a"], g["b"])]
    assert f"Games ({len(played)}):" in out
    status, out, _ = run_cli("show", path, "--agent", "Stumbler", "--format", "json")
    shown = json.loads(out)
    assert [g["game"] for g in shown["games"]] == [
        i for i, g in enumerate(result["games"], 1) if "Stumbler" in (g["a"], g["b"])]
    assert len(shown["faults"]) == sum(g["faults"]["a" if g["a"] == "Stumbler" else "b"]
                                       for g in played)
    assert {f["kind"] for f in shown["faults"]} == {"invalid", "exception"}


def test_show_game_prints_the_trace_exactly_as_play_does(tmp_path):
    path, result = record(tmp_path)
    first = result["games"][0]          # round 1: play with the same seed plays this game
    status, shown, err = run_cli("show", path, "--game", 1, "--agent", first["b"])
    assert status == 0, err
    _, played, _ = run_cli("play", argument(first["b"]), argument(first["a"]), "--seed", 7,
                           "--isolation", "none")
    assert shown.splitlines()[0].startswith(f"Game 1, round 1: {first['b']} vs {first['a']}")
    assert shown.splitlines()[1:] == played.splitlines()[1:]
    _, shown_json, _ = run_cli("show", path, "--game", 1, "--format", "json")
    _, played_json, _ = run_cli("play", argument(first["a"]), argument(first["b"]), "--seed",
                                7, "--isolation", "none", "--format", "json")
    shown_json = json.loads(shown_json)
    assert (shown_json.pop("game"), shown_json.pop("round")) == (1, 1)
    assert shown_json == json.loads(played_json)


def test_show_game_of_a_later_round_shows_faults_with_their_messages(tmp_path):
    path, result = record(tmp_path)
    number = next(i for i, g in enumerate(result["games"], 1)
                  if "Stumbler" in (g["a"], g["b"]) and sum(g["faults"].values()))
    status, out, err = run_cli("show", path, "--game", number)
    assert status == 0, err
    assert "Stumbler exception: RuntimeError: stumbled on call 7" in out


def test_show_game_names_the_runs_seed_as_the_runs(tmp_path):
    """The seed in a game's header is the run's: `play --seed` with it replays round 1's
    game only, so a game of a later round must not look like `play`'s "seed N"."""
    path, result = record(tmp_path)
    number = next(i for i, g in enumerate(result["games"], 1) if g["round"] > 1)
    status, out, err = run_cli("show", path, "--game", number)
    assert status == 0, err
    header = out.splitlines()[0]
    assert f"  run seed {result['seed']}  " in header and "  seed " not in header


@pytest.mark.parametrize("args,needle", [
    (["--game", "999"], "no game 999"),
    (["--agent", "nobody"], "no agent 'nobody'"),
    (["--game", "1", "--agent", "nobody"], "no agent 'nobody'"),
])
def test_show_rejects_what_is_not_in_the_record_in_one_line(tmp_path, args, needle):
    path, _ = record(tmp_path, agents=("defect", "titfortat"))
    status, out, err = run_cli("show", path, *args)
    assert status == 2
    assert needle in err and len(err.strip().splitlines()) == 1


def test_show_of_a_missing_or_foreign_file_is_one_line(tmp_path):
    status, _, err = run_cli("show", tmp_path / "none.sqlite")
    assert status == 2 and "no such record" in err
    other = tmp_path / "other.sqlite"
    other.write_text("not a database at all" * 100)
    status, _, err = run_cli("show", other)
    assert status == 2 and "not a pdharness record" in err
    assert "Traceback" not in err


def test_a_record_with_an_odd_file_name_archived_read_only_can_be_shown(tmp_path):
    path, result = record(tmp_path, agents=("defect", "titfortat", "random"),
                          name="odd name #1?.sqlite")
    path.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        status, out, err = run_cli("show", path, "--format", "json")
    finally:
        tmp_path.chmod(0o755)
    assert status == 0, err
    assert json.loads(out)["standings"] == result["standings"]
