"""``autotune model fit CAMPAIGN...``: the profile's model constants fitted to a site's real runs
(``autotune.campaign.fit_campaigns``), printed, and the calibrated profile written with ``-o``;
``autotune model advise CAMPAIGN... --nodes N``: the fitted model's settings for another node count."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def run_fit(args: argparse.Namespace) -> int:
    from autotune.campaign import fit_campaigns  # lazy: Optuna stack, fast --help

    site = fit_campaigns(args.campaigns, args.storage, args.constants.split(",") if args.constants else None)
    sys.stdout.write(site.text + "\n")
    if args.output:
        site.write_profile(args.output)
        sys.stdout.write(f"calibrated profile written to {args.output} (use: system: {args.output})\n")
    return 0


def run_advise(args: argparse.Namespace) -> int:
    from autotune.campaign import advise  # lazy: Optuna stack, fast --help

    sys.stdout.write(advise(args.campaigns, args.nodes, args.storage,
                            args.constants.split(",") if args.constants else None).text + "\n")
    return 0


def register(msub: Any) -> None:
    f = msub.add_parser("fit", help="fit the profile's model constants to the campaigns' measured trials")
    f.add_argument("campaigns", nargs="+", help="campaign YAML file(s) whose studies hold real measurements")
    f.add_argument("-o", "--output", help="write the calibrated profile here (YAML)")
    f.add_argument("--constants", help="comma-separated constants to fit (default: by the target's kind)")
    f.add_argument("--storage", help="Optuna storage URL (default: each campaign's)")
    f.set_defaults(run=lambda a, argv=(): run_fit(a))
    a = msub.add_parser("advise", help="fit the campaigns' trials at their scale, advise settings at --nodes N")
    a.add_argument("campaigns", nargs="+", help="campaign YAML file(s) whose studies hold real measurements")
    a.add_argument("--nodes", type=int, required=True, help="node count to advise for (same ranks per node)")
    a.add_argument("--constants", help="comma-separated constants to fit (default: by the target's kind)")
    a.add_argument("--storage", help="Optuna storage URL (default: each campaign's)")
    a.set_defaults(run=lambda a, argv=(): run_advise(a))
