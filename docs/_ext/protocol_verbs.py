"""`protocol-verbs`: the host line protocol's verbs as a table, made from the table that owns
them (harness/core/protocol.py), so the interface page shows exactly what the monitor and
the hosts speak. `{protocol-verbs} HOST` or `REPL` names which of its tuples to show."""
from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import Directive

from harness.core import protocol

HEADERS = ("line", "channel", "from", "to", "what it says")


def line_form(verb: protocol.Verb) -> str:
    return " ".join([verb.word, *(repr(argument) if not argument.optional
                                  else f"[{argument!r}]" for argument in verb.arguments)])


def row(cells: tuple[str, ...], literal_first: bool) -> nodes.row:
    made = nodes.row()
    for number, text in enumerate(cells):
        entry = nodes.entry()
        paragraph = nodes.paragraph()
        paragraph += nodes.literal(text, text) if number == 0 and literal_first \
            else nodes.Text(text)
        entry += paragraph
        made += entry
    return made


class ProtocolVerbs(Directive):
    required_arguments = 1   # the name of a tuple of verbs in harness.core.protocol

    def run(self):
        verbs = getattr(protocol, self.arguments[0])
        group = nodes.tgroup(cols=len(HEADERS))
        for width in (24, 8, 10, 10, 48):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        head += row(HEADERS, literal_first=False)
        body = nodes.tbody()
        for verb in verbs:
            body += row((line_form(verb), verb.channel, verb.sender, verb.receiver,
                         verb.about), literal_first=True)
        group += head
        group += body
        table = nodes.table(classes=["protocol-verbs"])
        table += group
        return [table]


def setup(app):
    app.add_directive("protocol-verbs", ProtocolVerbs)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
