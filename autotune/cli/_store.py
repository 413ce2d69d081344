"""``autotune store serve``: Optuna's gRPC storage proxy in front of a database, reachable only by its owner
unless told otherwise (``autotune.service.serve_store`` holds who can reach it and how)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

DEFAULT_PORT = 13000  # the TCP port of ``--host`` without ``--port`` (autotune.service.serve_store's default)


def register_store(sub: Any) -> None:
    s = sub.add_parser("store", help="serve a storage to jobs through Optuna's gRPC proxy")
    ssub = s.add_subparsers(dest="store_cmd", required=True)
    srv = ssub.add_parser("serve", help="run Optuna's gRPC storage proxy in front of --storage (until stopped); "
                                        "by default on a Unix socket only you can reach")
    srv.add_argument("--storage", required=True, help="the database URL the proxy serves (postgresql://...)")
    srv.add_argument("--socket-dir", help="serve on a Unix socket in this existing directory of yours (its mode "
                                          "and group decide who connects; default: a private 0700 directory)")
    srv.add_argument("--host", help="listen on TCP at this address instead (anyone reaching it can use the store)")
    srv.add_argument("--port", type=int, help=f"TCP port (default {DEFAULT_PORT}; implies TCP)")
    srv.set_defaults(run=cmd_store_serve)


def cmd_store_serve(args: argparse.Namespace, argv: Sequence[str] = ()) -> int:
    """Campaigns and jobs then use the ``--storage`` URL it prints (``grpc+unix://...`` or ``grpc://HOST:PORT``)."""
    from autotune.service import serve_store  # lazy: Optuna stack, fast --help

    serve_store(args.storage, socket_dir=args.socket_dir, host=args.host, port=args.port,
                say=lambda line: print(line, flush=True))
    return 0
