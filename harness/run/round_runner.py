"""What plays a tournament's rounds: the cluster's runner when the settings name a scheduler
(`--cluster`), else the engine's own. Passed into `run_tournament` by every caller that may
run on a cluster, so that the engine never imports the cluster."""
from __future__ import annotations

from harness.engine.runners import make_runner
from harness.run.cluster.chunked_rounds import ClusterRunner


def round_runner(pool, settings):
    if settings.cluster:
        return ClusterRunner(pool, settings)

    return make_runner(pool, settings.game, settings.jobs)
