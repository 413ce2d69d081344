"""``autotune store serve``: Optuna's gRPC storage proxy in front of a database, reachable only by its owner
unless told otherwise (``autotune.service.serve_store`` holds who can reach it and how)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from autotune.service import serve_store


def cmd_store_serve(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    """Campaigns and jobs then use the ``--storage`` URL it prints (``grpc+unix://...`` or ``grpc://HOST:PORT``)."""

    serve_store(args.storage, socket_dir=args.socket_dir, host=args.host, port=args.port,
                say=lambda line: print(line, flush=True))
    return 0
