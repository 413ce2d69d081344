"""``autotune init --from-darshan LOG``: write a campaign from what a job did, and say where the headroom is."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from autotune.darshan import campaign_from_log
from autotune.errors import ConfigError


def cmd_init(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    if args.nodes is not None and args.nodes < 1:
        raise ConfigError(f"--nodes: {args.nodes} must be >= 1")
    if args.trials < 1:
        raise ConfigError(f"--trials: {args.trials} must be >= 1")
    if args.app_command is not None and not args.app_command:
        raise ConfigError("--app-command: give the command after it (e.g. --app-command ior -a MPIIO -w)")
    out = Path(args.output) if args.output else None
    if out is not None and out.exists() and not args.force:
        raise ConfigError(f"-o: {str(out)!r} exists; pass --force to overwrite it")
    from_log = campaign_from_log(args.log, system=args.system, nodes=args.nodes, command=args.app_command,
                                 model=args.target == "model", name=args.name, trials=args.trials)
    folder = out.parent if out is not None else Path.cwd()
    draft = from_log.target.draft
    report = sys.stderr if out is None else sys.stdout
    site = folder / draft.filename if draft is not None else None
    if site is not None and draft is not None and site.exists() and not args.force and site.read_text() != draft.text:
        # a second init in the same folder: the draft there (perhaps edited) is the site; the campaign uses it
        try:
            from_log = campaign_from_log(args.log, system=str(site), nodes=args.nodes, command=args.app_command,
                                         model=args.target == "model", name=args.name, trials=args.trials)
        except ConfigError as exc:
            raise ConfigError(f"the site profile {str(site)!r} exists, differs from the log's draft and cannot be "
                              f"used ({exc}); pass --force to rewrite it from the log") from None
        print(f"the site profile {site} exists and differs from the log's draft: the campaign uses it as it is "
              "(--force rewrites it from the log)", file=report)
        site = draft = None
    if from_log.notice:
        print(f"autotune: notice: {from_log.notice}", file=sys.stderr)
    wrote = False
    if site is not None and draft is not None:
        unchanged = site.exists() and site.read_text() == draft.text
        if not unchanged:
            site.write_text(draft.text)
            wrote = True
        print(f"draft site profile {'unchanged in' if unchanged else 'written to'} {site} (from the log; check "
              f"before trusting it: {draft.check})", file=report)
    if out is None:
        sys.stdout.write(from_log.text)
    else:
        try:
            out.write_text(from_log.text)
        except OSError:
            if site is not None and wrote:
                site.unlink(missing_ok=True)   # no draft left behind without the campaign that uses it
            raise
        print(f"campaign written to {out}")
    d, t = from_log.derived, from_log.target
    print(f"job: {from_log.log.nprocs} ranks, {', '.join(d.pattern['phases'])}, {d.pattern['file_mode']} "
          f"{d.pattern['library']} {d.pattern['io_mode']} on {t.system.name}:{t.fs.name} ({t.kind}); space {t.space}",
          file=report)
    if from_log.compared:
        print(f"measured vs model: {from_log.compared}", file=report)
    print("diagnosis (before any run):" if from_log.findings else "diagnosis: nothing in the log predicts headroom", file=report)
    for f in from_log.findings:
        print("\n".join("  " + ln for ln in f.lines()), file=report)
    return 0
