"""The trial record: every attribute autotune stores on an Optuna trial or study, in one place.

Optuna keeps a trial's and a study's user attributes as a string-keyed map whose values are JSON
(``json.dumps`` on the RDB storages, a deep copy in memory; Optuna documents only JSON-serialisable values).
Here each attribute is a field of a frozen dataclass — :class:`TrialRecord` for a trial, :class:`StudyRecord`
for a study — whose name is the key, whose annotation is the Python type and whose ``doc`` metadata is its
meaning. Writers go through :func:`write` / :func:`write_stored` / :func:`attrs` / :func:`write_study`, which
refuse an unknown key or a value of the wrong type with a one-line :class:`RecordError`; readers go through
:func:`read` / :func:`read_study`, which return the dataclass with defaults for what is missing.

Encoding: JSON scalars, lists (a tuple is stored as a list) and objects with string keys, as Optuna stores them.
Version rule: every write stamps ``record_version`` = :data:`FORMAT_VERSION`. A trial or study with no stamp was
written before the stamp existed: it is version 1, whose keys and types are those of version 2 (version 2 added
only the stamp), so it reads as is. A value of the wrong type in a stored record (another tool wrote it) reads
as the field's default; a stamp newer than :data:`FORMAT_VERSION` reads the keys this version knows.
"""

from autotune.trialrecord._access import (
    attrs,
    copy_study,
    ran_trials,
    read,
    read_study,
    store_study,
    study_changes,
    write,
    write_stored,
    write_study,
)
from autotune.trialrecord._schema import (
    BASELINE,
    DROPPED,
    DUPLICATE_OF,
    DURATION_S,
    FORMAT_VERSION,
    INFEASIBLE,
    IS_DEFAULT,
    PROPOSED_BY,
    RAN,
    VERSION,
    RecordError,
    StudyRecord,
    TrialRecord,
    doc,
)

__all__ = [
    "BASELINE", "DROPPED", "DUPLICATE_OF", "DURATION_S", "FORMAT_VERSION", "INFEASIBLE", "IS_DEFAULT", "PROPOSED_BY",
    "RAN", "VERSION", "RecordError", "StudyRecord", "TrialRecord", "attrs", "copy_study", "doc", "ran_trials", "read",
    "read_study", "store_study", "study_changes", "write", "write_stored", "write_study",
]
