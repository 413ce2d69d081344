"""The study record: the Optuna study and its stores, bounded reads, resume, the objectives' values, the summary.

The public names are re-exported by ``autotune.campaign``."""
