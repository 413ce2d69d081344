"""Which file system a path is on: pure parsers of ``/proc/self/mountinfo`` and ``statfs`` magic numbers.

mountinfo (Linux ``proc(5)``): ``ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE
SUPER_OPTIONS``, mount points with spaces and tabs written as octal escapes (``\\040``). A path is on the
mount whose mount point is its longest prefix (the last one mounted there wins). ``statfs(2)``'s ``f_type``
magic numbers are from ``linux/magic.h`` and the file systems' own headers (Lustre ``LL_SUPER_MAGIC``,
GPFS, BeeGFS); Cray DataWarp's DVS client mounts show as type ``dvs``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from autotune.tiers import POSIX, by_mount_type

FS_MAGIC: dict[int, str] = {
    0x0BD00BD0: "lustre",
    0x47504653: "gpfs",
    0x19830326: "beegfs",
    0x6969: "nfs",
    0xEF53: "ext4",          # ext2/3/4 share one magic
    0x58465342: "xfs",
    0x9123683E: "btrfs",
    0x01021994: "tmpfs",
    0x794C7630: "overlay",
    0x2FC12FC1: "zfs",
    0x65735546: "fuse",
    0xFE534D42: "smb2",
    0x00C36400: "ceph",
    0x5346414F: "afs",
}
_NETWORK = frozenset({"nfs", "nfs4", "gpfs", "beegfs", "ceph", "cifs", "smb2", "afs", "panfs", "pvfs2", "orangefs",
                      "glusterfs", "fuse.glusterfs", "dvs", "lustre", "wekafs", "daos"})


@dataclass(frozen=True)
class Mount:
    """One mount: where, what type, from what."""

    mount_point: str
    fstype: str
    source: str = ""


def _unescape(text: str) -> str:
    r"""mountinfo's octal escapes (``\040`` space, ``\011`` tab, ``\012`` newline, ``\134`` backslash)."""
    out, k = [], 0
    while k < len(text):
        if text[k] == "\\" and k + 3 < len(text) and text[k + 1:k + 4].isdigit():
            out.append(chr(int(text[k + 1:k + 4], 8)))
            k += 4
        else:
            out.append(text[k])
            k += 1
    return "".join(out)


def parse_mountinfo(text: str) -> list[Mount]:
    """The mounts of a ``/proc/self/mountinfo`` text, in mount order (malformed lines are skipped)."""
    mounts = []
    for line in text.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        sep = fields.index("-")
        if sep < 6 or len(fields) < sep + 2:
            continue
        mounts.append(Mount(_unescape(fields[4]), fields[sep + 1], _unescape(fields[sep + 2]) if len(fields) > sep + 2
                            else ""))
    return mounts


def mount_of(mounts: list[Mount], path: str) -> Mount | None:
    """The mount an absolute, resolved ``path`` is on: the longest mount point containing it (last mounted wins)."""
    best: Mount | None = None
    norm = posixpath.normpath(path)
    for m in mounts:
        point = posixpath.normpath(m.mount_point)
        inside = norm == point or point == "/" or norm.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(posixpath.normpath(best.mount_point))):
            best = m
    return best


def fstype_of_magic(magic: int) -> str:
    """A ``statfs`` ``f_type`` as a type name (``0x…`` when unknown)."""
    return FS_MAGIC.get(magic & 0xFFFFFFFF, f"0x{magic & 0xFFFFFFFF:x}")


def base_type(fstype: str) -> str:
    """``nfs4`` -> ``nfs``, ``fuse.sshfs`` -> ``fuse``; others unchanged."""
    if fstype.startswith("nfs"):
        return "nfs"
    return fstype.split(".", 1)[0] if fstype.startswith("fuse") else fstype


def fs_kind(fstype: str) -> str:
    """The system profile's file system kind for a type: the tier whose mount type it is (Lustre, DataWarp's
    DVS), else POSIX (the rest have no model of their own)."""
    return (by_mount_type(base_type(fstype)) or POSIX).name


def is_network(fstype: str) -> bool:
    """True for a shared (network or parallel) file system type; False for node-local ones (ext4, xfs, tmpfs)."""
    return fstype in _NETWORK or base_type(fstype) in _NETWORK
