"""The agent contract (docs/interface.md "The agent contract", docs/rules.md "A game", "Misbehaving agents",
"Fresh agents"), asserted for every language in every isolation mode it runs in, against
the same seven agents written in each language (tests/agents/contract/<language>/, whose
README says what each does): Axelrod's TestPlayer idea, for the harness's languages.

The cases come from the harness's registry of languages (`contract_languages`): a new
language joins the registry, adds its folder of seven agents, and gets this suite.
Each case is one real agent file in one real handle (`none`: in the monitor; `process`:
its own host process; `sandbox`: the host inside bubblewrap) against a built-in opponent
in the monitor, with frequent flips, so the game as played differs from the game as meant.
"""
from __future__ import annotations

import re

import pytest

from harness.agents.specs import builtin_spec, file_spec
from harness.core.rules import FlipParams, GameParams
from harness.isolation.handles.opening import Isolation, open_handle

from conftest import AGENTS, play_games

CONTRACT = AGENTS / "contract"
DEFAULT = "DDD"            # the default answer, unlike anything the honest agents answer
PARAMS = GameParams(flip=FlipParams(0.4, 0.0), default_answer=DEFAULT[0])
HONEST_LIMIT = 20.0        # no honest call comes near it, however busy the machine
SHORT_LIMIT = 0.25         # Sleeper answers after 2.5 s
MODES = ("none", "process", "sandbox")
# what a language's hosts need installed, by the conftest fixture that checks for it
NEEDS = {"lisp": "sbcl"}


def contract_languages():
    """The languages agents can be written in: the harness's registry (built-ins are a kind
    of agent, not a language)."""
    from harness.agents.lang import LANGUAGES

    return list(LANGUAGES.values())


def modes_of(language):
    """`none` only for a language that can run inside the monitor's Python process."""
    return [mode for mode in MODES if mode != "none" or language.runs_in_monitor]


# -- what each agent must do ---------------------------------------------------------------
# a kind: (games to play as (length, seed), the time limit, the check)

def _side(record, side):
    """(intended, played, opponent's played) per turn for one side."""
    if side == "a":
        return record.intended_a, record.played_a, record.played_b
    return record.intended_b, record.played_b, record.played_a


def _fault_kinds(record, side):
    return [fault.kind for _turn, fault in record.faults(side)]


def played_views(record, side):
    """`SEEN [...] [mine theirs]` as the agent must print it before each turn."""
    _intended, mine, theirs = _side(record, side)
    lines, pairs, points = [], [], [0, 0]
    running = list(zip(record.running_a, record.running_b, strict=True))
    for turn in range(record.length):
        lines.append(f"SEEN [{' '.join(pairs)}] [{points[0]} {points[1]}]")
        pairs += [m + t for m, t in zip(mine[turn], theirs[turn], strict=True)]
        points = list(running[turn] if side == "a" else running[turn][::-1])
    return lines


def check_plain(games, printed):
    [(record, side)] = games
    intended, _mine, theirs = _side(record, side)
    assert _fault_kinds(record, side) == []
    assert intended == ["CCD"] + theirs[:-1]


def check_stateful(games, printed):
    for record, side in games:  # every game starts again from its first call
        assert _fault_kinds(record, side) == []
        assert _side(record, side)[0] == ["CCC", "DCC", "DDC", "DDD"]


def check_dice(games, printed):
    (first, side), (again, side_again), (other, side_other) = games
    assert not _fault_kinds(first, side)
    moves = _side(first, side)[0]
    assert _side(again, side_again)[0] == moves        # same game seed, same numbers
    assert _side(other, side_other)[0] != moves        # another seed, others (24 moves)


def check_talker(games, printed):
    [(record, side)] = games
    assert _fault_kinds(record, side) == [], record.faults(side)
    assert _side(record, side)[0] == ["CCD"] * record.length
    seen = re.findall(r"^SEEN .*$", printed, re.MULTILINE)
    assert seen == played_views(record, side)


