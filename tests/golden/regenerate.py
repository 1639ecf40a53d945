"""Rewrite tests/golden/tournament.json from a run of today's code, on purpose:

    python tests/golden/regenerate.py

It plays the pinned tournament (tests/golden/pin.py) once per isolation mode and --jobs,
refuses to write when the runs disagree with one another (that is a bug, not a new
behaviour), and writes the normalized JSON. Commit the file with a message saying which
change of behaviour it records and why it is meant.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from golden import pin  # noqa: E402 - the tests folder is put on the path just above


def main() -> int:
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for mode in pin.MODES:
            for jobs in pin.JOBS:
                results[mode, jobs] = pin.normalized(pin.play(mode, jobs, Path(folder)))
    first = results[pin.MODES[0], pin.JOBS[0]]
    differ = [f"--isolation {mode} --jobs {jobs}" for (mode, jobs), shown in results.items()
              if shown != first]
    if differ:
        print(f"regenerate: not written: {', '.join(differ)} differ from "
              f"--isolation {pin.MODES[0]} --jobs {pin.JOBS[0]}", file=sys.stderr)
        return 1
    pin.EXPECTED.write_text(pin.dumps(first), encoding="utf-8")
    print(f"regenerate: wrote {pin.EXPECTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
