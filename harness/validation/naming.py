"""The naming rule: LastnameLastname..., each member's last name capitalized, in
alphabetical order (KhosmoodLevinson, not LevinsonKhosmood).

Real names in an agent name (docs/submit.md says the same for students):
- letters outside ASCII are kept as written (Muñoz; Python, Hy and Lisp all accept them);
- hyphens, apostrophes and spaces are dropped and the next letter capitalized
  (Smith-Jones -> SmithJones, O'Brien -> OBrien, de la Cruz -> DeLaCruz);
- a name written all in capitals is capitalized (LEVINSON -> Levinson);
- names are sorted, and compared with a roster, without accents or case.

Without a roster the split into names is inferred from the capitals. Some capitals may
continue the same name (McDonald, DeLaCruz, OBrien): every reading of such a name is tried;
when the readings disagree about the order the name gets a warning, when none of them is in
order it is a `name-order` problem.

The roster (`--roster FILE`) is read by `roster.py`, which builds on this module.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from itertools import product

# Parts after which a capital may continue the same last name (McDonald, DeLaCruz, OBrien)
AMBIGUOUS_PREFIXES = frozenset({
    "Mc", "Mac", "De", "Del", "Della", "Dela", "La", "Le", "Lo", "Van", "Von", "Der", "Den",
    "Ten", "Ter", "Di", "Da", "Du", "Dos", "Das", "St", "Ste", "Al", "El", "Ben", "Bin",
    "Ibn", "Ap", "Fitz", "Zu", "Vander", "Vande", "Op"})
MAX_READINGS = 4096          # a name with more ways to split than this is not a real name


def agent_name_of(last_name: str) -> str:
    """A real last name as it appears in an agent name: Smith-Jones -> SmithJones."""
    pieces = re.split(r"[\s\-'’`.]+", last_name.strip())
    return "".join(_capitalized(piece) for piece in pieces if piece)


def _capitalized(piece: str) -> str:
    if len(piece) > 1 and piece.isupper():
        piece = piece.lower()   # LEVINSON, as some course exports write last names
    return piece[:1].upper() + piece[1:]


def plain(text: str) -> str:
    """For comparing names: no accents, no case (Muñoz and MUNOZ are the same)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def sort_key(last_name: str) -> str:
    """Where a member's name goes in the agent name: by the name as it is written there."""
    return plain(agent_name_of(last_name))


def name_for(last_names) -> str:
    """The agent name of a team: its members' names, sorted, run together."""
    return "".join(agent_name_of(name) for name in sorted(last_names, key=sort_key))


def split_capitals(name: str) -> list[str] | None:
    """KhosmoodLevinson -> [Khosmood, Levinson]; None when it is not CamelCase letters."""
    if not name or not name[0].isupper() or not all(c.isalpha() for c in name):
        return None
    parts, current = [], name[0]
    for char in name[1:]:
        if char.isupper():
            parts.append(current)
            current = char
        else:
            current += char
    parts.append(current)
    return parts


def readings(parts: list[str]) -> list[list[str]]:
    """Every way of reading PARTS as last names, joining an ambiguous prefix (Mc, De, O...)
    with the part after it or not. The plain split comes first."""
    joinable = [i for i, part in enumerate(parts[:-1]) if _may_continue(part)]
    if 2 ** len(joinable) > MAX_READINGS:
        return [parts]
    found = []
    for choice in product((False, True), repeat=len(joinable)):
        joins = {i for i, join in zip(joinable, choice, strict=True) if join}
        names, current = [], parts[0]
        for i, part in enumerate(parts[1:]):
            if i in joins:
                current += part
            else:
                names.append(current)
                current = part
        names.append(current)
        found.append(names)
    return found


def _may_continue(part: str) -> bool:
    return part in AMBIGUOUS_PREFIXES or len(part) == 1


def in_order(names: list[str]) -> bool:
    keys = [plain(name) for name in names]
    return keys == sorted(keys)


