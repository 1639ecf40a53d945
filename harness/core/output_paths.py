"""Where an output file goes: its folder is made when missing (a course file's
`report = "out/report.html"` works on the first run), and one that cannot be made is a
clear error before the run, not after it."""
from __future__ import annotations

from pathlib import Path

from .errors import HarnessError


def make_parent(path, label: str) -> None:
    """Make the folder PATH goes in (and its own missing parents); HarnessError naming
    LABEL (how the user gave PATH: "--report out/r.html") when it cannot be made."""
    folder = Path(path).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise HarnessError(f"{label}: {folder} is not a folder") from None
    except OSError as error:
        raise HarnessError(f"{label}: cannot make folder {folder}: {error.strerror}") from None
    if not folder.resolve().is_dir():
        raise HarnessError(f"{label}: {folder} is not a folder")
