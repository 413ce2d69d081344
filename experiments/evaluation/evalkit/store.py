"""The evaluation's committed results: meta and truths as JSON, the per-campaign records as Parquet.

``save(out, data)`` writes ``OUT`` (``{"meta", "truths", "records_file"}``) and ``OUT``'s stem +
``.records.parquet`` beside it: one row per campaign, one column per field, each value as JSON text (so a
``null`` the record holds and a field it lacks stay apart), zstd-compressed (the JSON of 2162 campaigns is
1.1 MB; the Parquet ~10x smaller). ``load(out)`` returns the same mapping ``save`` was given, so ``--render``
and ``--merge`` read either form (a JSON that still holds its records inline loads as it is).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def records_path(out: Path) -> Path:
    return out.with_name(out.stem + ".records.parquet")


def save(out: Path, data: dict[str, Any]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = data["records"]
    names = list(dict.fromkeys(k for r in records for k in r))
    columns = {k: [json.dumps(r[k], separators=(",", ":"), default=str) if k in r else None for r in records]
               for k in names}
    pq.write_table(pa.table(columns), records_path(out), compression="zstd")
    head = {k: v for k, v in data.items() if k != "records"}
    head["records_file"] = records_path(out).name
    out.write_text(json.dumps(head, default=str, separators=(",", ":")) + "\n")


def load(out: Path) -> dict[str, Any]:
    data = json.loads(Path(out).read_text())
    name = data.pop("records_file", None)
    if name is None:
        return data
    import pyarrow.parquet as pq

    rows = pq.read_table(Path(out).with_name(name)).to_pylist()
    data["records"] = [{k: json.loads(v) for k, v in row.items() if v is not None} for row in rows]
    return data
