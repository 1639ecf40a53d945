"""What an agent's processes printed (their stderr, which the monitor captures): kept up to
a cap for the instructor, the rest counted, the last few KiB kept apart for a dying
process's last words."""
from __future__ import annotations

OUTPUT_CAP = 64 * 1024   # bytes of an agent's output kept, per run


class CapturedOutput:
    """What an agent printed, kept up to a cap for the instructor; the rest is counted. The
    last few KiB are kept apart, past the cap too: a dying process's last words (a runtime's
    fatal error, the zygote's protocol verdict) say why it died."""

    TAIL = 4096

    def __init__(self, cap: int = OUTPUT_CAP):
        self.cap = cap
        self.kept = bytearray()
        self.dropped = 0
        self.tail = b""

    def keep(self, chunk: bytes) -> None:
        room = self.cap - len(self.kept)
        self.kept += chunk[:max(0, room)]
        self.dropped += max(0, len(chunk) - max(0, room))
        self.tail = (self.tail + chunk[-self.TAIL:])[-self.TAIL:]

    def text(self) -> str:
        text = self.kept.decode("utf-8", "replace")
        if self.dropped:
            text += f"\n[... {self.dropped} more bytes not kept]"
        return text

