"""The file system of a path from mountinfo (recorded here under gVisor, one tool mount left out; Lustre, DVS
and NFS lines written in ``proc(5)``'s format) and from statfs magic numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.systems import fs_kind, fstype_of_magic, is_network, mount_of, parse_mountinfo

DATA = Path(__file__).parent / "data"
CLUSTER = "\n".join([
    "22 1 8:2 / / rw,relatime shared:1 - xfs /dev/sda2 rw,attr2,inode64",
    "95 22 0:48 / /lustre/scratch rw,relatime shared:50 - lustre 10.1.0.1@o2ib:10.1.0.2@o2ib:/scratch rw,flock",
    "96 22 0:49 / /home rw,relatime shared:51 - nfs4 nas:/export/home rw,vers=4.2",
    "97 22 0:50 / /var/opt/cray/dws/mounts/batch/123_striped_scratch rw - dvs /dw/stripe rw,blksize=8388608",
    "98 22 0:51 / /gpfs/alpine rw,relatime - gpfs alpine rw",
    r"99 22 0:52 / /mnt/with\040space rw - ext4 /dev/sdb1 rw",
    "100 95 0:53 / /lustre/scratch/tmp rw - tmpfs tmpfs rw",
    "garbage line without separator",
])


@pytest.mark.parametrize(("path", "fstype", "kind", "network"), [
    ("/lustre/scratch/user/run1", "lustre", "lustre", True),
    ("/lustre/scratch", "lustre", "lustre", True),
    ("/lustre/scratchy", "xfs", "posix", False),
    ("/lustre/scratch/tmp/x", "tmpfs", "posix", False),
    ("/home/u/a.h5", "nfs4", "posix", True),
    ("/var/opt/cray/dws/mounts/batch/123_striped_scratch/f", "dvs", "datawarp", True),
    ("/gpfs/alpine/proj", "gpfs", "posix", True),
    ("/mnt/with space/f", "ext4", "posix", False),
    ("/", "xfs", "posix", False),
])
def test_cluster_mounts(path: str, fstype: str, kind: str, network: bool) -> None:
    m = mount_of(parse_mountinfo(CLUSTER), path)
    assert m is not None
    assert (m.fstype, fs_kind(m.fstype), is_network(m.fstype)) == (fstype, kind, network)


def test_recorded_here() -> None:
    mounts = parse_mountinfo((DATA / "mountinfo_gvisor.txt").read_text())
    assert mount_of(mounts, "/work/wt/stack").fstype == "ext4"  # type: ignore[union-attr]
    assert mount_of(mounts, "/dev/shm/x").fstype == "tmpfs"  # type: ignore[union-attr]


def test_last_mount_on_a_point_wins() -> None:
    text = "1 0 0:1 / /data rw - ext4 /dev/a rw\n2 1 0:2 / /data rw - tmpfs tmpfs rw\n"
    assert mount_of(parse_mountinfo(text), "/data/x").fstype == "tmpfs"  # type: ignore[union-attr]
    assert mount_of(parse_mountinfo(""), "/x") is None


@pytest.mark.parametrize(("magic", "name"), [
    (0x0BD00BD0, "lustre"), (0x47504653, "gpfs"), (0x6969, "nfs"), (0xEF53, "ext4"), (0x58465342, "xfs"),
    (0x01021994, "tmpfs"), (0x794C7630, "overlay"), (0x12345678, "0x12345678"), (-0x6EDC97C2, "btrfs"),
])
def test_statfs_magic(magic: int, name: str) -> None:
    assert fstype_of_magic(magic) == name


def test_lfs_df_counts_osts() -> None:
    from autotune.systems import parse_lfs_df

    text = "\n".join([
        "UUID                   1K-blocks        Used   Available Use% Mounted on",
        "scratch-MDT0000_UUID    11000000     2000000     9000000  18% /lustre/scratch[MDT:0]",
        "scratch-OST0000_UUID   100000000    50000000    50000000  50% /lustre/scratch[OST:0]",
        "scratch-OST0001_UUID   100000000    50000000    50000000  50% /lustre/scratch[OST:1]",
        "scratch-OST0002_UUID   100000000    50000000    50000000  50% /lustre/scratch[OST:2]",
        "",
        "filesystem_summary:    300000000   150000000   150000000  50% /lustre/scratch",
    ])
    assert parse_lfs_df(text) == 3
    assert parse_lfs_df("") is None
