"""One trial: the campaign bound to its target (``Runtime``), a trial and its repetitions, the reach of a
configuration, the persistent DataWarp reservation, the baseline configuration, a run's output tail.

Its face: the names the layers above use (its modules are private); ``autotune.campaign``
re-exports the public ones."""

from autotune.campaign.trial._baseline import baseline_config
from autotune.campaign.trial._output import default_failure, output_tail
from autotune.campaign.trial._reach import unreachable
from autotune.campaign.trial._reservation import release, reservation_job, reserve
from autotune.campaign.trial._runtime import Runtime
from autotune.campaign.trial._trial import TrialOutcome, run_trial, what_took_effect

__all__ = [
    "Runtime",
    "TrialOutcome",
    "baseline_config",
    "default_failure",
    "output_tail",
    "release",
    "reservation_job",
    "reserve",
    "run_trial",
    "unreachable",
    "what_took_effect",
]
