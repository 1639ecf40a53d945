"""Memory-N agents: a table from the last N moves of both sides to the next move.

The spec `memory:BITS[:OPENING]` gives a strategy vector of 4^N entries (0 = C, 1 = D).
Entry i answers the 2N-bit number i made of my N last moves (oldest first) followed by the
opponent's N last moves (oldest first), C = 0, D = 1: for N = 1, `0101` is tit for tat.
OPENING (N entries, or one for all; 0/1 or C/D; default C) is what the agent plays while
fewer than N moves are behind it: entry m while m of them are.

With k moves per turn, move n of the game (counting every move) looks at the N moves that
end one turn earlier, n-k-N+1 .. n-k, as the built-ins do (harness/agents/builtins.py), so with
one move per turn a Memory-1 vector plays exactly the classic strategy it spells.

Every such agent, and a trained Q-table's greedy policy, runs as one `Policy`: a move for
every window of the last m <= N move pairs, m = 0..N. Its key `table:N:CD...` is what a
host process gets to rebuild it (built-ins are our own trusted code; nothing else is read).
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.core.errors import HarnessError

from .builtins import Builtin

MEMORY_PREFIX = "memory:"
TABLE_PREFIX = "table:"
MAX_MEMORY = 5                   # 4^5 = 1024 entries; more would not fit a command line well
_AS_MOVE = {"0": "C", "1": "D", "C": "C", "D": "D", "c": "C", "d": "D"}


def offset(m: int) -> int:
    """Where the windows of m move pairs start in a policy's table: 4^0 + ... + 4^(m-1)."""
    return (4 ** m - 1) // 3


def window_state(mine, theirs, end: int, memory: int) -> int:
    """The position in a table of the window of (at most `memory`) move pairs that ends at
    index `end` of the game (inclusive; before the game when negative)."""
    m = min(memory, end + 1) if end >= 0 else 0
    index = 0
    for position in range(end - m + 1, end + 1):
        index = index * 2 + (mine[position] == "D")
    for position in range(end - m + 1, end + 1):
        index = index * 2 + (theirs[position] == "D")
    return offset(m) + index


@dataclass(frozen=True)
class Policy:
    memory: int          # N
    table: str           # one move (C/D) per window, windows of 0..N pairs, see offset()

    def key(self) -> str:
        return f"{TABLE_PREFIX}{self.memory}:{self.table}"

    def move(self, mine, theirs, end: int) -> str:
        """The move for the window of (at most N) pairs ending at index `end` (inclusive)."""
        return self.table[window_state(mine, theirs, end, self.memory)]

    def builtin(self) -> Builtin:
        def choose(seen, n, rng, k):
            return self.move(seen.mine, seen.theirs, n - k)
        return Builtin(choose, f"Memory-{self.memory} strategy table.", draws=False)


def parse_memory(text: str) -> Policy:
    """`memory:BITS[:OPENING]` -> Policy, or one clear line saying what is wrong."""
    body = text[len(MEMORY_PREFIX):] if text.startswith(MEMORY_PREFIX) else text
    bits, _, opening = body.partition(":")
    bits = "".join(bits.split()).replace("_", "")
    wrong = sorted({c for c in bits if c not in "01"})
    if wrong:
        raise HarnessError(f"{text}: a strategy vector holds only 0 (C) and 1 (D), "
                           f"not {', '.join(map(repr, wrong))}")
    memory = _memory_of(len(bits))
    if memory is None:
        sizes = ", ".join(str(4 ** n) for n in range(1, MAX_MEMORY + 1))
        raise HarnessError(f"{text}: {len(bits)} entries; a Memory-N vector has 4^N "
                           f"({sizes})")
    opening_moves = _opening(text, opening or "C", memory)
    table = "".join(opening_moves[m] * 4 ** m for m in range(memory))
    table += "".join(_AS_MOVE[b] for b in bits)
    return Policy(memory, table)


def _memory_of(size: int) -> int | None:
    for n in range(1, MAX_MEMORY + 1):
        if 4 ** n == size:
            return n
    return None


def _opening(text: str, opening: str, memory: int) -> str:
    if any(c not in _AS_MOVE for c in opening) or len(opening) not in (1, memory):
        raise HarnessError(f"{text}: the opening is 1 or {memory} moves, each 0/C or 1/D, "
                           f"not {opening!r}")
    moves = "".join(_AS_MOVE[c] for c in opening)
    return moves * memory if len(moves) == 1 else moves


def parse_table_key(key: str) -> Policy:
    """Our own key (made by Policy.key) back into the policy, in a host process."""
    memory, _, table = key[len(TABLE_PREFIX):].partition(":")
    policy = Policy(int(memory), table)
    if not 1 <= policy.memory <= MAX_MEMORY or len(table) != offset(policy.memory + 1) \
            or set(table) - set("CD"):
        raise ValueError(f"not a strategy table key: {key[:60]!r}")
    return policy
