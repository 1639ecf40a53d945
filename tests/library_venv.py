"""A small virtual environment for tests of what agents may import: the harness's own
dependencies copied from this one (hy, hyrule, click, Jinja2...), the harness itself by a
.pth file, and tiny real distributions the test writes (a module, its .dist-info with
METADATA, RECORD and top_level.txt), so `importlib.metadata` finds them as pip installs
them. Made in /var/tmp, readable by every user: a root monitor's agents run as users of
their own, who could not read a 0700 pytest folder (and would then keep root's right to
read, with no world of their own: harness/isolation/root_read.py, keeps_read)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from conftest import ROOT

# what `python -m harness` needs from site-packages, and what the tests import
NEEDED = ("hy", "hyrule", "funcparserlib", "click", "Jinja2", "MarkupSafe", "packaging")


def make_venv() -> Path:
    """The venv's folder (bin/python inside); removed by `remove`."""
    where = Path(tempfile.mkdtemp(prefix="pdharness-libvenv-", dir="/var/tmp"))
    os.chmod(where, 0o755)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(where)], check=True,
                   capture_output=True, timeout=300)
    site = site_packages(where)
    for name in NEEDED:
        distribution = metadata.distribution(name)
        source = Path(str(distribution.locate_file("")))
        for entry in {file.parts[0] for file in distribution.files or () if file.parts} | {
                Path(str(distribution._path)).name}:   # type: ignore[attr-defined]
            path = source / entry
            if entry in ("..", "__pycache__") or entry.endswith(".pth") or not path.exists():
                continue
            if path.is_dir():
                shutil.copytree(path, site / entry, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(path, site / entry)
    (site / "pdharness-source.pth").write_text(f"{ROOT}\n")
    for folder, _, files in os.walk(where):
        os.chmod(folder, 0o755)
        for file in files:
            path = os.path.join(folder, file)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o444)
    return where


def site_packages(venv: Path) -> Path:
    found = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           capture_output=True, text=True, check=True, timeout=60)
    return Path(found.stdout.strip())


def add_distribution(venv: Path, name: str, module: str, code: str,
                     requires: tuple[str, ...] = ()) -> None:
    """A one-module distribution NAME (version 1.0) providing MODULE, as pip lays it out."""
    site = site_packages(venv)
    (site / f"{module}.py").write_text(code)
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(exist_ok=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", "Version: 1.0",
             *(f"Requires-Dist: {requirement}" for requirement in requires)]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    (info / "top_level.txt").write_text(module + "\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text(f"{module}.py,,\n{info.name}/METADATA,,\n"
                                 f"{info.name}/RECORD,,\n")
    for path in (site / f"{module}.py", *info.iterdir()):
        os.chmod(path, 0o644)
    os.chmod(info, 0o755)


def pdharness(venv: Path, *arguments, cwd, timeout: float = 600) -> subprocess.CompletedProcess:
    """`python -m harness ARGUMENT...` with the venv's Python, its harness cache beside it
    (readable by the agents' users, unlike the session's under a 0700 pytest folder)."""
    cache = venv / "cache"
    cache.mkdir(mode=0o755, exist_ok=True)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PDHARNESS_CACHE"] = str(cache)
    return subprocess.run([str(venv / "bin" / "python"), "-m", "harness", *map(str, arguments)],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)


def remove(venv: Path) -> None:
    shutil.rmtree(venv, ignore_errors=True)

