"""Loads and plays, but prints terminal escapes (clear screen, OSC 52 clipboard write, OSC 0
title) to stdout and stderr on every call, and raises with escapes in its message every
fifth turn, so `show --agent` has captured output and fault messages full of them. The
record keeps them raw; a terminal must only ever see them escaped."""
import sys

ESCAPES = "\x1b[2J\x1b[H\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07"


def TerminalWriter(hist, score):
    print(ESCAPES + "stdout", flush=True)
    print(ESCAPES + "stderr", file=sys.stderr, flush=True)
    if len(hist) % 5 == 4:
        raise ValueError(ESCAPES + "\x1b[1A\x1b[2Kforged line")
    return ["C", "D", "C"]
