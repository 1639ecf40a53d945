"""This package's version and the folder its code is in: what a record, a report and a
bundle stamp, what a cluster worker's fingerprint hashes. Here, at the bottom, so that no
module below the API needs `import harness` (whose `monitor` is the API's)."""
from __future__ import annotations

TYPE_CHECKING = False   # typing.TYPE_CHECKING, without importing typing (3 ms)
if TYPE_CHECKING:
    from pathlib import Path

__version__ = "0.1.0"


def harness_folder() -> Path:
    """The folder of the `harness` package (installed, or a checkout), as a Path: pathlib
    is imported here, when asked, so that `import harness` stays light."""
    from pathlib import Path  # the host's image stays lean

    return Path(__file__).resolve().parent.parent
