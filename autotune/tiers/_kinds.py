"""The built-in tiers: Lustre, Cray DataWarp, HPE Rabbit, node-local NVMe, Lustre PCC and POSIX local disk."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autotune.tiers._base import Pools, RuleOfThumb, Tier, Writes


class Lustre(Tier):
    """A shared Lustre file system: striped over OSTs, other users' jobs share the servers."""

    name = "lustre"
    label = "Lustre"
    mount_types = ("lustre",)
    shared = True
    one_sided = True
    probed = True
    profile_needs = ((("osts",), "a lustre file system needs 'osts' (PCC caches a Lustre file system)"),)
    space = "lustre-cray"
    stripes = True
    rules_of_thumb = (
        RuleOfThumb("stripe-per-node", {"lustre.stripe_count": "min(app.nodes, fs.osts)", "lustre.stripe_size": 1 << 20},
                    "PnetCDF's hint nc_striping=auto (its default): stripe count = the compute nodes of the "
                    "communicator, capped at the available OSTs, stripe size 1 MiB (PnetCDF release notes, PR #222; "
                    "its Lustre driver)"),
        RuleOfThumb("all-osts", {"lustre.stripe_count": "fs.osts"},
                    "lfs setstripe -c -1: stripe over every OST, the Lustre wiki's advice for large files written "
                    "by many clients (Lustre Striping Best Practices)"),
    )


class DataWarp(Tier):
    """A Cray DataWarp burst buffer, mounted through DVS: capacity comes in grains, one per BB node
    (Cray DataWarp User Guide, S-2558), asked for with ``#DW jobdw`` and billed in BB node-hours."""

    name = "datawarp"
    label = "DataWarp"
    mount_types = ("dvs",)
    shared = True
    one_sided = True
    probed = True
    profile_needs = ((("pools",), "a datawarp file system needs at least one pool"),)
    space = "datawarp-cray"
    dw_allocation = True
    bills_bb_nodes = True
    rules_of_thumb = (
        RuleOfThumb("bb-nodes-per-node", {"bb.nodes": "max(1, min(app.nodes, floor(app.ranks / 4)))"},
                    "NERSC Burst Buffer tuning page: scale the BB nodes with the compute nodes, with more than 4 MPI "
                    "processes per BB node"),
        RuleOfThumb("no-collective-buffering", {"mpiio.romio_cb_write": "disable"},
                    "NERSC Burst Buffer tuning page: shared-file MPI-IO on the burst buffer up to 5x faster with "
                    "romio_cb_write=disable"),
    )

    def bb_nodes(self, config: Mapping[str, Any], fs: Pools, pattern: Writes) -> int:
        """The BB nodes a striped allocation gets: ``bb.nodes`` if set, else the fewest grains of the pool
        (``bb.pool``, else the default) that hold what the pattern writes. The one default for the search
        space's rules, the hints' ``#DW jobdw`` line and the model."""
        pool = fs.pool(str(config["bb.pool"]) if "bb.pool" in config else None)  # an unknown pool is an error either way
        return int(config["bb.nodes"]) if "bb.nodes" in config else pattern.bb_nodes(pool.granularity)


class Rabbit(Tier):
    """An HPE Rabbit (Near Node Flash) allocation, ``#DW jobdw type=xfs|gfs2|lustre`` (NNF user guide):
    SSDs in each chassis, shared by the jobs of that chassis."""

    name = "rabbit"
    label = "Rabbit"
    shared = False
    one_sided = True
    near_node = True
    profile_needs = ((("node_capacity",), "a rabbit target needs 'node_capacity' (flash per Rabbit)"),)
    dw_allocation = True
    rabbit_types = ("xfs", "gfs2", "lustre")

    @property
    def default_type(self) -> str:
        """``rabbit.type`` when a configuration does not set it: a Lustre file system on the Rabbits."""
        return "lustre"

    def shared_namespace(self, rabbit_type: str | None) -> bool:
        """Whether one namespace spans the job's nodes (Rabbit Lustre, through its own MDS) rather than one
        file system per compute node (xfs, gfs2)."""
        return (rabbit_type or self.default_type) == "lustre"


class NodeNvme(Tier):
    """Node-local NVMe flash, asked for as Slurm's per-node temporary disk (``#SBATCH --tmp``)."""

    name = "nvme"
    label = "node-local NVMe"
    near_node = True
    profile_needs = ((("node_capacity",), "a nvme target needs 'node_capacity' (flash per node)"),)
    tmp_request = True


class PersistentClientCache(Tier):
    """Lustre's Persistent Client Cache (RW-PCC): files of a project cached on the node's flash, archived
    to Lustre after the job (Lustre Operations Manual, "Persistent Client Cache")."""

    name = "pcc"
    label = "Lustre PCC"
    near_node = True
    profile_needs = ((("osts",), "a pcc file system needs 'osts' (PCC caches a Lustre file system)"),
                     (("node_capacity",), "a pcc target needs 'node_capacity' (flash per node)"),
                     (("pcc_archive_id", "pcc_project"),
                      "a pcc target needs 'pcc_archive_id' and 'pcc_project' (the site's RW-PCC set-up)"))
    cache_state = True


class Posix(Tier):
    """A local disk (or any file system the model treats as plain POSIX): the node's own noise, two-sided."""

    name = "posix"
    label = "POSIX"
    probed = True
    space = "local-romio"
    rules_of_thumb = (
        RuleOfThumb("mpi-io-default-aggregators", {"mpiio.cb_nodes": "app.nodes"},
                    "ROMIO's default cb_nodes: one aggregator per host (ROMIO Users Guide, hints for collective "
                    "buffering)"),
    )


LUSTRE = Lustre()
DATAWARP = DataWarp()
RABBIT = Rabbit()
NVME = NodeNvme()
PCC = PersistentClientCache()
POSIX = Posix()
