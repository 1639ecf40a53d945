"""`pdharness resume FILE.sqlite`: finish a recorded run that was interrupted."""
from __future__ import annotations

import click

from harness.core.safe_text import line

from .experiment import resume
from .options import cluster_option, isolation, isolation_options, option
from .output_options import (
    given_here,
    output_options,
    outputs_of,
    quiet_option,
    result_format_option,
)
from .tournament import warn_renamed

# imports inside functions here are deferred (`pdharness` starts light)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("record", type=click.Path(dir_okay=False))
@option("jobs", default=None, show_default=False,
        help="Games played at once (default: as recorded; the result is the same).")
@isolation_options
@cluster_option
@click.option("--allow-weaker-isolation", is_flag=True,
              help="Resume even with an --isolation weaker than the run was recorded with.")
@result_format_option
@output_options
@quiet_option
def command(record, jobs, allow_weaker_isolation, cluster, **options):
    """Finish the run recorded in RECORD (made by `tournament --db`) from its last completed
    round, with the agents, parameters and seed it was started with, and print the result.
    It equals what the uninterrupted run would have given. Agent files must be where they
    were, unchanged.

    How agents are confined is never read from the record (a file anyone could edit):
    --isolation, --timeout, --load-timeout and --memory-limit are as given here, with the
    defaults of `tournament`, and so is --max-bundle-mib. A weaker isolation than recorded
    needs --allow-weaker-isolation; limits other than the recorded ones are refused (they
    change results). What agents may import (--agent-package) is the record's."""
    from harness.run.experiment.record import is_experiment_record

    if is_experiment_record(record):
        return resume(record, jobs, options.get("format"), options.get("report"),
                      options["quiet"], options["isolation"], allow_weaker_isolation,
                      cluster, {"timeout": options["timeout"],
                                "memory_limit": options["memory_limit"]})
    from harness.present import outputs
    from harness.run import tournament_session as session
    from harness.store.reader import Record

    with Record(record) as opened:
        asked = outputs.recorded_outputs(opened, outputs_of(options), given_here)
    roster = outputs.check_outputs(asked)
    try:
        result, note = session.resume(record, isolation(options), jobs=jobs,
                                      quiet=options["quiet"],
                                      allow_weaker=allow_weaker_isolation,
                                      cluster=cluster)
    except session.RecordInterrupted as stopped:
        outputs.exit_interrupted(stopped)

    warn_renamed([entrant.spec for entrant in result.entrants])
    if note:
        click.echo(f"pdharness: {line(note)}", err=True)
    with Record(record) as opened:
        command_line = opened.run["command"]
    outputs.deliver(result, asked, roster, command=command_line)
