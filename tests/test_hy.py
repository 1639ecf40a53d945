"""Hy agents: Lisp-like moves, the compile cache, load errors, every isolation mode."""
import copy
import importlib.util
import json
import marshal
import pickle
import uuid
from pathlib import Path

import hy
import pytest

from harness.agents.lang import hy_loading
from harness.agents.specs import file_spec
from harness.core.errors import LoadError
from harness.core.rules import FlipParams, GameParams
from harness.isolation.handles.opening import Isolation, open_handle
from lisp_bridge.hy_data import C, D, hist_pair

from conftest import AGENTS, ROOT, intended_moves, play_one, run_cli

pytestmark = pytest.mark.slow  # every test here starts processes (the CLI, agent hosts)

HY = AGENTS / "hy"
BUNDLED = ROOT / "student_agents"
NOISY = GameParams(flip=FlipParams(0.3, 0.0))
QUIET = GameParams(flip=FlipParams(0.0, 0.0))


def moves_of(path, opponent="random", mode="none", seed=3, turns=20, params=NOISY):
    record, side, _handle = play_one(file_spec(path), opponent, turns, params, mode, seed)
    return intended_moves(record, side), record, side


def unique_copy(source, folder, name):
    """The agent's file with a comment no other test has, so its cache entry is new."""
    path = folder / f"{name}.hy"
    path.write_text(f";; {uuid.uuid4()}\n" + source.read_text())
    return path


# -- moves ----------------------------------------------------------------------------
def test_a_move_equals_the_symbol_and_the_string_and_prints_as_c():
    symbol = hy.models.Symbol("C")
    assert C == symbol and symbol == C and C == "C" and "C" == C
    assert C != "D" and not (C != symbol) and D != symbol and not (D == "C")
    assert {symbol: 1}[C] == 1 and {"C": 2}[C] == 2 and {C: 3}["C"] == 3
    assert [C, D, C].count(symbol) == 2 and [C, D].count("D") == 1 and symbol in [D, C]
    assert hy.repr(C) == "C" and str(D) == "D" and f"{D}" == "D"


def test_a_hist_pair_equals_any_sequence_of_its_moves_and_prints_as_a_lisp_list():
    pair = hist_pair("C", "D")
    quoted = hy.eval(hy.read("'(C D)"))
    for other in (quoted, ("C", "D"), ["C", "D"], [hy.models.Symbol("C"), "D"]):
        assert pair == other and other == pair and not (pair != other)
    assert pair != ("D", "D") and pair != ("C",) and pair != "CD"
    assert {("C", "D"): 1}[pair] == 1 and {quoted: 2}[pair] == 2 and {pair: 3}[quoted] == 3
    assert [pair, hist_pair("D", "D")].count(["C", "D"]) == 1 and quoted in [pair]
    assert hy.repr(pair) == "(C D)" and hy.repr([hist_pair("D", "D")]) == "[(D D)]"
    assert str(pair) == "(C D)" and pair[0] is C and len(pair) == 2


def test_a_move_stays_a_move_when_copied_or_pickled():
    hist = [hist_pair("C", "D")]
    for copied in (copy.deepcopy(hist), pickle.loads(pickle.dumps(hist)), copy.copy(hist)):
        assert copied[0][1] is D and copied[0] == ("C", "D")
        assert copied[0][1] == hy.models.Symbol("D") and copied[0][1] == "D"
        assert hy.repr(copied) == "[(C D)]"


def test_hy_repr_still_quotes_plain_symbols():
    assert hy.repr(hy.models.Symbol("C")) == "'C"
    assert hy.repr([hy.models.Symbol("C"), C]) == "['C C]"


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


def test_copied_and_pickled_hist_keeps_working_in_an_agent():
    moves, record, side = moves_of(HY / "Copier.hy", opponent="defect", params=QUIET, turns=3)
    assert record.faults(side) == []
    assert moves == ["CCC", "DDD", "DDD"]


def test_keywords_and_lower_case_and_quoted_forms_are_accepted_with_a_warning():
    moves, record, side = moves_of(HY / "Keywords.hy", params=QUIET, turns=2)
    assert moves == ["CCC", "CDC"]
    assert record.faults(side) == []
    assert "non-canonically" in record.warnings[side]


def test_score_is_a_list_of_two_integers_and_hist_pairs_of_moves():
    record, side, _ = play_one(file_spec(HY / "Inspector.hy"), "defect", 3, QUIET, "none")
    assert record.faults(side) == []


# -- load errors ------------------------------------------------------------------------
def load_error(path):
    with pytest.raises(LoadError) as caught:
        open_handle(file_spec(path), Isolation("none"))
    return str(caught.value)


def test_an_unclosed_paren_is_reported_where_it_opens():
    message = load_error(HY / "Broken.hy")
    assert message.startswith(f"{HY / 'Broken.hy'}:1: ")
    assert '"(" is never closed' in message and "line 4" in message


def test_an_unclosed_string_is_reported_where_it_opens():
    message = load_error(HY / "UnclosedString.hy")
    assert message.startswith(f"{HY / 'UnclosedString.hy'}:3: ")
    assert "string is never closed" in message


def test_a_compile_error_is_reported_with_its_line():
    message = load_error(HY / "BadAssign.hy")
    assert message.startswith(f"{HY / 'BadAssign.hy'}:5: ")
    assert "constant" in message


def test_a_failing_macro_and_a_missing_library_are_load_errors(tmp_path):
    macro = tmp_path / "Macro.hy"
    macro.write_text("(defmacro boom [] (/ 1 0))\n\n(defn Macro [hist score] (boom))\n")
    assert load_error(macro).startswith(f"{macro}:3: ") and "ZeroDivisionError" in load_error(
        macro)
    missing = tmp_path / "Missing.hy"
    missing.write_text("(require no_such_library [x])\n(defn Missing [hist score] 1)\n")
    assert load_error(missing).startswith(f"{missing}:1: ") and "no_such_library" in (
        load_error(missing))


