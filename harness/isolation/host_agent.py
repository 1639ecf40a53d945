"""What an agent host (harness/isolation/host.py) knows of its agent, per language: how it
is prepared (in a throwaway child: that runs agent code), what each game's process makes of
it, and how a call's reply is written. Made in the zygote, which never runs agent code:
everything here that every game's process uses is made once, before the first fork.
Imports are in functions: the host's image stays lean.
"""
from __future__ import annotations

import marshal
import os
import sys

from harness.core import protocol

_WARN = protocol.WARN   # bound once: see host.py on the protocol's words in a game's process

# rehearse's stand-in: our own code, shaped like a student's (it reads hist), under a
# name of its own: nothing from outside (the agent's name is the upload's) goes into it
_STAND_IN_NAME = "stand_in"
_STAND_IN = (f"def {_STAND_IN_NAME}(hist, score):\n"
             "    return [theirs for _, theirs in hist[-3:]] or ['C'] * 3\n")
_REHEARSED_GAMES, _REHEARSED_TURNS = 8, 12   # past CPython 3.11's warm-up of a function


class Agent:
    """What the zygote knows of the agent: how to prepare it (in a throwaway child: this
    runs agent code) and how a game's child makes a runtime from what preparing gave."""

    def __init__(self, kind: str, source: str, name: str, folder: str = ""):
        # a str, not a Path: pathlib is not imported here (every game's fork copies less)
        self.kind, self.source, self.name = kind, source, name
        # a bundle's snapshot (harness/agents/agent_files.py, AGENT_FOLDER), '' for a file
        self.folder = folder
        # what every game's child uses, imported once here (no agent code runs), so that
        # no game pays for importing it again
        from harness.agents import answers, lang, pyload, runtime  # noqa: F401
        from harness.core import rules

        self.usual_payoffs = rules.Payoffs()
        self.language = lang.LANGUAGES.get(kind)   # None for a built-in
        if self.language is None:
            from harness.agents import builtins  # noqa: F401
        else:
            from harness.agents.private_random import MadeAhead
            from harness.agents.pyload import code_factory
            from harness.agents.runtime import AgentRuntime

            self.language.preload_in_host(source)
            # first: what it frees, what is made ahead below fills
            rehearse(self.language, self.usual_payoffs)
            # What each game's process would make alike is made once here (no agent code
            # runs): made there, it would write to (and so copy) pages of this process's
            # objects. The game's process gives the factory the agent's code (`runtime`).
            ahead = MadeAhead()
            self.random_module = ahead.random_module
            self.factory = code_factory(None, source, name, check=False,
                                        namespaces=ahead.namespace)
            self.ready = AgentRuntime(self.factory, self.language.pairs(),
                                      self.language.lisp_syntax, ahead.seeded)

    def prepare(self) -> bytes:
        """The compiled code (marshal), after loading it once; LoadError if it does not."""
        if self.language is None:  # a built-in: a name or a strategy table's key
            from harness.agents.strategy_keys import strategy_for

            strategy_for(self.name)
            return b""
        from pathlib import Path  # in the throwaway child that prepares the agent

        self.enter_folder()
        return marshal.dumps(self.language.checked_code(Path(self.source), self.name))

    def enter_folder(self) -> None:
        """A bundle's agent runs in its folder, which is first on its import path (its
        helper modules import as beside a script). Done in each process that runs agent
        code, once its world is built (a folder entered before would stay reachable
        through the current folder, past the world's mounts), just before the agent's
        code and after what the host imports ahead: as beside a script, a helper named
        like a module of the standard library shadows it (in that process only)."""
        if self.folder:
            os.chdir(self.folder)
            sys.path.insert(0, self.folder)
            # its helper modules' `import random` is the agent's own, seeded by the game
            # (same seed, same result), as a script's modules share one `random`
            sys.modules["random"] = self.random_module

    def runtime(self, compiled: bytes):
        """The game's runtime, in its own process (once: it is made ahead, see __init__)."""
        if self.language is None:
            from harness.agents.runtime import StrategyRuntime
            from harness.agents.strategy_keys import strategy_for

            return StrategyRuntime(strategy_for(self.name))
        self.enter_folder()
        # unmarshalled here, not in the zygote: the bytes come from a process that ran
        # the agent's code, and reading crafted ones may crash the process reading them
        self.factory.code = marshal.loads(compiled)
        return self.ready

    def payoffs(self, t: int, r: int, p: int, s: int):
        """The game's payoff table: the usual one is made once, in the zygote."""
        usual = self.usual_payoffs
        if (t, r, p, s) == (usual.T, usual.R, usual.P, usual.S):
            return usual
        from harness.core.rules import Payoffs

        return Payoffs(t, r, p, s)


def rehearse(language, payoffs) -> set[protocol.Verb]:
    """Play the harness's side of a few games in the zygote, with a stand-in agent of our
    own (no agent code runs in a zygote), so that what a game's process runs of ours has
    been run before the fork: CPython specializes a function's bytecode, and fills its
    caches, the first times it runs, and done in each game's process those writes copy
    the zygote's pages (some 20 a Python game, a fifth of its calls' page faults:
    benchmarks/game_process_cost.py). The stand-in's runtime is its own and is dropped:
    the game's (`Agent.ready`) has never played, and its generator is still unused.
    Returns the kinds of reply the calls made: MOVES alone, unless the call path broke."""
    from harness.agents.pyload import code_factory
    from harness.agents.runtime import AgentRuntime

    factory = code_factory(compile(_STAND_IN, "<rehearsal>", "exec"), "<rehearsal>",
                           _STAND_IN_NAME, check=False,
                           namespaces=lambda module, path, rng: {"__name__": module})
    runtime = AgentRuntime(factory, language.pairs(), language.lisp_syntax)
    kinds = set()
    for game in range(_REHEARSED_GAMES):
        runtime.start_game(game, 3, payoffs)
        for _ in range(_REHEARSED_TURNS):
            kind, text, warning = runtime.call()
            reply_line(kind, text, warning)
            kinds.add(kind)
            runtime.record("CCD", "DCC")
    return kinds


def reply_line(kind: protocol.Verb, text: str, warning: str | None) -> bytes:
    """A call's reply, newline-ended, as `kind.line` writes it (tests/test_protocol.py)."""
    if warning:
        return f"{kind.word} {text} {_WARN} {warning}\n".encode("utf-8", "replace")
    return f"{kind.word} {text}\n".encode("utf-8", "replace")
