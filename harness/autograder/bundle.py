"""Writing the Gradescope autograder bundle: the two scripts Gradescope's specification asks
for at the root of the zip (`setup.sh`, `run_autograder`), a copy of this harness (so every
student is checked by exactly the code the instructor runs the tournament with), the course's
settings and roster, and the zip to upload.

Gradescope unpacks the zip into /autograder/source, runs setup.sh once when it builds the
image, then copies run_autograder to /autograder/run_autograder and runs it for every upload
with the student's files in /autograder/submission.
"""
from __future__ import annotations

import configparser
import importlib.util
import json
import re
import shutil
import zipfile
from pathlib import Path

from harness.agents.agent_environment import pinned
from harness.agents.lang import LANGUAGES
from harness.core.errors import HarnessError
from harness.core.package import __version__, harness_folder

from .grade import SETTINGS_FILE, VISIBILITIES

PACKAGES = ("harness", "lisp_bridge", "student_agents")   # what the harness imports
VENDORED = "pdharness"          # the folder of the bundle that holds the copy
ZIP_NAME = "autograder.zip"
# what the image needs besides each language's own runtime (Language.system_packages)
APT_PACKAGES = ("python3", "python3-pip", "bubblewrap")

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every upload, from /autograder (written by pdharness {version}).
# AUTOGRADER_ROOT moves the whole layout elsewhere, to try the bundle on your own machine:
#   AUTOGRADER_ROOT=$PWD/try bash try/source/run_autograder
# with the student's files in try/submission/; the result is try/results/results.json.
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
export AUTOGRADER_ROOT="$ROOT"
export PYTHONPATH="$ROOT/source/{vendored}"
# the cache setup.sh warmed, beside the harness rather than under root's 0700 home: agents
# that run as plain processes (no bubblewrap here) then need no right to read root's files
export PDHARNESS_CACHE="${{PDHARNESS_CACHE:-$ROOT/pdharness-cache}}"
mkdir -p "$ROOT/results"
"${{PDHARNESS_PYTHON:-python3}}" -m harness.autograder && exit 0
STATUS=$?
# The grader's process ended early (killed, out of memory): whatever results.json holds
# now is not its verdict. Write the failure over it, whole, then move it into place.
echo "the autograder's process ended with status $STATUS: the upload gets a failure"
SCRATCH="$(mktemp "$ROOT/results/.stopped.XXXXXX")"
printf '{{"score": 0, "output": "The autograder stopped before it finished checking this upload (its process ended early). Please tell the instructor.", "stdout_visibility": "hidden", "visibility": "{visibility}", "execution_time": %d, "tests": []}}\n' "$SECONDS" > "$SCRATCH"
chmod 644 "$SCRATCH"
mv -f "$SCRATCH" "$ROOT/results/results.json"
"""

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu).
# Written by pdharness {version}: the same dependencies, at the versions it ran with.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends {apt}
PIP_OPTIONS=""
if python3 -m pip install --help | grep -q -- --break-system-packages; then
    PIP_OPTIONS="--break-system-packages"   # Ubuntu 23.04 and later
fi
python3 -m pip install --no-cache-dir $PIP_OPTIONS {requirements}
{agent_packages}# Compile what each language compiles once (its host, its libraries) now, not in every
# student's run: validate one template agent per language (this also proves the harness
# works here).
SOURCE="${{AUTOGRADER_ROOT:-/autograder}}/source"
export PDHARNESS_CACHE="${{PDHARNESS_CACHE:-${{AUTOGRADER_ROOT:-/autograder}}/pdharness-cache}}"
WARM="$(mktemp -d)"
for LANGUAGE in {new_choices}; do
    PYTHONPATH="$SOURCE/{vendored}" python3 -m harness new Gradescope Warmup \\
        --lang "$LANGUAGE" --dir "$WARM/$LANGUAGE" > /dev/null
    PYTHONPATH="$SOURCE/{vendored}" python3 -m harness validate --timeout 10 "$WARM/$LANGUAGE"
done
rm -rf "$WARM"
"""


