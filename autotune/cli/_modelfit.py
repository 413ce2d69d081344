"""``autotune model fit CAMPAIGN...``: the profile's model constants fitted to a site's real runs
(``autotune.campaign.fit_campaigns``), printed, and the calibrated profile written with ``-o``;
``autotune model advise CAMPAIGN... --nodes N``: the fitted model's settings for another node count."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from autotune.campaign import advise, fit_campaigns


def cmd_fit(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    site = fit_campaigns(args.campaigns, args.storage, args.constants.split(",") if args.constants else None)
    sys.stdout.write(site.text + "\n")
    if args.output:
        site.write_profile(args.output)
        sys.stdout.write(f"calibrated profile written to {args.output} (use: system: {args.output})\n")
    return 0


def cmd_advise(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    sys.stdout.write(advise(args.campaigns, args.nodes, args.storage,
                            args.constants.split(",") if args.constants else None).text + "\n")
    return 0
