"""The contract of a file-system tier: what code decides by the kind of storage a campaign targets."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import ClassVar, Protocol


@dataclass(frozen=True)
class RuleOfThumb:
    """A configuration a user would try first, with its public source: ``settings`` maps parameters to values
    or expressions over the target's names (``app.nodes``, ``fs.osts``), as a search space's defaults do; the
    rule applies where ``when`` (an expression, empty: always) holds. Every setting it does not name stays at
    its default as the MPI-IO layer derives it (Cray MPI-IO's aggregators follow the stripe count)."""

    name: str
    settings: Mapping[str, str | int | float]
    source: str
    when: str = ""


class Grains(Protocol):
    """A burst-buffer pool as the default needs it: allocations come in grains of ``granularity`` bytes."""

    @property
    def granularity(self) -> int: ...


class Pools(Protocol):
    """A file system as the default needs it: its pools by name (``None``: the default pool)."""

    def pool(self, name: str | None = None) -> Grains: ...


class Writes(Protocol):
    """An I/O pattern as the default needs it: the fewest grains that hold what it writes."""

    def bb_nodes(self, granularity: int) -> int: ...


class Tier:
    """One kind of storage target (a profile's ``filesystems.<name>.kind``); one instance per kind in ``TIERS``.

    Contract (every subclass sets each class attribute; ``tests/tiers`` checks the built-ins):

    - ``name``: the profile's ``kind`` word, unique in ``TIERS``; ``label``: how reports name it.
    - ``mount_types``: the kernel's file-system types (``/proc/self/mountinfo``) that are this tier.
    - ``shared``: the namespace is one service seen by every job (Lustre, DataWarp, Rabbit Lustre's MDS),
      as opposed to storage mounted per job or per node.
    - ``one_sided``: other users' jobs share the hardware, so interference only slows a run down and the
      best of N repetitions is the least disturbed (ALCF Theta I/O best practices); else noise is two-sided.
    - ``near_node``: flash near or in the compute nodes, allocated per job (Rabbit, node NVMe, PCC).
    - ``probed``: a path visible where ``autotune`` itself runs, so the stack check can compare it.
    - ``profile_needs``: ``(keys, message)`` pairs: profile keys a file system of this kind must set, and the
      message when one is missing (``missing`` checks them in order).
    - ``space``: the built-in search space a Darshan draft starts from, or ``None``.
    - ``dw_allocation``: the job asks the workload manager for storage with a ``#DW`` directive.
    - ``tmp_request``: the job asks Slurm for per-node temporary disk (``#SBATCH --tmp``).
    - ``cache_state``: the job records which files a client-side cache holds (``lfs pcc state``).
    - ``bills_bb_nodes``: the cost counts burst-buffer node-hours.
    - ``stripes``: Lustre striping parameters (``lustre.*``) apply to it directly.
    - ``rabbit_types``: the file systems a Rabbit allocation can be (``rabbit.type``), empty elsewhere.
    - ``rules_of_thumb``: what a user tries first on this kind of storage (``RuleOfThumb``, each with its source);
      a campaign runs them right after the default and weighs its recommendation against the best of them.
    """

    name: ClassVar[str]
    label: ClassVar[str]
    mount_types: ClassVar[tuple[str, ...]] = ()
    shared: ClassVar[bool] = False
    one_sided: ClassVar[bool] = False
    near_node: ClassVar[bool] = False
    probed: ClassVar[bool] = False
    profile_needs: ClassVar[tuple[tuple[tuple[str, ...], str], ...]] = ()
    space: ClassVar[str | None] = None
    dw_allocation: ClassVar[bool] = False
    tmp_request: ClassVar[bool] = False
    cache_state: ClassVar[bool] = False
    bills_bb_nodes: ClassVar[bool] = False
    stripes: ClassVar[bool] = False
    rabbit_types: ClassVar[tuple[str, ...]] = ()
    rules_of_thumb: ClassVar[tuple[RuleOfThumb, ...]] = ()

    def missing(self, present: Collection[str]) -> str | None:
        """What a profile entry of this kind lacks, given the keys it sets; None when it has everything."""
        return next((msg for keys, msg in self.profile_needs if not all(k in present for k in keys)), None)

    def __repr__(self) -> str:
        return f"<tier {self.name}>"

    def __str__(self) -> str:
        return self.name
