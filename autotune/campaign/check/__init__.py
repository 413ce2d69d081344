"""Checks before a campaign: ``check`` (one trial of the default), ``tune --dry-run``, the MPI stack.

Its face: the names the layers above use (its modules are private); ``autotune.campaign``
re-exports the public ones."""

from autotune.campaign.check._check import CheckReport, format_check, parse_config_overrides, run_check, what_it_gets
from autotune.campaign.check._dryrun import DryRun, Proposal, dry_run, dry_run_confirmation_lines, proposals
from autotune.campaign.check._stack import StackReport, check_stack, ignored_hints

__all__ = [
    "CheckReport",
    "DryRun",
    "Proposal",
    "StackReport",
    "check_stack",
    "dry_run",
    "dry_run_confirmation_lines",
    "format_check",
    "ignored_hints",
    "parse_config_overrides",
    "proposals",
    "run_check",
    "what_it_gets",
]
