"""Monitor CPU spent reading a host that floods its reply pipe with junk lines.

A real host process (a tiny program standing in for an agent that found the protocol
pipe) answers READY, then, asked for a turn, writes N MiB of newlines followed by one
well-formed reply. We measure the monitor's CPU time (time.process_time) in
`HostProcess.read_line` until it returns or gives up, and how many bytes it took:

- as shipped: junk past JUNK_ALLOWANCE lines is a protocol violation, so a call reads
  a bounded amount, whatever the flood;
- with the allowance lifted (`--no-allowance`): the reader's cost per MiB, which must
  grow linearly in the bytes (no re-slicing of the buffer per line);
- `--before REV`: the same flood against the reader of an older commit (e.g. main before
  the bounded reader), extracted with `git archive` into a temporary folder.

    python benchmarks/junk_flood.py [--mib 1 4] [--before REV]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FLOODER = r"""
import os, sys
token = os.environ["PDH_TOKEN"]
os.write(1, (token + " READY\n").encode())
# the game channel where the monitor passes one down, else stdin and stdout
requests, replies = map(int, os.environ.get("PDH_GAME_FDS", "0,1").split(","))
while b"TURN" not in os.read(requests, 65536):   # the TURN request
    pass
flood = b"\n" * (1 << 20)
for _ in range(int(sys.argv[1])):
    written = 0
    while written < len(flood):
        try:
            written += os.write(replies, flood[written:])
        except BrokenPipeError:
            sys.exit(0)
os.write(replies, (token + " MOVES CCC\n").encode())
sys.stdin.buffer.read()
"""

MEASURE = r"""
import json, os, secrets, sys, time
from harness.isolation.handles.process import CapturedOutput, HostProcess

mib, lift = int(sys.argv[1]), sys.argv[2] == "lift"
if lift:
    import harness.isolation.handles.replies as replies
    replies.JUNK_ALLOWANCE = replies.LINE_LIMIT = 1 << 40
token = secrets.token_hex(8)
host = HostProcess([sys.executable, "-c", sys.argv[3], str(mib)],
                   dict(os.environ, PDH_TOKEN=token), token, CapturedOutput())
ready = getattr(host, "first_words", None) or host.read_line   # the control channel
assert ready(time.monotonic() + 30) == "READY"
(getattr(host, "ask", None) or host.send)("TURN\n")
began = time.process_time()
try:
    outcome = "reply " + host.read_line(time.monotonic() + 120)
except Exception as error:
    outcome = f"{type(error).__name__}: {error}"
cpu = time.process_time() - began
host.kill()
print(json.dumps({"cpu": cpu, "outcome": outcome}))
"""


def measure(package_root: Path, mib: int, lift: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(package_root))
    done = subprocess.run([sys.executable, "-c", MEASURE, str(mib), "lift" if lift else "",
                           FLOODER], capture_output=True, text=True, env=env, timeout=600,
                          cwd=package_root)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout)


def checkout(revision: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "harness",
                              "lisp_bridge"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def report(label: str, package_root: Path, sizes, lift: bool) -> None:
    for mib in sizes:
        result = measure(package_root, mib, lift)
        print(f"{label:<28} {mib:>3} MiB: monitor CPU {result['cpu'] * 1000:9.1f} ms "
              f"({result['cpu'] * 1000 / mib:8.1f} ms/MiB)  -> {result['outcome'][:70]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--before", metavar="REV", help="also measure this commit's reader")
    options = parser.parse_args()
    report("this tree", ROOT, options.mib, lift=False)
    report("this tree, no allowance", ROOT, options.mib, lift=True)
    if options.before:
        with tempfile.TemporaryDirectory() as folder:
            report(f"{options.before[:12]}", checkout(options.before, Path(folder)),
                   options.mib, lift=False)


if __name__ == "__main__":
    main()
