"""The agent host: `python -m harness.host LANGUAGE SOURCE NAME`.

Serves one Python, Hy or built-in agent over the line protocol of docs/DESIGN.md. Before
any agent code runs, the protocol moves to private descriptors: the agent's stdin is empty
and its stdout goes to stderr, which the monitor captures apart from the protocol.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path


def _take_protocol_streams():
    """(input file, output fd) private to the host; fd 0 -> /dev/null, fd 1 -> fd 2."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return requests, replies


def _loaded(language_name: str, source: str, name: str):
    from .languages import LANGUAGES
    from .runtime import AgentRuntime, StrategyRuntime

    language = LANGUAGES[language_name]
    if language_name == "builtin":
        return StrategyRuntime(language.load(None, name))
    return AgentRuntime(language.load(Path(source), name), language.pairs())


def serve(runtime, requests, send) -> None:
    from .rules import Payoffs

    for line in requests:
        words = line.decode("ascii").split()
        if not words:
            continue
        command = words[0]
        if command == "TURN":
            if len(words) == 3:
                runtime.record(words[1], words[2])
            kind, text, warning = runtime.call()
            send(f"{kind} {text} WARN {warning}" if warning else f"{kind} {text}")
        elif command == "SYNC":
            runtime.record(words[1], words[2])
        elif command == "GAME":
            seed, per_turn, t, r, p, s = map(int, words[1:7])
            runtime.start_game(seed, per_turn, Payoffs(t, r, p, s))
        elif command == "QUIT":
            return


def main(argv: list[str]) -> int:
    token = os.environ.pop("PDH_TOKEN", "")
    requests, replies = _take_protocol_streams()

    def send(text: str) -> None:
        os.write(replies, f"{token} {text}\n".encode("utf-8", "replace"))

    from .errors import LoadError
    from .runtime import describe_exception, one_line

    language, source, name = argv
    try:
        runtime = _loaded(language, source, name)
    except LoadError as error:
        send(f"LOADERR {one_line(str(error))}")
        return 1
    except BaseException as error:  # anything else while loading is still a load error
        send(f"LOADERR {one_line(source + ': ' + describe_exception(error))}")
        return 1
    send("READY")
    serve(runtime, requests, send)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
