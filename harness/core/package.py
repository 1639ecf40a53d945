"""This package's version and the folder its code is in: what a record, a report and a
bundle stamp, what a cluster worker's fingerprint hashes. Here, at the bottom, so that no
module below the API needs `import harness` (whose `monitor` is the API's)."""
from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

HARNESS_FOLDER = Path(__file__).resolve().parent.parent   # harness/, installed or a checkout
