"""What a submission bundle may hold (harness/agents/bundles.py), and how a refusal names a
path inside one: shared by the folder's reading and the zip's (bundle_zip.py)."""
from __future__ import annotations

from harness.core.safe_text import line

MAX_FILES = 1000               # files a bundle may hold
MAX_NAME_BYTES = 1024          # a path inside a bundle, in UTF-8
MAX_DEPTH = 32                 # folders inside folders
CHUNK = 64 * 1024              # bytes read or decompressed at a time
# what tools leave beside a submission that is no part of it: never copied
SKIPPED = frozenset({"__pycache__", ".git", "__MACOSX", ".DS_Store"})
MIB = 1024 * 1024


def shown_name(name: str) -> str:
    """A path inside a bundle as a message shows it: one safe line, cut at 80 characters."""
    return line(name if len(name) <= 80 else name[:80] + "...")
