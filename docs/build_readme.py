"""README.md is assembled from the sections in docs/readme/, in the order of
docs/readme/ORDER, so each part of the project keeps its own section: python docs/build_readme.py"""
from pathlib import Path

BASE = Path(__file__).resolve().parent / "readme"
NOTE = ("<!-- Assembled from docs/readme/ in the order of docs/readme/ORDER by "
        "docs/build_readme.py; edit the sections there. -->\n")


def main() -> None:
    names = (BASE / "ORDER").read_text().split()
    parts = [(BASE / name).read_text().strip() for name in names if (BASE / name).exists()]
    (BASE.parent.parent / "README.md").write_text(NOTE + "\n\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