@pytest.mark.parametrize("mode", ["process", "sandbox"])
def test_a_broken_hy_file_is_a_load_error_in_the_tournament(mode, bwrap):
    status, out, err = run_cli("tournament", HY / "BadAssign.hy", "titfortat", "defect",
                               "--seed", "1", "--format", "json", "--isolation", mode)
    assert status == 0, err
    agent = {a["name"]: a for a in json.loads(out)["agents"]}["BadAssign"]
    assert agent["status"] == "disqualified" and agent["language"] == "hy"
    assert "BadAssign.hy:5:" in agent["message"]


def test_reader_macros_of_hyrule_and_the_prelude_load_and_pass_validation():
    moves, record, side = moves_of(HY / "Anaphoric.hy", opponent="defect", params=QUIET,
                                   turns=2, mode="process")
    assert moves == ["CCC", "DDD"] and record.faults(side) == []
    for path in (HY / "Anaphoric.hy", BUNDLED / "KimLopez.hy"):  # #% and #'
        source = path.read_text()
        forms = list(hy.read_many(source, reader=hy_loading.static_reader(source)))
        assert forms[-1][0] == hy.models.Symbol("defn")
    status, out, err = run_cli("validate", *sorted(BUNDLED.glob("*.hy")))
    assert status == 0, out + err


# -- the compile cache ------------------------------------------------------------------
def test_the_hyrule_agent_loads_and_a_second_load_reads_the_cache(tmp_path, monkeypatch):
    agent = unique_copy(BUNDLED / "IvanovJones.hy", tmp_path, "IvanovJones")
    entry = hy_loading.cache_file(agent.read_text())
    assert not entry.exists()
    hy_loading.load_factory(agent, "IvanovJones")
    assert entry.exists()
    compiled = []
    real = hy_loading.compile_hy
    monkeypatch.setattr(hy_loading, "compile_hy", lambda *a: compiled.append(a) or real(*a))
    hy_loading.load_factory(agent, "IvanovJones")
    assert compiled == []                       # a hit: nothing compiled
    agent.write_text(agent.read_text().replace("5", "4"))
    hy_loading.load_factory(agent, "IvanovJones")
    assert len(compiled) == 1                   # the file changed: compiled again
    assert hy_loading.cache_file(agent.read_text()).exists()


def test_a_torn_cache_entry_is_compiled_again(tmp_path):
    agent = unique_copy(BUNDLED / "GarciaHoffman.hy", tmp_path, "GarciaHoffman")
    entry = hy_loading.cache_file(agent.read_text())
    entry.parent.mkdir(parents=True, exist_ok=True)
    for torn in (b"\xe3\x00garbage", marshal.dumps(5), b""):
        entry.write_bytes(torn)
        moves, record, side = moves_of(agent, opponent="defect", params=QUIET, turns=3)
        assert moves == ["CCC", "DDD", "DDD"] and record.faults(side) == []
        assert hy_loading._cached(entry) is not None  # and the entry was written afresh


def test_an_agent_host_never_writes_the_cache_the_monitor_does(tmp_path):
    agent = unique_copy(BUNDLED / "GarciaHoffman.hy", tmp_path, "GarciaHoffman")
    entry = hy_loading.cache_file(agent.read_text())
    hosted, record, side = moves_of(agent, mode="process", seed=8)
    assert record.faults(side) == []
    assert not entry.exists()
    in_monitor, _, _ = moves_of(agent, mode="none", seed=8)
    assert entry.exists() and in_monitor == hosted


def test_hy_and_hyrule_bytecode_is_in_the_cache_before_hosts_start():
    hy_loading.warm_library_cache()
    prefix = hy_loading._pycache_prefix()
    assert hy_loading._stamp(prefix).exists()
    for package, module in [("hy", "core/macros.hy"), ("hyrule", "hy_init.hy")]:
        source = Path(importlib.util.find_spec(package).origin).parent / module
        with hy_loading.library_bytecode(prefix):
            compiled = Path(importlib.util.cache_from_source(str(source)))
        assert compiled.is_relative_to(prefix) and compiled.exists(), compiled


# -- isolation modes --------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["process", "sandbox"])
@pytest.mark.parametrize("agent", ["KimLopez", "IvanovJones", "GarciaHoffman"])
def test_hy_agents_play_the_same_in_every_isolation_mode(agent, mode, bwrap):
    path = BUNDLED / f"{agent}.hy"
    reference, record, side = moves_of(path, seed=5)
    assert record.faults(side) == []
    hosted, record, side = moves_of(path, seed=5, mode=mode)
    assert record.faults(side) == [] and hosted == reference


def test_the_sandbox_hides_compiled_agents_from_agents(bwrap):
    peeker = HY / "Peeker.hy"
    moves_of(peeker, mode="none")               # the monitor compiles it into the cache
    assert moves_of(peeker, mode="process", params=QUIET, turns=1)[0] == ["DDD"]
    assert moves_of(peeker, mode="sandbox", params=QUIET, turns=1)[0] == ["CCC"]


def test_a_mixed_python_hy_lisp_tournament(sbcl):
    status, out, err = run_cli("tournament", BUNDLED, "titfortat",
                               "--seed", "6", "--format", "json", "--isolation", "process")
    assert status == 0, err
    result = json.loads(out)
    assert {a["language"] for a in result["agents"]} == {"python", "hy", "lisp", "builtin"}
    assert all(a["status"] == "ok" for a in result["agents"]), result["agents"]
    assert all(sum(s["faults"].values()) == 0 for s in result["standings"])
