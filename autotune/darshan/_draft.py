"""A draft site profile written from a Darshan log's own evidence, for a site no shipped profile describes.

Every value carries a YAML comment saying where it came from: ``# from the log: ...`` (the mount table,
the LUSTRE module's records, the job header) or ``# assumed: ...`` (what Darshan does not record: cores
per node, the MPI library, the OST count beyond those the job touched). The text is a normal profile:
``autotune.systems.parse_system`` loads it like any shipped one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import yaml

from autotune.darshan._log import JobLog
from autotune.darshan._pattern import Derived
from autotune.errors import ConfigError
from autotune.space import load_space
from autotune.systems import SystemProfile, parse_system
from autotune.tiers import DATAWARP, LUSTRE, POSIX, TIERS, Tier, by_mount_type
from autotune.units import format_size

FROM_LOG, ASSUMED = "from the log", "assumed"
SPACE_FOR_KIND: dict[str, str] = {t.name: t.space for t in map(TIERS.get, TIERS) if t.space}  # each tier's built-in space
CORES_ASSUMED = 64        # ranks per node assumed when neither the log nor --nodes says (a many-core HPC node)
CRAY_MOUNTS = ("dvs",)    # Cray's Data Virtualization Service: only Cray systems mount it

# What cannot be tuned from the job on each kind of POSIX file system, and why (the MPI-IO layer can).
OUT_OF_REACH = {
    "gpfs": "GPFS/Spectrum Scale spreads every file over all its disks in blocks of a size fixed when the file "
            "system is created (IBM Spectrum Scale: mmcrfs -B), so there is no striping for a job to set",
    "nfs": "NFS hides the server's storage layout from clients (no striping to set); ROMIO on NFS needs working "
           "fcntl locks and the noac mount option (ROMIO's README), which the job cannot change",
    "local": "a local file system on one node's device has nothing to stripe and is not shared between nodes",
    "overlay": "an overlay (container) file system writes into the container's writable layer, copying a file up "
               "on its first write (Linux overlayfs documentation): nothing to stripe, and not shared between nodes",
    "dvs": "Cray DVS forwards I/O to the file system its servers mount; that file system's layout is set on the "
           "server side, not by the job",
    "unknown": "the log records no mount for the job's main file, so no file-system layer is known",
}
FAMILIES = {   # mount type (Linux /proc/mounts names) -> the family whose notice applies
    **dict.fromkeys(("gpfs", "mmfs"), "gpfs"),
    **dict.fromkeys(("nfs", "nfs3", "nfs4"), "nfs"),
    **dict.fromkeys(("ext2", "ext3", "ext4", "xfs", "btrfs", "zfs", "tmpfs", "rootfs", "f2fs", "jfs"), "local"),
    **dict.fromkeys(("overlay", "aufs", "fuse-overlayfs", "fuse.fuse-overlayfs"), "overlay"),
    "dvs": "dvs",
}


def fs_tier(fs_type: str, mount: str) -> Tier:
    """The tier of a mount Darshan recorded: Lustre, DataWarp (DVS mounts of a DataWarp job), else POSIX."""
    tier = by_mount_type(fs_type)
    if tier is DATAWARP and not ("/dws/" in mount or DATAWARP.name in mount.lower() or "/dw_" in mount.lower()):
        return POSIX  # DVS also forwards other file systems; only a DataWarp job's mount is the burst buffer
    return tier or POSIX


def fs_kind(fs_type: str, mount: str) -> str:
    """The profile kind of a mount Darshan recorded (``fs_tier``'s name)."""
    return fs_tier(fs_type, mount).name


def posix_family(fs_type: str) -> str:
    """The family of a non-Lustre mount type for the notice: gpfs, nfs, local, overlay, dvs, else unknown."""
    return FAMILIES.get(fs_type.lower(), "unknown")


def out_of_reach(fs_type: str, mount: str) -> str:
    """The notice for a job on a POSIX file system: what is tuned, and which layer is out of reach and why."""
    family = posix_family(fs_type)
    why = OUT_OF_REACH[family] if family != "unknown" or not mount else (
        f"{fs_type} is a file system autotune has no striping layer for")
    return (f"{fs_type} at {mount or 'an unrecorded mount'}: tuned over the MPI-IO layer (collective buffering, "
            f"aggregators, their buffer, data sieving); striping is out of reach: {why}")


@dataclass
class Draft:
    """A draft profile: its file name (next to the campaign), text, the loaded profile, and what to check."""

    filename: str
    text: str
    profile: SystemProfile
    main_fs: str
    check: str
    notes: list[str] = field(default_factory=list)


def _scalar(value: Any) -> str:
    return str(yaml.safe_dump([value], default_flow_style=True, width=1 << 30).strip()[1:-1])


class _Writer:
    """YAML lines, each value with its mark."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def key(self, indent: int, key: str) -> None:
        self.lines.append(f"{'  ' * indent}{key}:")

    def value(self, indent: int, key: str, value: Any, mark: str, why: str) -> None:
        self.lines.append(f"{'  ' * indent}{key}: {_scalar(value)}  # {mark}: {why}")


def _fs_name(mount: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_-]", "-", mount.rstrip("/").rsplit("/", 1)[-1]).strip("-") or "root"
    name, i = base, 2
    while name in taken:
        name, i = f"{base}-{i}", i + 1
    taken.add(name)
    return name


def _lustre_evidence(log: JobLog, d: Derived, mount: str) -> tuple[set[int], Counter[tuple[int, int]], int]:
    """OST ids touched, (stripe count, stripe size) per file, and files with records, on one Lustre mount."""
    mounts = {f.name: f.mount for f in d.files}
    osts: set[int] = set()
    layouts: Counter[tuple[int, int]] = Counter()
    files = 0
    if log.lustre is None:
        return osts, layouts, files
    seen: set[int] = set()
    for fid, count, size, ids in zip(log.lustre["id"], log.lustre["LUSTRE_COMP_STRIPE_COUNT"],
                                     log.lustre["LUSTRE_COMP_STRIPE_SIZE"], log.lustre["LUSTRE_OST_IDS"], strict=True):
        name = log.names.get(int(fid), "")
        if not name or mounts.get(name, log.mount_of(name)[0]) != mount:
            continue
        osts.update(int(o) for o in ids if int(o) >= 0)
        if int(fid) not in seen and int(count) > 0 and int(size) > 0:
            seen.add(int(fid))
            layouts[(int(count), int(size))] += 1
    return osts, layouts, len(seen)


def _lustre(w: _Writer, log: JobLog, d: Derived, mount: str) -> str:
    """The Lustre entries of one mount; returns the line to check."""
    osts, layouts, files = _lustre_evidence(log, d, mount)
    widest = max((c for c, _ in layouts), default=0)
    if osts or widest:
        n = max(len(osts), widest)
        w.value(2, "osts", n, FROM_LOG, f"at least {n}: {len(osts)} distinct OST ids in the LUSTRE records of "
                f"{files} file(s), widest stripe {widest}; the file system may have more")
        check = f"OST count is at least {n}: set osts from `lfs df {mount}` on your site"
    else:
        w.value(2, "osts", 1, ASSUMED, "the log has no LUSTRE records for this mount (Darshan's Lustre module was "
                "off), so only 1 is certain; striping is searched only up to osts")
        check = f"OST count is unknown (assumed 1, so no striping is searched): set osts from `lfs df {mount}`"
    (count, size), used = layouts.most_common(1)[0] if layouts else ((0, 0), 0)
    if count:
        w.value(2, "default_stripe_count", count, FROM_LOG, f"the stripe count of {used} of the {files} file(s) "
                "in the LUSTRE records; assumed to be the directory's default")
    else:
        w.value(2, "default_stripe_count", 1, ASSUMED, "Lustre's own default (lfs setstripe -c); not in the log")
    if size and _searchable("lustre.stripe_size", size):
        w.value(2, "default_stripe_size", format_size(size), FROM_LOG, f"the stripe size of {used} of the {files} "
                "file(s) in the LUSTRE records; assumed to be the directory's default")
    else:
        seen = f"the log's {format_size(size)} is not a size the search space holds" if size else "not in the log"
        w.value(2, "default_stripe_size", "1MiB", ASSUMED, f"Lustre's own default (lfs setstripe -S); {seen}")
    return check


def _searchable(name: str, value: int) -> bool:
    """Whether the Lustre search space can hold ``value`` of ``name`` (bounds that need a target: yes)."""
    spec = next((p for p in load_space(SPACE_FOR_KIND[LUSTRE.name]).params if p.name == name), None)
    if spec is None:
        return True
    try:
        return spec.bind({}).contains(value)
    except ConfigError:
        return True


def _mounts(log: JobLog, d: Derived) -> list[tuple[str, str]]:
    """(mount, type) of the job's data files, the main file's first."""
    out: list[tuple[str, str]] = []
    for f in [d.matter[0], *(f for f in d.files if f.data)]:
        if (f.mount, f.fs_type) not in out:
            out.append((f.mount, f.fs_type))
    return out


def draft_site(log: JobLog, d: Derived, name: str, nodes: int | None = None) -> Draft:
    """The draft profile of the job's site, from ``log`` and its derived pattern ``d``."""
    main_tier = fs_tier(d.fs_type, d.mount)
    if main_tier is DATAWARP:
        raise ConfigError(
            f"darshan log {str(log.path)!r}: its main file is on a DataWarp mount ({d.mount}) and the log does not "
            "record the DataWarp pools (granularity, nodes) a profile needs; pass --system NAME or PATH of a profile "
            "that has them (dwstat pools lists them)")
    w = _Writer()
    lib = log.metadata.get("lib_ver", "")
    w.lines += [f"# Draft site profile written by `autotune init --from-darshan` from {log.path.name} "
                f"(job {log.jobid}{', Darshan ' + str(lib) if lib else ''}).",
                "# Every value says where it came from: 'from the log' (the log's mount table, LUSTRE records,",
                "# job header) or 'assumed' (Darshan does not record it). Check the assumed ones before trusting it."]
    w.value(0, "name", name.removesuffix(".yaml"), FROM_LOG, "the executable and job id")
    w.value(0, "description", f"draft of the site of job {log.jobid} from its Darshan log", FROM_LOG, log.path.name)
    cray = sorted({t for _, t in log.mounts if t in CRAY_MOUNTS})
    w.key(0, "mpi")
    if cray:
        w.value(1, "flavour", "cray-mpich", ASSUMED, f"the mount table has {', '.join(cray)} mounts, which only Cray "
                "systems have; Darshan does not record the MPI library")
    else:
        w.value(1, "flavour", "mpich", ASSUMED, "Darshan does not record the MPI library; MPICH's ROMIO is the MPI-IO "
                "layer of MPICH and its derivatives")
    w.key(0, "node")
    checks: list[str] = []
    if nodes:
        w.value(1, "cores", math.ceil(log.nprocs / nodes), FROM_LOG, f"{log.nprocs} ranks (job header) over --nodes {nodes}")
    else:
        cores = min(log.nprocs, CORES_ASSUMED)
        w.value(1, "cores", cores, ASSUMED, f"Darshan does not record nodes: {log.nprocs} ranks at up to "
                f"{CORES_ASSUMED} per node; pass --nodes N")
        checks.append(f"cores per node assumed {cores}: set node.cores or pass --nodes")
    w.key(0, "filesystems")
    taken: set[str] = set()
    main_fs = ""
    notes: list[str] = []
    for mount, fs_type in _mounts(log, d):
        tier = fs_tier(fs_type, mount)
        kind = tier.name
        if tier is DATAWARP:
            continue   # no pools in the log; the main file is elsewhere (checked above)
        fs = _fs_name(mount or fs_type or "unknown", taken)
        main_fs = main_fs or fs
        w.key(1, fs)
        how = next((f.where for f in d.files if (f.mount, f.fs_type) == (mount, fs_type) and f.where), "")
        if how and how != "the mount table":
            w.value(2, "kind", kind, FROM_LOG, how)
        else:
            w.value(2, "kind", kind, FROM_LOG, f"mount type {fs_type} in the log's mount table"
                    if mount else "the log records no mount for these files (assumed POSIX)")
        if mount:
            w.value(2, "path", mount, FROM_LOG, "the mount point in the log's mount table")
        if mount:
            w.value(2, "description", f"{fs_type} at {mount}", FROM_LOG, "the mount table")
        else:
            w.value(2, "description", "files whose mount the log does not record", FROM_LOG,
                    "no mount table entry holds them")
        if tier is LUSTRE:
            check = _lustre(w, log, d, mount)
            checks.insert(0 if fs == main_fs else len(checks), check)
    w.value(0, "default_filesystem", main_fs, FROM_LOG, "the file system of the job's main file")
    if main_tier is POSIX:
        notes.append(out_of_reach(d.fs_type, d.mount))
    if not cray:
        checks.append("MPI library assumed MPICH (ROMIO): set mpi.flavour")
    text = "\n".join(w.lines) + "\n"
    profile = parse_system(yaml.safe_load(text), source=name)
    return Draft(name, text, profile, main_fs, "; ".join(checks), notes)
