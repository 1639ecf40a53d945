"""Reading what a host process writes on its reply pipe: untrusted bytes.

Agent code can find the reply pipe (and the token that marks the host's replies), so
anything may arrive there, at any time, in any amount. The reader splits the bytes into
lines in one pass over each chunk (linear in the bytes, never re-slicing per line) and
holds the host to the protocol of docs/DESIGN.md:

- exactly one marked line answers each request: a marked line when no reply is due, or
  while the request is still being written, is a violation;
- lines that are not replies (no token, empty) are tolerated up to JUNK_ALLOWANCE per
  request, so one call reads at most about (JUNK_ALLOWANCE + 1) * LINE_LIMIT bytes;
- no line is longer than LINE_LIMIT bytes.
A violation is final: the process is not to be trusted with another request.
"""
from __future__ import annotations

from harness.core.protocol import JUNK_ALLOWANCE, LINE_LIMIT


class ReplyReader:
    def __init__(self, token: bytes):
        self.token = token               # b"<token> "
        self.partial = bytearray()       # the start of a line not yet ended
        self.expecting = True            # a reply is due (READY first, then one per TURN)
        self.reply: str | None = None    # the reply received, not yet taken
        self.junk = 0                    # lines since the last request that were not replies
        self.broken: str | None = None   # how the host broke the protocol, if it did

    def expect(self) -> None:
        """A request with a reply is being sent."""
        self.junk = 0
        self.expecting = True

    def take(self) -> str | None:
        reply, self.reply = self.reply, None
        return reply

    def feed(self, chunk: bytes, request_unsent: bool = False) -> None:
        """Take one chunk read from the pipe. `request_unsent`: part of the request due
        to be answered has not been written yet, so no reply can be honest now."""
        if not self.partial and chunk.find(b"\n") == len(chunk) - 1 and self.broken is None:
            self._line(chunk, 0, len(chunk) - 1, request_unsent)   # one whole line: as a rule
            return
        buffer = self.partial
        scan_from = len(buffer)
        buffer += chunk
        line_start = 0
        while self.broken is None:
            end = buffer.find(b"\n", scan_from)
            if end < 0:
                break
            self._line(buffer, line_start, end, request_unsent)
            line_start = scan_from = end + 1
        del buffer[:line_start]
        if len(buffer) > LINE_LIMIT and self.broken is None:
            self.broken = f"a protocol line over {LINE_LIMIT} bytes"

    def _line(self, buffer: bytes | bytearray, start: int, end: int,
              request_unsent: bool) -> None:
        if end - start > LINE_LIMIT:
            self.broken = f"a protocol line over {LINE_LIMIT} bytes"
        elif not buffer.startswith(self.token, start):
            self.junk += 1
            if self.junk > JUNK_ALLOWANCE:
                self.broken = (f"more than {JUNK_ALLOWANCE} lines that are not replies "
                               "on the protocol pipe")
        elif request_unsent:
            self.broken = "a reply before its request was sent"
        elif not self.expecting:
            self.broken = ("a second reply to one request" if self.reply is not None else
                           "a reply to no request (a second one, or one sent before its "
                           "request)")
        else:
            self.expecting = False
            self.reply = buffer[start + len(self.token):end].decode("utf-8", "replace")


class ControlReader:
    """The zygote's lines on the control channel. It runs no agent code, so every line
    there is its own, marked and short: any other line breaks the protocol (`broken`)."""

    def __init__(self, token: bytes):
        self.token = token               # b"<token> "
        self.partial = bytearray()       # the start of a line not yet ended
        self.broken: str | None = None

    def feed(self, chunk: bytes) -> list[str]:
        """The whole lines `chunk` ends, unmarked; none past a line that breaks it."""
        self.partial += chunk
        *lines, rest = self.partial.split(b"\n")
        self.partial = bytearray(rest)
        heard: list[str] = []
        for line in lines:
            if not line.startswith(self.token) or len(line) > LINE_LIMIT:
                self.broken = "a line that is not the zygote's on its control pipe"
                return heard
            heard.append(line[len(self.token):].decode("utf-8", "replace"))
        if len(rest) > LINE_LIMIT:
            self.broken = f"a line over {LINE_LIMIT} bytes on its control pipe"
        return heard
