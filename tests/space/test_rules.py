"""Each shipped rule refuses only what the system refuses: a configuration just inside it and one just outside,
and every rule names where the system enforces it (``source``)."""

from __future__ import annotations

from typing import Any

import pytest

from autotune.space import default_rules

RULES = {r.name: r for r in default_rules()}
_LUSTRE = {"fs.kind": "lustre", "system.mpi": "mpich"}
_CRAY = {**_LUSTRE, "cray.cb_write_lock_mode": 1, "mpiio.romio_no_indep_rw": "true", "app.all_collective": True,
         "app.library": "mpiio"}
_DW = {"fs.kind": "datawarp", "system.mpi": "mpich", "app.data_bytes": 100, "derived.bb_capacity": 100,
       "bb.access_mode": "private", "app.file_mode": "shared", "app.files": 4, "app.nodes": 4}
_LOCAL = {"fs.kind": "nvme", "system.mpi": "mpich", "app.file_mode": "shared", "app.files": 4, "app.nodes": 4,
          "app.data_bytes": 400, "fs.node_capacity": 100}
_RABBIT = {"fs.kind": "rabbit", "system.mpi": "mpich", "rabbit.type": "xfs", "app.file_mode": "shared",
           "app.files": 32, "app.nodes": 32, "app.data_bytes": 200, "fs.node_capacity": 100, "fs.compute_per_rabbit": 16}
_OMPI = {"system.mpi": "openmpi", "ompi.io": "ompio", "derived.romio_only": 0, "derived.ompio_only": 1}

# rule: (just inside, just outside), each the names it reads
CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "stripe_count_le_osts": ({**_LUSTRE, "lustre.stripe_count": 56, "fs.osts": 56},
                             {**_LUSTRE, "lustre.stripe_count": 57, "fs.osts": 56}),
    "stripe_size_multiple_of_64k": ({"lustre.stripe_size": 2 * 65536}, {"lustre.stripe_size": 2 * 65536 + 4096}),
    "lock_mode_needs_all_collective": (_CRAY, {**_CRAY, "mpiio.romio_no_indep_rw": "false"}),
    "lock_mode_not_pnetcdf": (_CRAY, {**_CRAY, "app.library": "pnetcdf"}),
    "bb_capacity_covers_data": (_DW, {**_DW, "app.data_bytes": 101}),
    "bb_private_needs_files_per_node": (_DW, {**_DW, "app.files": 3}),
    "node_local_needs_files_per_node": (_LOCAL, {**_LOCAL, "app.files": 3}),
    "node_local_capacity": (_LOCAL, {**_LOCAL, "app.data_bytes": 401}),
    "rabbit_local_needs_files_per_node": (_RABBIT, {**_RABBIT, "app.files": 31}),
    "rabbit_capacity": (_RABBIT, {**_RABBIT, "app.data_bytes": 201}),
    "romio_hints_need_romio": (_OMPI, {**_OMPI, "derived.romio_only": 1}),
    "ompio_knobs_need_ompio": ({**_OMPI, "ompi.io": "romio321", "derived.ompio_only": 0},
                               {**_OMPI, "ompi.io": "romio321"}),
    "ompio_aggregators_le_ranks": ({"ompi.num_aggregators": 64, "app.ranks": 64},
                                   {"ompi.num_aggregators": 65, "app.ranks": 64}),
}


def test_every_shipped_rule_has_a_case_and_names_its_source() -> None:
    assert set(CASES) == set(RULES)
    for rule in RULES.values():
        assert rule.source, rule.name


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_configuration_just_inside_passes_and_just_outside_is_refused(name: str) -> None:
    rule, (inside, outside) = RULES[name], CASES[name]
    for env in (inside, outside):
        assert rule.when is None or rule.when.evaluate(env), name  # the rule applies to both
    assert rule.expr.violation(inside) <= 0
    assert rule.expr.violation(outside) > 0


def test_caps_are_not_rules() -> None:
    # the MPI-IO layer caps aggregators at the ranks and the scheduler wraps BB grains round-robin over the
    # pool's nodes: the derived figures say what happens, no rule refuses them
    assert not {"aggregators_le_ranks", "bb_nodes_within_pool", "aggregators_multiple_of_bb_nodes"} & set(RULES)
