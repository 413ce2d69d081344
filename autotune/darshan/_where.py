"""Which of a job's files are its data, and which file system each is on, from the log's own evidence.

Darshan records every file a process opened, including the interpreter's and libraries' (Python bytecode
read at import, shared objects, /proc and /etc entries); those are not the application's data. A file's
file system is taken from the strongest evidence first: a LUSTRE module record (Darshan's Lustre module
records only files on Lustre, with their striping), a DataWarp path (Cray DataWarp mounts job instances
under ``.../dws/mounts/``), then the mount table. Sites link short paths to their file systems
(``/projects`` -> ``/lus/theta-fs0/projects`` on ALCF Theta), so a path outside every mounted prefix is
resolved against the Lustre mounts and the paths the system profiles know.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from autotune.darshan._log import JobLog
from autotune.tiers import LUSTRE, by_mount_type

# Not the application's data: the interpreter's and libraries' files, and the kernel's pseudo-files.
SYSTEM_DIRS = ("/proc/", "/sys/", "/etc/", "/usr/", "/dev/", "/lib/", "/lib64/", "/bin/", "/sbin/")
SYSTEM_PARTS = ("/site-packages/", "/dist-packages/", "/__pycache__/", "/lib/python")
CODE_FILE = re.compile(r"(\.pyc|\.pyo|\.py|\.jar|\.class|\.so(\.\d+)*)$")
OMPI_SESSION = re.compile(r"/ompi\.[^/]+/")   # Open MPI's session directory (shared-memory backing files)
DATAWARP_PATH = re.compile(r"^(.*/dws/mounts/[^/]+/[^/]+)(/|$)")   # DataWarp: /var/opt/cray/dws/mounts/batch/<job>_...


def is_data(name: str) -> bool:
    """Whether ``name`` can be the application's data (not code, a library, or a system file)."""
    return not (name.startswith(SYSTEM_DIRS) or any(p in name for p in SYSTEM_PARTS)
                or CODE_FILE.search(name) or OMPI_SESSION.search(name))


def _inside(path: str, prefix: str) -> bool:
    return (path.rstrip("/") + "/").startswith(prefix.rstrip("/") + "/")


def locate(log: JobLog, name: str, on_lustre: bool, known: Sequence[str] = ()) -> tuple[str, str, str, str]:
    """(mount, file-system type, the file's path on that mount, how it was found) of one file.

    ``on_lustre``: the LUSTRE module has a record of it or of a file in its folder; ``known``: file-system
    paths of system profiles, against which a path no Lustre mount holds is resolved (``/lus/theta-fs0`` +
    ``/projects/x``)."""
    mount, fs_type = log.mount_of(name)
    dw = DATAWARP_PATH.match(name)
    if dw and "/dws/" not in mount:
        return dw.group(1), "dvs", name, "a DataWarp path (.../dws/mounts/...)"
    if by_mount_type(fs_type) is LUSTRE:
        return mount, fs_type, name, "the mount table"
    lustre = sorted((m for m, t in log.mounts if by_mount_type(t) is LUSTRE), key=len, reverse=True)
    for m in lustre:
        real = m.rstrip("/") + name
        if any(_inside(real, p) for p in known if _inside(p, m)):
            return m, LUSTRE.name, real, f"{name} resolved to {real} (the Lustre mount {m} holds that known path)"
    if not on_lustre:
        return mount, fs_type, name, "the mount table"
    if not lustre:
        return "", LUSTRE.name, name, "a LUSTRE module record of it or its folder (the mount table has no Lustre mount)"
    held = f"the log's only Lustre mount {lustre[0]}" if len(lustre) == 1 else \
        f"the Lustre mount {lustre[-1]} (assumed: the table has {len(lustre)})"
    return lustre[-1], LUSTRE.name, name, (f"a LUSTRE module record of it or its folder; no mount in the table holds "
                                        f"{name} (a symbolic link?), so it is on {held}")
