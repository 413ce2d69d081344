"""System profiles: the facts about a site that the search space, the hints and the model need."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autotune._paths import available, find_named
from autotune._yaml import check_keys, expect, load_yaml, plain_text, positive_int, shown
from autotune.errors import ConfigError
from autotune.systems._charge import DEFAULT_CHARGE, Charge, parse_charge
from autotune.systems._pfl import parse_pfl
from autotune.systems.detect import detect_cores
from autotune.tiers import LUSTRE, TIERS, RuleOfThumb, Tier
from autotune.units import parse_size

FS_KINDS = tuple(TIERS.names())
NEAR_NODE = tuple(n for n in TIERS if TIERS.get(n).near_node)  # near-node and node-local flash (docs/model.md)
MPI_FLAVOURS = ("cray-mpich", "mpich", "openmpi")
_GIB = 1024**3
MAX_NAME = 100  # a system name is a word or two; anything longer is a mistake (and is echoed in messages)


@dataclass(frozen=True)
class Pool:
    """A DataWarp pool: allocations are made in grains of ``granularity`` bytes, one grain per BB node."""

    name: str
    granularity: int
    nodes: int


@dataclass(frozen=True)
class FileSystem:
    """One storage target of a system: a Lustre file system, a DataWarp burst buffer, or plain POSIX."""

    name: str
    kind: str
    path: str | None = None
    description: str = ""
    osts: int | None = None
    oss: int | None = None
    default_stripe_count: int = 1
    default_stripe_size: int = 1 << 20
    bb_nodes: int | None = None
    pools: dict[str, Pool] = field(default_factory=dict)
    default_pool: str | None = None
    stripe_size: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    pfl: str = ""  # a progressive file layout that new files get by default ("1GiB:1,eof:8"; model only)
    node_capacity: int | None = None  # nvme/pcc: bytes of flash per compute node; rabbit: per Rabbit
    compute_per_rabbit: int = 16      # rabbit: compute nodes wired (PCIe) to one Rabbit (El Capitan: 8 blades x 2)
    rabbits: int | None = None        # rabbit: Rabbit nodes in the machine
    pcc_archive_id: int | None = None  # pcc: the RW-PCC backend's HSM archive id (lfs pcc attach -i)
    pcc_project: int | None = None     # pcc: the project id the site's auto-cache rule matches (lfs project -p)
    request: str = ""                 # nvme: how a job asks for the local flash at this site (a comment in exports)
    rules_of_thumb: tuple[RuleOfThumb, ...] = ()  # the site's documented presets (its own, after the tier's)

    @property
    def tier(self) -> Tier:
        """The tier this file system is (its ``kind``'s entry in ``TIERS``)."""
        return TIERS.get(self.kind)

    def pool(self, name: str | None = None) -> Pool:
        key = name or self.default_pool
        if key is None or key not in self.pools:
            raise ConfigError(f"filesystem {self.name!r}: unknown pool {key!r} (pools: {', '.join(self.pools) or 'none'})")
        return self.pools[key]

    def namespace(self) -> dict[str, Any]:
        """The ``fs.*`` names constraints and ranges may use."""
        ns: dict[str, Any] = {
            "name": self.name, "kind": self.kind, "osts": self.osts or 0, "oss": self.oss or 0,
            "default_stripe_count": self.default_stripe_count, "default_stripe_size": self.default_stripe_size,
            "bb_nodes": self.bb_nodes or 0, "node_capacity": self.node_capacity or 0,
            "compute_per_rabbit": self.compute_per_rabbit, "rabbits": self.rabbits or 0,
        }
        if self.pools:
            pool = self.pool()
            ns.update(pool_nodes=pool.nodes, granularity=pool.granularity)
        return ns


def dw_capacity(nodes: int, pool: Pool) -> tuple[int, str]:
    """Capacity for ``nodes`` BB nodes: nodes x granularity, rounded down to whole GiB
    (KAUST Shaheen II training: 64 x 397.44 -> 25436GiB).

    Returns (bytes, the string for ``#DW jobdw capacity=``). Rounding down keeps the request inside
    ``nodes`` grains while still needing all of them, as long as a grain is larger than 1 GiB.
    """
    if nodes < 1:
        raise ConfigError(f"bb.nodes: {nodes} must be >= 1")
    gib = math.floor(nodes * pool.granularity / _GIB + 1e-9)
    if gib * _GIB <= (nodes - 1) * pool.granularity or gib == 0:
        # grains smaller than 1 GiB: ask in MiB instead
        mib = math.floor(nodes * pool.granularity / 1024**2 + 1e-9)
        return mib * 1024**2, f"{mib}MiB"
    return gib * _GIB, f"{gib}GiB"


ACCESS_MODES = ("striped", "private")


def access_mode(config: Mapping[str, Any]) -> str:
    """A configuration's DataWarp access mode (``bb.access_mode``, default striped), checked."""
    mode = str(config.get("bb.access_mode", "striped"))
    if mode not in ACCESS_MODES:
        raise ConfigError(f"bb.access_mode: {mode!r} is not one of {', '.join(ACCESS_MODES)}")
    return mode


@dataclass(frozen=True)
class SystemProfile:
    """A site: its MPI, nodes, file systems and burst buffers, scheduler defaults and model constants."""

    name: str
    description: str
    mpi_flavour: str
    cores_per_node: int
    filesystems: dict[str, FileSystem]
    default_filesystem: str
    scheduler: dict[str, Any] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    charge: Charge = DEFAULT_CHARGE  # charge rates (``charge:``), for campaigns with ``objective.cost``
    cores_source: str = ""  # how ``cores_per_node`` was detected (``node.cores: detect``); "" = the profile's number
    mpi_detect: bool = False  # ``mpi.flavour: detect``: the campaign sets the flavour its launcher's MPI has
    mpi_source: str = ""      # how ``mpi_flavour`` was detected ("" = the profile's word)

    @property
    def is_cray(self) -> bool:
        return self.mpi_flavour == "cray-mpich"

    def filesystem(self, name: str | None = None) -> FileSystem:
        key = name or self.default_filesystem
        if key not in self.filesystems:
            raise ConfigError(
                f"target.filesystem: {key!r} is not a file system of system {self.name!r} "
                f"(expected one of: {', '.join(self.filesystems)})"
            )
        return self.filesystems[key]

    def namespace(self) -> dict[str, Any]:
        return {"name": self.name, "mpi": self.mpi_flavour, "cores_per_node": self.cores_per_node,
                "cray": self.is_cray}


_FS_KEYS = frozenset({
    "kind", "path", "description", "osts", "oss", "default_stripe_count", "default_stripe_size",
    "bb_nodes", "pools", "default_pool", "stripe_size", "model", "pfl",
    "node_capacity", "compute_per_rabbit", "rabbits", "pcc_archive_id", "pcc_project", "request", "rules_of_thumb",
})
_TOP_KEYS = frozenset({"name", "description", "mpi", "node", "filesystems", "default_filesystem", "scheduler", "model",
                       "charge"})


def _parse_fs(name: str, data: Any, where: str) -> FileSystem:
    d = check_keys(data, _FS_KEYS, where, required=("kind",))
    kind = d["kind"]
    tier = TIERS.get(kind, f"{where}.kind")
    pools: dict[str, Pool] = {}
    for pname, pdata in (d.get("pools") or {}).items():
        pd = check_keys(pdata, {"granularity", "nodes"}, f"{where}.pools.{pname}", required=("granularity", "nodes"))
        gran = parse_size(pd["granularity"], f"{where}.pools.{pname}.granularity")
        if gran <= 0:
            raise ConfigError(f"{where}.pools.{pname}.granularity: must be > 0")
        pools[pname] = Pool(pname, gran, positive_int(pd["nodes"], f"{where}.pools.{pname}.nodes"))
    lacks = tier.missing({k for k in d if k != "pools"} | ({"pools"} if pools else set()))
    if lacks is not None:
        raise ConfigError(f"{where}: {lacks}")
    default_pool = d.get("default_pool", next(iter(pools), None))
    if pools and default_pool not in pools:
        raise ConfigError(f"{where}.default_pool: {default_pool!r} is not one of {', '.join(pools)}")
    osts = positive_int(d["osts"], f"{where}.osts") if "osts" in d else None
    dsc = positive_int(d.get("default_stripe_count", 1), f"{where}.default_stripe_count")
    if osts is not None and dsc > osts:
        raise ConfigError(f"{where}.default_stripe_count: {dsc} exceeds the OST count {osts}")
    return FileSystem(
        name=name, kind=kind, description=str(d.get("description", "")),
        path=plain_text(d["path"], f"{where}.path", "a path") if d.get("path") is not None else None,
        osts=osts,
        oss=positive_int(d["oss"], f"{where}.oss") if "oss" in d else None,
        default_stripe_count=dsc,
        default_stripe_size=parse_size(d.get("default_stripe_size", 1 << 20), f"{where}.default_stripe_size"),
        bb_nodes=positive_int(d["bb_nodes"], f"{where}.bb_nodes") if "bb_nodes" in d else None,
        pools=pools, default_pool=default_pool,
        stripe_size=parse_size(d["stripe_size"], f"{where}.stripe_size") if "stripe_size" in d else None,
        extra=dict(d.get("model") or {}),
        pfl=_pfl(d.get("pfl"), f"{where}.pfl") if tier is LUSTRE else "",
        node_capacity=parse_size(d["node_capacity"], f"{where}.node_capacity") if "node_capacity" in d else None,
        compute_per_rabbit=positive_int(d.get("compute_per_rabbit", 16), f"{where}.compute_per_rabbit"),
        rabbits=positive_int(d["rabbits"], f"{where}.rabbits") if "rabbits" in d else None,
        pcc_archive_id=positive_int(d["pcc_archive_id"], f"{where}.pcc_archive_id") if "pcc_archive_id" in d else None,
        pcc_project=positive_int(d["pcc_project"], f"{where}.pcc_project") if "pcc_project" in d else None,
        request=plain_text(str(d.get("request", "")), f"{where}.request", "one line"),
        rules_of_thumb=_rules_of_thumb(d.get("rules_of_thumb"), f"{where}.rules_of_thumb"),
    )


def _rules_of_thumb(value: Any, where: str) -> tuple[RuleOfThumb, ...]:
    """A profile's ``rules_of_thumb``: a list of ``{name, settings: {parameter: value or expression}, source,
    when}`` (the site's documented presets; ``source`` is required: a rule without one is a guess)."""
    out: list[RuleOfThumb] = []
    for i, item in enumerate(expect(value or [], list, where, "a list of rules")):
        w = f"{where}[{i}]"
        r = check_keys(item, {"name", "settings", "source", "when"}, w, required=("name", "settings", "source"))
        settings = expect(r["settings"], dict, f"{w}.settings", "a mapping of parameters to values")
        if not settings:
            raise ConfigError(f"{w}.settings: at least one setting is required")
        for k, v in settings.items():
            expect(v, (int, float, str), f"{w}.settings.{k}", "a number, a choice or an expression")
        name = plain_text(str(r["name"]), f"{w}.name", "a name")
        if name in {x.name for x in out}:
            raise ConfigError(f"{w}.name: {name!r} is already a rule of this file system")
        out.append(RuleOfThumb(name, dict(settings), plain_text(str(r["source"]), f"{w}.source", "one line"),
                               str(r.get("when", ""))))
    return tuple(out)


def _pfl(value: Any, where: str) -> str:
    """A PFL default layout, checked (``"1GiB:1,eof:8"``; "" when absent)."""
    if value is None:
        return ""
    parse_pfl(str(value), where)
    return str(value)


def parse_system(data: dict[str, Any], source: str = "<dict>") -> SystemProfile:
    where = f"system {source}"
    d = check_keys(data, _TOP_KEYS, where, required=("name", "filesystems"))
    mpi = check_keys(d.get("mpi", {}), {"flavour"}, f"{where}.mpi")
    flavour = mpi.get("flavour", "mpich")
    detect = flavour == "detect"  # this host: the campaign asks its launcher's MPI (MPICH until it does)
    flavour = "mpich" if detect else flavour
    if flavour not in MPI_FLAVOURS:
        raise ConfigError(f"{where}.mpi.flavour: {flavour!r} is not one of {', '.join(MPI_FLAVOURS)} or 'detect'")
    node = check_keys(d.get("node", {}), {"cores", "memory"}, f"{where}.node")
    cores, cores_source = _cores(node.get("cores", 1), f"{where}.node.cores")
    if "memory" in node and parse_size(node["memory"], f"{where}.node.memory") <= 0:
        raise ConfigError(f"{where}.node.memory: {node['memory']!r} is not a positive size (e.g. '192GB')")
    name = plain_text(expect(d["name"], str, f"{where}.name", "a name"), f"{where}.name", "a name")
    if not 0 < len(name) <= MAX_NAME:
        raise ConfigError(f"{where}.name: {shown(name)} is not a name of 1 to {MAX_NAME} characters")
    fss_raw = expect(d["filesystems"], dict, f"{where}.filesystems", "a mapping of file systems")
    if not fss_raw:
        raise ConfigError(f"{where}.filesystems: at least one file system is required")
    fss = {n: _parse_fs(n, v, f"{where}.filesystems.{n}") for n, v in fss_raw.items()}
    default_fs = d.get("default_filesystem", next(iter(fss)))
    if default_fs not in fss:
        raise ConfigError(f"{where}.default_filesystem: {default_fs!r} is not one of {', '.join(fss)}")
    return SystemProfile(
        name=name, description=str(d.get("description", "")), mpi_flavour=flavour,
        cores_per_node=cores, cores_source=cores_source, filesystems=fss, default_filesystem=default_fs,
        scheduler=dict(d.get("scheduler") or {}), model=dict(d.get("model") or {}), source=source,
        charge=parse_charge(d.get("charge"), f"{where}.charge"), mpi_detect=detect,
    )


def _cores(value: Any, where: str) -> tuple[int, str]:
    """``node.cores``: a number, or ``detect`` (the cores this process may use: ``systems.detect_cores``)."""
    if value == "detect":
        fact = detect_cores()
        return int(fact.value), fact.source
    if isinstance(value, str):
        raise ConfigError(f"{where}: {value!r} is not a positive integer or 'detect'")
    return positive_int(value, where), ""


def load_system(name: str, base: Path | None = None) -> SystemProfile:
    """Load a profile by name (``search_spaces/systems/<name>.yaml``) or by path."""
    path = find_named("search_spaces/systems", name, base)
    if path is None:
        known = ", ".join(available("search_spaces/systems"))
        raise ConfigError(f"system: {shown(name)} not found (known: {known}, or a path to a .yaml)")
    return parse_system(load_yaml(path, "system profile"), source=str(path))
