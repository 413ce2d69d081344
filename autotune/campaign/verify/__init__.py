"""Verification: ``check`` and ``--dry-run``, the stack and the launcher's preflight, the baseline, the confirmation.

The public names are re-exported by ``autotune.campaign``."""
