"""Checks before a campaign: ``check`` (one trial of the default), ``tune --dry-run``, the MPI stack."""