def _faulty(kind, message=None):
    def check(games, printed):
        for record, side in games:
            faults = record.faults(side)
            assert [fault.kind for _turn, fault in faults] == [kind] * record.length
            assert _side(record, side)[0] == [DEFAULT] * record.length
            if message:
                assert all(message in fault.message for _turn, fault in faults), faults
    return check


KINDS = {
    "Plain": ([(5, 1)], HONEST_LIMIT, check_plain),
    "Stateful": ([(4, 1), (4, 2)], HONEST_LIMIT, check_stateful),
    "Dice": ([(8, 3), (8, 3), (8, 4)], HONEST_LIMIT, check_dice),
    "Talker": ([(5, 1)], HONEST_LIMIT, check_talker),
    "Raiser": ([(3, 1)], HONEST_LIMIT, _faulty("exception", "contract-raiser")),
    "Liar": ([(5, 1)], HONEST_LIMIT, _faulty("invalid")),
    "Sleeper": ([(1, 1)], SHORT_LIMIT, _faulty("timeout")),
}


def needs_marks(language, modes):
    """The markers (setup.cfg) of what a case needs installed: `pytest -m "not sbcl"`."""
    needs = [NEEDS[language.name]] if language.name in NEEDS else []
    return [getattr(pytest.mark, need) for need in needs + ["sandbox"] * ("sandbox" in modes)]


def cases():
    for language in contract_languages():
        for mode in modes_of(language):
            for kind in KINDS:
                # host processes, and a late answer in the monitor, take seconds
                slow = mode != "none" or kind == "Sleeper"
                marks = needs_marks(language, [mode]) + ([pytest.mark.slow] if slow else [])
                yield pytest.param(language.name, mode, kind, marks=marks,
                                   id=f"{language.name}-{mode}-{kind}")


@pytest.fixture
def tools(request):
    """The fixtures (tests/conftest.py) a case's language and mode need: fail, not skip,
    under CI=true."""
    def need(language, mode):
        for fixture in [NEEDS.get(language)] + (["sandboxed"] if mode == "sandbox" else []):
            if fixture:
                request.getfixturevalue(fixture)
    return need


def test_every_language_has_every_contract_agent():
    for language in contract_languages():
        for kind in KINDS:
            assert (CONTRACT / language.name / f"{kind}{language.suffixes[0]}").is_file(), \
                f"{language.name} has no contract agent {kind}"


def play(language, mode, kind, plan, limit, opponent_name="random"):
    """Games (length, seed) of a language's contract agent `kind` in `mode` against a
    built-in in the monitor: [(record, the agent's side)], and what the agent printed
    (its host's captured output; in the monitor, its prints kept by the handle, never on the
    monitor's own output, where a JSON or CSV result goes)."""
    found = next(lang for lang in contract_languages() if lang.name == language)
    agent = open_handle(file_spec(CONTRACT / language / f"{kind}{found.suffixes[0]}"),
                        Isolation(mode, limit))
    opponent = open_handle(builtin_spec(opponent_name), Isolation("none", limit))
    return play_games(agent, opponent, plan, PARAMS), agent.captured_output()


@pytest.mark.parametrize("language,mode,kind", list(cases()))
def test_the_agent_contract(language, mode, kind, tools, capfd):
    tools(language, mode)
    plan, limit, check = KINDS[kind]
    games, printed = play(language, mode, kind, plan, limit)
    check(games, printed)
    assert capfd.readouterr().out == ""   # nothing of the agent's on the monitor's stdout


@pytest.mark.slow
@pytest.mark.parametrize("language", [
    pytest.param(language.name, marks=needs_marks(language, modes_of(language)),
                 id=language.name) for language in contract_languages()])
def test_the_private_random_numbers_are_the_same_in_every_mode(language, tools):
    """Same seed, same result in any isolation mode: Dice plays the same moves in each."""
    found = next(lang for lang in contract_languages() if lang.name == language)
    moves = {}
    for mode in modes_of(found):
        tools(language, mode)
        [(record, side)], _printed = play(language, mode, "Dice", [(6, 9)], HONEST_LIMIT,
                                          "titfortat")
        moves[mode] = (record.intended_a, record.intended_b, record.played_a,
                       record.played_b, side)
    assert len(set(map(repr, moves.values()))) == 1, moves
