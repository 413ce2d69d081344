"""Which system, file system, search space and baseline settings a logged job ran with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autotune._paths import available
from autotune.darshan._draft import SPACE_FOR_KIND, Draft, draft_site, fs_kind, fs_tier, out_of_reach  # noqa: F401  fs_kind: re-exported
from autotune.darshan._log import JobLog
from autotune.darshan._pattern import Derived
from autotune.errors import ConfigError
from autotune.systems import FileSystem, SystemProfile, load_system
from autotune.tiers import LUSTRE, POSIX, TIERS


def _fs_by_path(system: SystemProfile, name: str, mount: str = "") -> FileSystem | None:
    """The profile's file system holding ``name``; else, for a Lustre ``mount`` (not "/"), the one whose path is
    inside that mount (the same file system: Theta's ``/lus/theta-fs0`` holds its ``projects`` directory)."""
    path = name.rstrip("/") + "/"
    hits = [fs for fs in system.filesystems.values() if fs.path and path.startswith(fs.path.rstrip("/") + "/")]
    if not hits and mount.strip("/"):
        inside = mount.rstrip("/") + "/"
        hits = [fs for fs in system.filesystems.values()
                if fs.tier is LUSTRE and fs.path and (fs.path.rstrip("/") + "/").startswith(inside)]
    return max(hits, key=lambda fs: len(fs.path or ""), default=None)


def known_paths(system: str | None = None) -> list[str]:
    """The file-system paths the shipped system profiles (and ``system``) describe: where a symbolically
    linked job path may lead (``_where.locate``)."""
    names = [*available("search_spaces/systems"), *([system] if system else [])]
    paths: list[str] = []
    for name in names:
        try:
            prof = load_system(name)
        except ConfigError:
            continue   # a bad --system is named by choose_target
        paths += [fs.path for fs in prof.filesystems.values() if fs.path]
    return paths


@dataclass
class Target:
    system: SystemProfile
    system_ref: str
    fs: FileSystem
    kind: str
    space: str
    notes: list[str] = field(default_factory=list)
    draft: Draft | None = None          # the site profile drafted from the log, when no profile knew the site


def choose_target(log: JobLog, d: Derived, system: str | None, draft_name: str = "site.yaml",
                  nodes: int | None = None) -> Target:
    """The profile and file system of the job: ``system`` when given, else the profile whose file system
    holds the job's main file, else a draft profile from the log's own evidence (file ``draft_name``)."""
    tier = fs_tier(d.fs_type, d.mount)
    kind = tier.name
    top = d.matter[0].real or d.matter[0].name
    reach = [out_of_reach(d.fs_type, d.mount)] if tier is POSIX else []
    if system is None:
        for name in available("search_spaces/systems"):
            prof = load_system(name)
            fs = _fs_by_path(prof, top, d.mount if tier is LUSTRE else "")
            if fs is not None and fs.kind == kind:
                return Target(prof, name, fs, kind, SPACE_FOR_KIND[kind], reach)
        draft = draft_site(log, d, draft_name, nodes)
        where = f"a {d.fs_type} mount ({d.mount})" if d.mount else "a mount the log does not record"
        known = ", ".join(available("search_spaces/systems"))
        drafted = [f"its main file is on {where} that no system profile knows (known: {known}): drafted the site "
                   f"as {draft_name} from the log", *draft.notes]
        return Target(draft.profile, draft_name, draft.profile.filesystem(draft.main_fs), kind, SPACE_FOR_KIND[kind],
                      drafted, draft)
    prof = load_system(system)
    fs = _fs_by_path(prof, top)
    notes: list[str] = []
    if fs is None or fs.kind != kind:
        same = [f for f in prof.filesystems.values() if f.kind == kind]
        if not same:
            raise ConfigError(
                f"--system {system}: the job's main file is on {kind} ({d.fs_type} at {d.mount or 'unknown'}) but "
                f"system {prof.name!r} has no {kind} file system (it has: "
                f"{', '.join(f'{n} ({f.kind})' for n, f in prof.filesystems.items())}); pass a profile that has one")
        fs = prof.filesystem(prof.default_filesystem) if prof.filesystem(prof.default_filesystem).kind == kind else same[0]
        notes.append(f"the job ran on {d.fs_type} at {d.mount or 'an unrecorded mount'}; tuned as {prof.name}:{fs.name}")
    return Target(prof, system, fs, kind, SPACE_FOR_KIND[kind], notes + reach)


def job_settings(log: JobLog, d: Derived, target: Target) -> tuple[dict[str, Any], list[str]]:
    """The settings the job ran with that the log records: the Lustre striping of its main file."""
    notes: list[str] = []
    settings: dict[str, Any] = {}
    if TIERS.get(target.kind) is not LUSTRE or log.lustre is None:
        return settings, notes
    names = {f.name for f in d.matter}
    lus = log.lustre.copy()
    lus["name"] = [log.names.get(i, "") for i in lus["id"]]
    rows = lus[lus["name"] == d.matter[0].name]
    if not len(rows):
        rows = lus[lus["name"].isin(names)]
    if not len(rows):
        notes.append("the LUSTRE module has no record of the main file: its striping is unknown")
        return settings, notes
    count = int(rows["LUSTRE_COMP_STRIPE_COUNT"].iloc[0])
    size = int(rows["LUSTRE_COMP_STRIPE_SIZE"].iloc[0])
    osts = target.fs.osts or count
    if count > osts:
        notes.append(f"the job's stripe count {count} exceeds {target.fs.name}'s {osts} OSTs: baseline uses {osts}")
        count = osts
    if count >= 1:
        settings["lustre.stripe_count"] = count
    if size > 0:
        settings["lustre.stripe_size"] = size
    return settings, notes
