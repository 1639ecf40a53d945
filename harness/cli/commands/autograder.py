"""`pdharness autograder DIR`: write a Gradescope autograder bundle."""
from __future__ import annotations

from pathlib import Path

import click

from harness.core.safe_text import echo  # paths and type names are the user's

from .options import FiniteFloat, agent_run_options


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("folder", type=click.Path(file_okay=False), metavar="DIR")
@click.option("--roster", type=click.Path(dir_okay=False, exists=True),
              help="The course roster (as for validate): every upload's name must then "
                   "spell a team on it. A copy goes into the bundle.")
@click.option("--points", type=FiniteFloat(0.0, 1e6), default=10.0, show_default=True,
              help="Points for a submission that passes every check.")
@agent_run_options(but=("isolation",))   # the sandbox, falling back where it cannot run
@click.option("--visibility", type=click.Choice(["visible", "hidden", "after_due_date",
                                                 "after_published"]),
              default="visible", show_default=True,
              help="When students see their results (Gradescope's values): at once, never, "
                   "after the due date, or once the grades are published.")
@click.option("--leaderboard/--no-leaderboard", default=True, show_default=True,
              help="Put each upload's practice score against the built-ins on Gradescope's "
                   "leaderboard (when the assignment has one).")
def command(folder, roster, points, visibility, leaderboard, **limits):
    """Write into DIR a Gradescope autograder (setup.sh, run_autograder, a copy of this
    harness, the settings) and DIR/autograder.zip, the file to upload under the
    assignment's Configure Autograder. Every student upload is then validated as
    `pdharness validate` does (name, file, the contract played in the sandbox), a few
    practice games are played against built-ins, and Gradescope shows the score per check
    with the same hints."""
    from harness.autograder.bundle import write_bundle  # `pdharness` starts light

    settings = {"points": points, **limits, "visibility": visibility,
                "leaderboard": leaderboard}
    archive = write_bundle(Path(folder), settings, Path(roster) if roster else None)

    echo(f"wrote the autograder in {folder}\n"
               f"  upload:   {archive} (Gradescope: the assignment's Configure Autograder,"
               f" Zip file upload)\n"
               f"  try it:   mkdir -p try/submission && cp YourAgent.py try/submission/ && "
               f"unzip -o -q {archive} -d try/source && "
               f"AUTOGRADER_ROOT=$PWD/try bash try/source/run_autograder && "
               f"cat try/results/results.json")
