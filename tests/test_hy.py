"""Hy agents: Lisp-like moves, the bytecode cache, load errors, every isolation mode."""
import json

import hy
import pytest

from conftest import AGENTS, ROOT, intended_moves, play_one, run_cli
from harness.agents import file_spec
from harness.errors import LoadError
from harness.handles.opening import Isolation, open_handle
from harness.rules import FlipParams, GameParams
from lisp_bridge import hy_loader
from lisp_bridge.hy_data import C, D, hist_pair

HY = AGENTS / "hy"
NOISY = GameParams(flip=FlipParams(0.3, 0.0))


def moves_of(path, opponent="random", mode="none", seed=3, turns=20, params=NOISY):
    record, side, _handle = play_one(file_spec(path), opponent, turns, params, mode, seed)
    return intended_moves(record, side), record, side


def test_a_move_equals_the_symbol_and_the_string_and_prints_as_c():
    symbol = hy.models.Symbol("C")
    assert C == symbol and symbol == C and C == "C" and "C" == C
    assert C != "D" and not (C != symbol) and D != symbol
    assert {symbol: 1}[C] == 1 and {"C": 2}[C] == 2 and {C: 3}["C"] == 3
    assert [C, D, C].count(symbol) == 2 and [C, D].count("D") == 1
    assert hy.repr(C) == "C" and str(D) == "D"
    assert hy.repr(hist_pair("C", "D")) == "#(C D)"


def test_symbol_style_and_string_style_agents_play_the_same():
    symbols, record, side = moves_of(HY / "SymbolStyle.hy")
    strings, _, _ = moves_of(HY / "StringStyle.hy")
    assert symbols == strings
    assert len(set(symbols)) > 1  # the comparisons did something
    assert record.faults(side) == []


@pytest.mark.parametrize("mode", ["none", "process"])
def test_every_comparison_idiom_works_on_moves(mode):
    _, record, side = moves_of(HY / "Matcher.hy", mode=mode)
    assert record.faults(side) == []


def test_keywords_and_lower_case_are_accepted_with_a_warning():
    moves, record, side = moves_of(HY / "Keywords.hy", params=GameParams(
        flip=FlipParams(0.0, 0.0)), turns=2)
    assert moves == ["CCC", "CDC"]
    assert record.faults(side) == []
    assert "non-canonically" in record.warnings[side]


def test_a_syntax_error_is_a_load_error_with_its_line():
    with pytest.raises(LoadError, match=r"Broken\.hy:\d+: Hy"):
        open_handle(file_spec(HY / "Broken.hy"), Isolation("none"))


def test_the_hyrule_agent_loads_and_the_cache_makes_the_second_load_fast(tmp_path,
                                                                        monkeypatch):
    monkeypatch.setenv("PDHARNESS_CACHE", str(tmp_path / "cache"))
    agent = tmp_path / "IvanovJones.hy"
    agent.write_text((ROOT / "student_agents" / "IvanovJones.hy").read_text())
    hy_loader.load_code(agent)
    assert len(list((tmp_path / "cache" / "hy").iterdir())) == 1
    compiled = []
    real = hy_loader.compile_hy
    monkeypatch.setattr(hy_loader, "compile_hy",
                        lambda *a: compiled.append(a) or real(*a))
    hy_loader.load_code(agent)
    assert compiled == []                       # a hit: nothing compiled
    agent.write_text(agent.read_text().replace("5", "4"))
    hy_loader.load_code(agent)
    assert len(compiled) == 1                   # changed file: compiled again


@pytest.mark.parametrize("mode", ["process", "sandbox"])
def test_hy_agents_play_the_same_in_every_isolation_mode(mode, bwrap):
    reference, _, _ = moves_of(ROOT / "student_agents" / "KimLopez.hy", seed=5)
    assert moves_of(ROOT / "student_agents" / "KimLopez.hy", seed=5, mode=mode)[0] == reference


def test_the_monitor_from_hy_reads_like_the_original_call():
    code = """
(import harness [monitor])
(setv result (monitor '(.25 .1) '(10 20) '(titfortat random defect) :seed 4 :isolation "none"))
(hy.repr result)
"""
    printed = hy.eval(hy.read_many(code))
    assert printed.startswith("((") and printed.endswith("))")
    names = [pair.split()[0].strip("()") for pair in printed[1:-1].split(") (")]
    assert sorted(names) == ["defect", "random", "titfortat"]


def test_the_cl_prelude_has_lisp_semantics_and_leaves_builtins_alone():
    from lisp_bridge import cl

    assert cl.car([]) is None and cl.cdr([1]) == [] and cl.cadr([1, 2, 3]) == 2
    assert cl.last([1, 2, 3]) == [3] and cl.nth(5, [1]) is None
    assert cl.cons(1, [2]) == [1, 2] and cl.append([1], [2], None) == [1, 2]
    assert cl.null([]) and cl.null(None) and not cl.null([0])
    assert cl.member(C, ["D", "C", "D"]) == ["C", "D"] and cl.member(3, [1]) is None
    assert cl.eq(C, hy.models.Symbol("C")) and not cl.eq([1], [1]) and cl.equal([1], [1])
    assert cl.mapcar(lambda a, b: a + b, [1, 2, 3], [10, 20]) == [11, 22]
    assert cl.remove_if(lambda x: x > 1, [1, 2, 3]) == [1]
    assert cl.count_if(lambda m: m == "D", [C, D, D]) == 2
    assert cl.hyx_listXasteriskX(1, 2, [3, 4]) == [1, 2, 3, 4]
    namespace = {}
    hy.eval(hy.read_many("(import lisp_bridge.cl *)"), namespace)
    assert "list" not in namespace and "len" not in namespace
    assert hy.eval(hy.read_many("(list* 1 [2])"), namespace) == [1, 2]


def test_a_mixed_python_hy_lisp_tournament(sbcl):
    status, out, err = run_cli("tournament", ROOT / "student_agents", "titfortat",
                               "--seed", "6", "--format", "json", "--isolation", "process")
    assert status == 0, err
    result = json.loads(out)
    assert {a["language"] for a in result["agents"]} == {"python", "hy", "lisp", "builtin"}
    assert all(a["status"] == "ok" for a in result["agents"]), result["agents"]
    assert all(sum(s["faults"].values()) == 0 for s in result["standings"])
