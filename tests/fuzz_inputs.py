"""Hypothesis strategies for untrusted text, shared by tests/test_fuzz_readers.py and
benchmarks/readers_worst_case.py: random bytes, and the shapes that have broken readers
(deep nesting, long tokens, huge numbers, long runs of one character, odd line endings)."""
from __future__ import annotations

from hypothesis import strategies as st

LISP_ALPHABET = "()'`,@#\\|\";:.+-/*eEdD019abcxXrR \n\t\r"
HY_ALPHABET = LISP_ALPHABET + "[]{}%^_~fb"
PY_ALPHABET = "()[]{}+-*/%=:,.'\"#\\ \n\tabcdefTxy0129jJeE_@!<>&|^~"
CSV_ALPHABET = ",;\t\"\r\n |/&+-'’.@ AaBbÉé0\x00\x1b"

# Openings and closings of nested Lisp forms
LISP_NESTINGS = [("(", ")"), ("'", ""), ("#'", ""), ("`(", ")"), ("#(", ")"),
                 ("#+sbcl ", ""), ("#-foo ", ""), ("#c(1 ", ")"), ("(#.", ")")]
HY_NESTINGS = [("(", ")"), ("[", "]"), ("{", "}"), ("'", ""), ("`", ""), ("~", ""),
               ("#%", ""), ("#_ x ", ""), ("#* ", ""), ("#'", "")]
PY_NESTINGS = [("(", ")"), ("[", "]"), ("-", ""), ("1+", ""), ("not ", ""), ("{1:", "}"),
               ("f(", ")"), ("lambda: ", "")]


def nested(nestings, core: str = "x", max_depth: int = 5000):
    """One form nested DEPTH deep, the openings chosen at random."""
    return st.tuples(st.lists(st.sampled_from(nestings), max_size=50),
                     st.integers(0, max_depth), st.just(core)).map(_nest)


def _nest(parts) -> str:
    kinds, depth, core = parts
    kinds = kinds or [("(", ")")]
    chosen = [kinds[i % len(kinds)] for i in range(depth)]
    return ("".join(o for o, _ in chosen) + core
            + "".join(c for _, c in reversed(chosen)))


def huge_numbers():
    """Numbers of up to 6000 digits, in the spellings Lisp, Hy and Python read."""
    digits = st.integers(1, 6000).map(lambda n: "9" * n)
    return st.one_of(
        digits,
        st.tuples(st.sampled_from(["", "-", "+"]), digits).map("".join),
        st.tuples(digits, digits).map(lambda p: f"{p[0]}/{p[1]}"),
        st.tuples(digits, st.sampled_from(["e", "d", "e-", "d+"]), digits).map(
            lambda p: f"1.{p[0]}{p[1]}{p[2][:6]}"),
        st.tuples(st.sampled_from(["#x", "#b1", "#3r1", "#36r", "#o"]), digits).map("".join),
        digits.map(lambda d: f"#c({d} 1)"),
        st.tuples(st.sampled_from(["0x", "0o", "0b1", "1e", "1j", "1.", "."]), digits).map(
            lambda p: p[0] + (p[1] if p[0] not in ("0b1", "0o") else p[1].replace("9", "1"))),
    )


def runs():
    """A long run of one character between two others (what backtracking patterns hate)."""
    return st.tuples(st.sampled_from(["# Team: a", ";; Members:", "x", "(", '"', "|", "#|"]),
                     st.sampled_from([" ", "\t", "(", ")", "a", "\\", "#", "'", "9", ",", ";"]),
                     st.integers(0, 60000),
                     st.sampled_from(["!1", "b,c", "", ")", "\n", "|#", '"']),
                     ).map(lambda p: p[0] + p[1] * p[2] + p[3])


def texts(alphabet: str, nestings, max_size: int = 3000):
    """Untrusted text of every shape above, or random characters and random bytes."""
    return st.one_of(
        st.text(alphabet, max_size=max_size),
        st.text(max_size=max_size // 4),
        st.binary(max_size=max_size).map(lambda b: b.decode("latin-1")),
        nested(nestings), huge_numbers(), runs(),
        st.lists(st.one_of(st.text(alphabet, max_size=40), nested(nestings, max_depth=300),
                           huge_numbers()), max_size=8).map(" ".join),
    )


def lisp_texts(max_size: int = 3000):
    return texts(LISP_ALPHABET, LISP_NESTINGS, max_size)


def hy_texts(max_size: int = 3000):
    return texts(HY_ALPHABET, HY_NESTINGS, max_size)


def python_texts(max_size: int = 3000):
    return st.one_of(texts(PY_ALPHABET, PY_NESTINGS, max_size),
                     nested(PY_NESTINGS, "1").map(lambda e: "x = " + e + "\n"),
                     st.integers(0, 5000).map(lambda n: "x = " + "+".join(["1"] * n) + "\n"))


def csv_bytes(max_size: int = 3000):
    """Rosters: CSV-ish text in the encodings spreadsheets write, odd line endings, binary."""
    rows = st.lists(st.lists(st.text(CSV_ALPHABET, max_size=20), max_size=6), max_size=30)
    text = st.tuples(rows, st.sampled_from([",", ";", "\t"]),
                     st.sampled_from(["\n", "\r\n", "\r"])).map(
        lambda p: p[2].join(p[1].join(row) for row in p[0]))
    encoded = st.tuples(text, st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp1252"])).map(
        lambda p: p[0].encode(p[1], errors="replace"))
    return st.one_of(encoded, st.binary(max_size=max_size),
                     runs().map(lambda t: t.encode("utf-8")),
                     st.sampled_from([b"Team,Last name\r", b"PK\x03\x04", b"\xff\xfe\x00",
                                      b'"' * 3, b"a,b\x00c\n"]))
