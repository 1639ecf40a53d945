"""How a run's Settings are kept in its record: the `run` table's columns (store/db.py), one
flat row of plain values in the units the settings hold them in (seconds, bytes), written by
`columns` and read back by `settings_from`, the record's one mapping both ways."""
from __future__ import annotations

import json
from typing import Any, Mapping

from harness.agents.agent_environment import check_requirements
from harness.core.errors import HarnessError
from harness.core.rules import FlipParams, GameLength, GameParams, Payoffs
from harness.core.safe_text import line
from harness.engine.tournament import Settings
from harness.isolation.handles.isolation_settings import Isolation


def columns(settings: Settings) -> dict[str, Any]:
    """The settings as the record's `run` columns. Where a run plays (`cluster`) is no
    part of its record."""
    game, flip, length, isolation = settings.game, settings.game.flip, settings.length, \
        settings.isolation
    t, r, p, s = game.payoffs.as_tuple()
    return {"flip_start": flip.start, "flip_decay": flip.decay, "decay_mode": flip.mode,
            "length_min": length.low, "length_max": length.high,
            "horizon": length.horizon, "stop_prob": length.stop_prob,
            "moves_per_turn": game.moves_per_turn,
            "payoff_t": t, "payoff_r": r, "payoff_p": p, "payoff_s": s,
            "timeout": isolation.timeout, "default_answer": game.default_answer,
            "isolation": isolation.mode, "memory_limit": isolation.memory_limit,
            "load_timeout": isolation.load_timeout,
            "agent_packages": json.dumps(list(isolation.agent_packages))
            if isolation.agent_packages else None,
            "jobs": settings.jobs, "max_rounds": settings.max_rounds,
            "max_faults": settings.max_faults,
            "disqualify_broken": int(settings.disqualify_broken)}


def settings_from(row: Mapping[str, Any]) -> Settings:
    """The settings `columns` wrote (a sqlite3.Row or a dict); a column an older record
    lacks (horizon, stop_prob) takes its default. Each part checks its own values (a
    ParameterError if bad)."""
    given = {**_DEFAULTS, **{key: row[key] for key in row.keys() if key in _DEFAULTS}}
    return Settings(
        game=GameParams(
            flip=FlipParams(given["flip_start"], given["flip_decay"], given["decay_mode"]),
            moves_per_turn=given["moves_per_turn"],
            payoffs=Payoffs(given["payoff_t"], given["payoff_r"], given["payoff_p"],
                            given["payoff_s"]),
            default_answer=given["default_answer"]),
        length=GameLength(given["length_min"], given["length_max"], given["horizon"],
                          given["stop_prob"]),
        isolation=Isolation(given["isolation"], given["timeout"], given["memory_limit"],
                            given["load_timeout"], recorded_packages(given["agent_packages"])),
        jobs=given["jobs"], max_rounds=given["max_rounds"], max_faults=given["max_faults"],
        disqualify_broken=bool(given["disqualify_broken"]))


def recorded_packages(text, column: str = "run.agent_packages") -> tuple[str, ...]:
    """A recorded declaration (JSON text, or null for none) of what agents may import: a
    list of requirements, each checked as --agent-package checks it; HarnessError naming
    the record's `column` for anything else."""
    if text is None:
        return ()
    try:
        listed = json.loads(text)
    except (ValueError, RecursionError):
        listed = None
    if not isinstance(listed, list) or not all(isinstance(item, str) for item in listed):
        raise HarnessError(f"{column} is not a JSON list of pip requirements")
    try:
        return check_requirements(listed)
    except HarnessError:   # its words name --agent-package, which the user did not give
        raise HarnessError(f"{column} holds {line(repr(listed))[:200]}, not a list of pip "
                           "requirements") from None


_DEFAULTS = columns(Settings())