@dataclass
class NameCheck:
    problems: list[tuple[str, str]] = field(default_factory=list)   # (code, message)
    warnings: list[str] = field(default_factory=list)
    members: list[str] = field(default_factory=list)                # the most likely split


def check_name(name: str, meant: str | None = None) -> NameCheck:
    """The rule without a roster: the split is inferred from capitals. MEANT: the name a
    badly written one is suggested to be (the roster's spelling), if known."""
    result = NameCheck()
    parts = split_capitals(name)
    if parts is None:
        result.problems.append(("name-format", _format_message(name, meant)))
        return result
    if re.search(r"[A-Z]{3}", name) or (len(name) > 1 and name.isupper()):
        result.problems.append(("name-format", f"{name} is written in capitals: capitalize "
                                "each last name and write the rest in lower case "
                                "(KhosmoodLevinson)"))
        return result
    every = readings(parts)
    likely = min(every, key=len)   # Mc, De, O... most often do start a longer name
    result.members = likely
    ordered = [reading for reading in every if in_order(reading)]
    if not ordered:
        result.problems.append(("name-order", _order_message(name, likely)))
    elif len(ordered) < len(every):
        unsure = sorted({p for p in parts[:-1] if _may_continue(p)})
        result.warnings.append(
            f"cannot tell for sure where the last names in {name} split ({', '.join(unsure)} "
            "may start a longer name), so their order was not checked: name the team in a "
            "comment line (Team: McDonald, Smith) or validate with --roster")
    return result


def _format_message(name: str, meant: str | None = None) -> str:
    what = "is empty" if not name else "is not last names run together, each capitalized"
    if name and not name[0].isupper() and name[0].isalpha():
        what = "does not start with a capital letter"
    elif name and not all(c.isalpha() for c in name):
        odd = next(c for c in name if not c.isalpha())
        what = f"has {odd!r} in it: letters only"
    suggestion = meant or _suggest_format(name)
    hint = f"; perhaps {suggestion}" if suggestion and suggestion != name else ""
    return f"{name!r} {what} (like KhosmoodLevinson){hint}"


def _suggest_format(name: str) -> str:
    """khosmood_levinson -> KhosmoodLevinson: what the writer probably meant."""
    words = [w for w in re.split(r"[^\w]|_|\d", name) if w]
    if not words:
        return ""
    if len(words) == 1:
        return words[0][:1].upper() + words[0][1:]
    return name_for(words)


def _order_message(name: str, members: list[str]) -> str:
    expected = "".join(sorted(members, key=plain))
    return (f"{name}: the last names {', '.join(members)} are not in alphabetical order; "
            f"the agent should be {expected}")


# Every pattern here runs on untrusted text, so none may backtrack: no two adjacent parts
# that can match the same characters (a run of 60,000 spaces once took minutes)
_TEAM_LABEL = re.compile(r"(?:team|members)\s*:", re.IGNORECASE)
_NAME_SEPARATOR = re.compile(r"[,;/&+]|\band\b", re.IGNORECASE)


def declared_team(source: str, lines: int = 30) -> list[str] | None:
    """The members a file names in its opening comment (`Team: Muñoz, Smith-Jones`, as
    `pdharness new` writes it): the split of the agent name that the capitals cannot give."""
    for line in source.splitlines()[:lines]:
        listed = _team_line(line)
        if listed:
            names = [n.strip() for n in _NAME_SEPARATOR.split(listed) if n.strip()]
            if names and all(agent_name_of(n).isalpha() for n in names):
                return names
    return None


def _team_line(line: str) -> str | None:
    """What follows `Team:` (or `Members:`) on a line of only punctuation before it (a
    comment's `#`, `;;`, `//`), without the punctuation that ends the line."""
    text = line.strip()
    start = next((i for i, c in enumerate(text) if c.isalnum()), len(text))
    label = _TEAM_LABEL.match(text, start)
    if not label:
        return None
    listed = text[label.end():].strip()
    end = len(listed)
    while end > 1 and not listed[end - 1].isalnum():
        end -= 1
    return listed[:end] or None
