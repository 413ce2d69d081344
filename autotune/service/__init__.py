"""The search as a service: production jobs ask for their configuration and tell what they measured."""

from autotune.service._apphints import app_hints
from autotune.service._asktell import Assignment, ask, expire_stale, parse_ref, tell
from autotune.service._fallback import StoreUnavailable, bounded, cache_path, cache_root, private_dir, recall, remember
from autotune.service._hints import KnownConfig, best_known, gain, pattern_distance
from autotune.service._jobreport import ASK_TIME_ENV, OUTPUT_MAX, JobReport, job_output, job_report
from autotune.service._policy import Policy, acceptable
from autotune.service._run import do_ask, do_hints, do_tell
from autotune.service._spool import pending, spool, spool_dir
from autotune.service._storeserve import DEFAULT_PORT, serve_store, socket_path

__all__ = [
    "ASK_TIME_ENV",
    "DEFAULT_PORT",
    "OUTPUT_MAX",
    "Assignment",
    "JobReport",
    "KnownConfig",
    "Policy",
    "StoreUnavailable",
    "acceptable",
    "app_hints",
    "ask",
    "best_known",
    "bounded",
    "cache_path",
    "cache_root",
    "do_ask",
    "do_hints",
    "do_tell",
    "expire_stale",
    "gain",
    "job_output",
    "job_report",
    "parse_ref",
    "pattern_distance",
    "pending",
    "private_dir",
    "recall",
    "remember",
    "serve_store",
    "socket_path",
    "spool",
    "spool_dir",
    "tell",
]
