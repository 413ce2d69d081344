"""``init --from-darshan`` without ``--system`` on every Darshan log PyDarshan ships: which give a campaign that
``autotune space`` accepts and a model dry run completes, which give a one-line error, and how many tracebacks.

Then the same logs damaged: every truncation point in steps and single-byte corruptions at fixed positions
(deterministic), counting campaigns, one-line errors and anything else (an internal error). Target: >= 80%
of the undamaged logs give a campaign; 0 internal errors anywhere.
Run: .venv/bin/python -m experiments.evaluation.darshan_corpus [--damaged N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
from pathlib import Path

import yaml

from autotune.cli import main as cli
from autotune.darshan import campaign_from_log
from autotune.errors import ConfigError


def shipped_logs() -> list[Path]:
    import darshan

    package = Path(os.path.dirname(darshan.__file__))
    return sorted({p for d in (package / "examples", package / "tests" / "input") for p in d.rglob("*.darshan")})


def _quiet(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        rc = cli(argv)
    return rc, err.getvalue().strip()


def _dry_run(campaign: Path, tmp: Path) -> tuple[bool, str]:
    """Whether ``tune --dry-run`` completes, and a note. A draft for another site whose hints this machine's MPI
    ignores is refused here (``tune`` would refuse alike: check_stack); the site's own machine detects its own MPI.
    Such a draft is dry-run again on the model launcher (the same campaign, no local MPI involved), and the note
    says so."""
    rc, err = _quiet(["tune", str(campaign), "--dry-run", "--trials", "2", "--workdir", str(tmp / "w")])
    if rc == 0 or not (rc == 2 and "ignores (detected here:" in err):
        return rc == 0, ""
    data = yaml.safe_load(campaign.read_text())
    data["launcher"] = {"name": "model"}
    on_model = campaign.with_name("on-model.yaml")
    on_model.write_text(yaml.safe_dump(data, sort_keys=False))
    rc = _quiet(["tune", str(on_model), "--dry-run", "--trials", "2", "--workdir", str(tmp / "w-model")])[0]
    return rc == 0, " on the model launcher (here: refused, this machine's MPI ignores the site's hints, as tune would)"


def undamaged(logs: list[Path]) -> int:
    """One row per log; returns the number of campaigns. A log whose command line names no output path (init
    stops rather than draft a command that writes over the job's output) is tried again with --target model."""
    campaigns = 0
    print(f"{'log':44} {'outcome':9} {'target / reason'}")
    for log in logs:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "c.yaml"
            extra: list[str] = []
            rc, err = _quiet(["init", "--from-darshan", str(log), "-o", str(out)])
            if rc == 2 and "names it, so every trial would write over it" in err:
                extra = ["--target", "model"]
                rc, err = _quiet(["init", "--from-darshan", str(log), "-o", str(out), *extra])
            if rc == 0:
                ok_space = _quiet(["space", str(out)])[0] == 0
                ok_dry, elsewhere = _dry_run(out, Path(tmp))
                from_log = campaign_from_log(log, model=bool(extra))
                where = f"{'draft ' if from_log.target.draft else ''}{from_log.target.system.name}:{from_log.target.fs.name} " \
                        f"({from_log.target.kind}, {from_log.derived.fs_type}); space {'ok' if ok_space else 'FAILED'}, " \
                        f"dry run {'ok' if ok_dry else 'FAILED'}{elsewhere}" + ("; on the model: no argument names its output"
                                                                     if extra else "")
                campaigns += ok_space and ok_dry
                print(f"{log.parent.name + '/' + log.name[:30]:44} {'campaign':9} {where}")
            else:
                reason = err.split(": ", 3)[-1][:90] if rc == 2 and len(err.splitlines()) == 1 else f"INTERNAL rc={rc}"
                print(f"{log.parent.name + '/' + log.name[:30]:44} {'refused':9} {reason}")
    print(f"campaigns without --system: {campaigns} of {len(logs)} ({campaigns / len(logs):.0%}); target >= 80%")
    return campaigns


def damaged(logs: list[Path], steps: int) -> None:
    """Truncations at ``steps`` points and ``steps`` one-byte corruptions per log."""
    counts = {"campaign": 0, "one-line error": 0, "internal error": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for log in logs:
            data = log.read_bytes()
            variants = [data[:len(data) * k // steps] for k in range(steps)]
            for k in range(steps):
                pos = len(data) * k // steps
                variants.append(data[:pos] + bytes([data[pos] ^ 0xFF]) + data[pos + 1:])
            for v in variants:
                path = Path(tmp) / "damaged.darshan"
                path.write_bytes(v)
                try:
                    campaign_from_log(path)
                    counts["campaign"] += 1
                except ConfigError as exc:
                    counts["one-line error" if "\n" not in str(exc) else "internal error"] += 1
                except Exception:  # noqa: BLE001 - counted: this is what the target says must not happen
                    counts["internal error"] += 1
    total = sum(counts.values())
    print(f"damaged logs: {total} ({steps} truncations + {steps} one-byte corruptions per log): "
          + ", ".join(f"{k} {v}" for k, v in counts.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--damaged", type=int, default=10, help="truncation points and corruptions per log (0: none)")
    args = ap.parse_args()
    logs = shipped_logs()
    undamaged(logs)
    if args.damaged:
        damaged(logs, args.damaged)


if __name__ == "__main__":
    main()
