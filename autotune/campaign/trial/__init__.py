"""One trial: the campaign bound to its target (``Runtime``), a trial and its repetitions, the reach of a
configuration, the persistent DataWarp reservation, the baseline configuration."""
