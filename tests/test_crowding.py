"""A runner that plays many games at once starts another only while the machine has room
(harness/engine/crowding.py)."""
from hypothesis import given, settings, strategies as st

from harness.engine import crowding
from harness.engine.crowding import GAMES_PER_CPU, RUNNABLE_PER_CPU, Crowding


def _loadavg(tmp_path, monkeypatch, text: bytes):
    path = tmp_path / "loadavg"
    path.write_bytes(text)
    monkeypatch.setattr(crowding, "_LOADAVG", str(path))


def test_below_the_floor_a_game_starts_however_crowded_the_machine(tmp_path, monkeypatch):
    _loadavg(tmp_path, monkeypatch, b"300.00 250.00 120.00 999/1200 4242\n")
    room = Crowding(cpus=2)
    assert all(room.room_for_another(n) for n in range(GAMES_PER_CPU * 2))
    assert not room.room_for_another(GAMES_PER_CPU * 2)


def test_past_the_floor_a_game_starts_while_the_runnable_tasks_fit(tmp_path, monkeypatch):
    room = Crowding(cpus=2)
    limit = RUNNABLE_PER_CPU * 2
    _loadavg(tmp_path, monkeypatch, f"1.0 1.0 1.0 {limit}/300 77\n".encode())
    assert room.room_for_another(50)
    _loadavg(tmp_path, monkeypatch, f"1.0 1.0 1.0 {limit + 1}/300 77\n".encode())
    assert not room.room_for_another(50)


def test_the_real_count_is_read_on_this_machine():
    # the monitor's own thread is running while it reads: at least one task
    runnable = Crowding().runnable_tasks()
    assert runnable is not None and runnable >= 1


def test_the_cpus_counted_are_those_this_process_may_run_on():
    import os

    assert Crowding().cpus == len(os.sched_getaffinity(0))


def test_where_the_count_cannot_be_read_nothing_is_held_back(tmp_path, monkeypatch):
    monkeypatch.setattr(crowding, "_LOADAVG", str(tmp_path / "absent"))
    room = Crowding(cpus=1)
    assert room.room_for_another(10_000)
    assert room.readable is False   # not asked again


@settings(max_examples=200)
@given(st.binary(max_size=200))
def test_any_loadavg_text_gives_a_count_or_no_limit(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("proc") / "loadavg"
    path.write_bytes(text)
    old = crowding._LOADAVG
    crowding._LOADAVG = str(path)
    try:
        room = Crowding(cpus=1)
        runnable = room.runnable_tasks()
        assert runnable is None or isinstance(runnable, int)
        assert room.room_for_another(100) == (runnable is None
                                               or runnable <= RUNNABLE_PER_CPU)
    finally:
        crowding._LOADAVG = old


def test_a_round_held_to_one_game_at_a_time_plays_the_games_of_an_unheld_one(monkeypatch):
    from harness.agents.specs import resolve
    from harness.core.rules import GameLength
    from harness.engine.runners import PipelinedRunner
    from harness.engine.tournament import Settings, run_tournament
    from harness.isolation.handles.opening import Isolation

    names = ["titfortat", "grudger", "defect", "cooperate", "alternator"]
    settings = Settings(isolation=Isolation("process"), jobs=2, length=GameLength(4, 6))

    def played(result):
        return [(g.round, g.a, g.b, g.score, g.played_a, g.played_b) for g in result.games]

    unheld = run_tournament(resolve(names), 7, settings)
    asked, in_flight_at_start = [], []
    start = PipelinedRunner._start

    def counted_start(self, index):
        in_flight_at_start.append(len(self.running))
        start(self, index)

    def one_at_a_time(self, in_flight):   # what a crowded machine says: no second game
        asked.append(in_flight)
        return in_flight == 0

    monkeypatch.setattr(PipelinedRunner, "_start", counted_start)
    monkeypatch.setattr(Crowding, "room_for_another", one_at_a_time)
    held = run_tournament(resolve(names), 7, settings)
    assert played(held) == played(unheld)
    assert [s.agent for s in held.standings] == [s.agent for s in unheld.standings]
    assert set(in_flight_at_start) == {0}       # never two games at once
    assert any(n > 0 for n in asked)            # and it was asked while one ran: held back