def write_bundle(folder: Path, settings: dict, roster: Path | None = None) -> Path:
    """Write the bundle into `folder` (made if missing; files of ours replaced) and return
    the zip to upload."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        files = _copy_packages(folder)
        # the instructor's visibility holds for a grader that died too (checked: one word)
        visibility = settings.get("visibility", "visible")
        if visibility not in VISIBILITIES:
            raise HarnessError(f"visibility {visibility!r} is none of {', '.join(VISIBILITIES)}")
        files.append(_write(folder / "run_autograder", RUN_AUTOGRADER.format(
            version=__version__, vendored=VENDORED, visibility=visibility), executable=True))
        files.append(_write(folder / "setup.sh", SETUP_SH.format(
            version=__version__, vendored=VENDORED, apt=" ".join(apt_packages()),
            new_choices=" ".join(language.new_choice for language in LANGUAGES.values()),
            requirements=" ".join(f"'{r}'" for r in pinned_requirements()),
            agent_packages=agent_packages_step(settings.get("agent_package", ()))),
            executable=True))
        settings = dict(settings, harness_version=__version__)
        if roster is not None:
            copied = folder / f"roster{Path(roster).suffix or '.csv'}"
            shutil.copyfile(roster, copied)
            files.append(copied)
            settings["roster"] = copied.name
        files.append(_write(folder / SETTINGS_FILE, json.dumps(settings, indent=2) + "\n"))
        return _zip(folder, files)
    except OSError as error:
        raise HarnessError(f"cannot write the autograder bundle in {folder}: "
                           f"{error.strerror or error}") from error


def agent_packages_step(declared) -> str:
    """setup.sh's line installing the libraries agents may import (--agent-package), each
    at the version installed here, so that what validates here grades the same there; the
    grader's run holds agents to the same declaration (its settings file)."""
    if not declared:
        return ""

    listed = " ".join(f"'{requirement}'" for requirement in pinned(tuple(declared)))
    return ("# the libraries agents may import (--agent-package), as installed where the "
            "bundle was written\n"
            f"python3 -m pip install --no-cache-dir $PIP_OPTIONS {listed}\n")


def apt_packages() -> list[str]:
    """The Debian packages setup.sh installs: the harness's, then every language's."""
    return list(dict.fromkeys([*APT_PACKAGES, *(package for language in LANGUAGES.values()
                                                for package in language.system_packages)]))


def _write(path: Path, text: str, executable: bool = False) -> Path:
    path.write_text(text, encoding="utf-8", newline="\n")
    if executable:
        path.chmod(0o755)
    return path


def _copy_packages(folder: Path) -> list[Path]:
    target = folder / VENDORED
    if target.exists():
        shutil.rmtree(target)
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.origin:
            continue
        shutil.copytree(Path(spec.origin).parent, target / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.fasl"))
    return sorted(path for path in target.rglob("*") if path.is_file())


def _zip(folder: Path, files: list[Path]) -> Path:
    """The files at the root of the archive, as Gradescope needs them (not the folder)."""
    archive = folder / ZIP_NAME
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in files:
            info = zipfile.ZipInfo(str(path.relative_to(folder)), date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (path.stat().st_mode & 0o777) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zipped.writestr(info, path.read_bytes())
    return archive


# -- the dependencies setup.sh installs ---------------------------------------------------------
def pinned_requirements() -> list[str]:
    """The harness's declared dependencies, each pinned to the version running here (Hy's
    behaviour changes between versions), keeping any environment marker."""
    from importlib import metadata  # heavy (email): loaded only where used

    pinned = []
    for requirement in declared_requirements():
        name, _, marker = requirement.partition(";")
        named = re.match(r"[A-Za-z0-9_.-]+", name.strip())
        assert named is not None, requirement  # setup.cfg's requirements start with a name
        bare = named.group(0)
        try:
            version = metadata.version(bare)
        except metadata.PackageNotFoundError:   # not needed here (a marker excludes it)
            pinned.append(requirement.strip())
            continue
        pinned.append(f"{bare}=={version}" + (f"; {marker.strip()}" if marker else ""))
    return pinned


def declared_requirements() -> list[str]:
    """install_requires of the source tree's setup.cfg, else of the installed distribution."""
    from importlib import metadata  # heavy (email): loaded only where used

    setup_cfg = harness_folder().parent / "setup.cfg"
    if setup_cfg.is_file():
        parser = configparser.ConfigParser()
        parser.read(setup_cfg, encoding="utf-8")
        text = parser.get("options", "install_requires", fallback="")
        return [line.strip() for line in text.splitlines() if line.strip()]
    return [r for r in metadata.requires("pdharness") or [] if "extra ==" not in r]
