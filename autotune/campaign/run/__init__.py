"""The run loop: the campaign bound to its target, trials and their repetitions, re-measurement, the reservation.

The public names are re-exported by ``autotune.campaign``."""
