"""The host process of a Hy agent: `python -m lisp_bridge.hy_host SOURCE NAME`.

The Python host (harness.host) serving a Hy agent, with the harness cache read-only: the
process belongs to the agent, and nothing the agent could have touched may end up in the
cache the monitor reads.
"""
from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    from harness import host

    from . import hy_loader

    hy_loader.serve_read_only()
    return host.main(["hy", *argv])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
