"""File-system tiers as plug-ins: one ``Tier`` per kind of storage target, registered in ``TIERS``.

Code that depends on the kind of target asks the tier (``fs.tier.one_sided``, ``tier is DATAWARP``) instead of
comparing kind names; the names live only in the tier classes (and in the YAML profiles that pick them).
"""

from __future__ import annotations

from autotune._registry import NOT_ONE_OF, Registry
from autotune.tiers._base import RuleOfThumb, Tier
from autotune.tiers._kinds import (
    DATAWARP,
    LUSTRE,
    NVME,
    PCC,
    POSIX,
    RABBIT,
    DataWarp,
    Lustre,
    NodeNvme,
    PersistentClientCache,
    Posix,
    Rabbit,
)

TIERS: Registry[Tier] = Registry("tier", "kind", NOT_ONE_OF, base=Tier)
for _tier in (LUSTRE, DATAWARP, POSIX, RABBIT, NVME, PCC):  # the order profiles' error messages list them in
    TIERS.register(_tier.name, _tier)


def tier(kind: str, where: str = "kind") -> Tier:
    """The tier called ``kind``; a one-line RegistryError naming the known ones otherwise."""
    return TIERS.get(kind, where)


def by_mount_type(fstype: str) -> Tier | None:
    """The tier a kernel file-system type is (``lustre``, ``dvs``), or None for any other mount."""
    return next((TIERS.get(n) for n in TIERS if fstype in TIERS.get(n).mount_types), None)


__all__ = ["DATAWARP", "LUSTRE", "NVME", "PCC", "POSIX", "RABBIT", "TIERS", "DataWarp", "Lustre", "NodeNvme",
           "PersistentClientCache", "Posix", "Rabbit", "RuleOfThumb", "Tier", "by_mount_type", "tier"]
