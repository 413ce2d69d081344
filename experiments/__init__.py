"""Things run with autotune, not parts of it: ``experiments/campaigns/`` (campaign files to copy) and
``experiments.evaluation`` (the harness that measures the tuner, run from the checkout as
``python -m experiments.evaluation.NAME``)."""
