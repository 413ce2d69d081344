"""Optuna's gRPC storage proxy in front of a database (``autotune store serve``), reachable only by its owner
unless told otherwise.

The proxy has no authentication of its own: whoever can connect can ask, tell and read every study. By
default it listens on a Unix socket in a directory only its owner can enter (mode 0700), so only the owner's
processes on this machine reach it (unix(7): connecting needs write permission on the socket and search
permission on every directory above it). A ``socket_dir`` the owner prepared, e.g. a group's directory of mode
0750 (setgid), makes the socket 0660, so the group can connect and nobody else. ``host``/``port`` listen on TCP
instead (explicit only): anyone who can reach that address can use the store.
"""

from __future__ import annotations

import grp
import hashlib
import os
import socket
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path

import optuna

from autotune._storage import SOCKET_SUFFIX, grpc_unix_url
from autotune.campaign import make_storage
from autotune.errors import ConfigError
from autotune.service._fallback import cache_root, private_dir

DEFAULT_PORT = 13000


def serve_store(storage: str, *, socket_dir: str | None = None, host: str | None = None, port: int | None = None,
                say: Callable[[str], None] = print) -> None:
    """Serve ``storage`` (a database URL) until stopped; ``say`` gets the one line naming the ``--storage`` URL jobs
    use (``grpc+unix://...`` or ``grpc://HOST:PORT``) and who can reach it. Bad input is a one-line ConfigError."""
    if storage.startswith(("grpc://", "grpc+unix://")):
        raise ConfigError("--storage: give the database URL, not another proxy")
    tcp = host is not None or port is not None
    if tcp and socket_dir is not None:
        raise ConfigError("--socket-dir: a Unix socket or --host/--port (TCP), not both")
    if tcp:
        host, port = host or "127.0.0.1", DEFAULT_PORT if port is None else port
        if not 0 < port < 65536:
            raise ConfigError(f"--port: {port} must be between 1 and 65535")
        _check_listen(host, port)  # before the store is opened (or created)
        url, who = f"grpc://{host}:{port}", f"anyone who can reach {host}:{port} (no authentication)"
    else:
        path, who = socket_path(socket_dir, storage)
        host, port, url = f"unix:{str(path).removesuffix(SOCKET_SUFFIX)}", 0, grpc_unix_url(path)
    opened = make_storage(storage)
    say(f"autotune store: serving {storage} as --storage {url}; reachable by {who} (Ctrl-C stops)")
    if not tcp:
        _restrict_when_made(path, 0o660 if socket_dir else 0o600)
    try:
        optuna.storages.run_grpc_proxy_server(opened, host=host, port=port)
    except RuntimeError as exc:  # gRPC's bind failure (the port taken since the check above)
        if "bind" not in str(exc).lower():
            raise
        raise ConfigError(f"cannot listen on {url} (taken, or not an address of this machine)") from None


def socket_path(socket_dir: str | None, storage: str) -> tuple[Path, str]:
    """The socket to serve on (``NAME:0``: Optuna addresses its proxy as HOST:PORT, and gRPC's ``unix:`` address
    takes the whole text as the path) and who can reach it; a directory others could tamper with is refused."""
    name = hashlib.sha256(storage.encode()).hexdigest()[:12] + SOCKET_SUFFIX
    if socket_dir is None:
        d = private_dir(cache_root() / "store")
        d.chmod(0o700)  # an older, looser directory too
        who = "you only (a Unix socket on this machine, in a 0700 directory)"
    else:
        d = Path(socket_dir).expanduser().resolve()
        st = _stat_dir(d)
        if st.st_uid != os.geteuid():
            raise ConfigError(f"--socket-dir: {str(d)!r} is not yours (uid {st.st_uid}): another user could replace "
                              "the socket")
        mode = stat.S_IMODE(st.st_mode)
        if mode & stat.S_IWOTH and not mode & stat.S_ISVTX:
            raise ConfigError(f"--socket-dir: {str(d)!r} is writable by everyone (mode {mode:04o})")
        try:
            group = grp.getgrgid(st.st_gid).gr_name
        except KeyError:
            group = str(st.st_gid)
        who = ("every local user (the directory is world-searchable)" if mode & stat.S_IXOTH else
               f"you and group {group} (directory mode {mode:04o}, socket 0660)" if mode & stat.S_IXGRP else
               f"you only (directory mode {mode:04o})")
    path = d / name
    _refuse_live(path)
    return path, who


def _stat_dir(d: Path) -> os.stat_result:
    try:
        st = os.lstat(d)
    except OSError as exc:
        raise ConfigError(f"--socket-dir: {str(d)!r}: {exc.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"--socket-dir: {str(d)!r} is not a directory")
    return st


def _refuse_live(path: Path) -> None:
    """A socket another proxy answers on is refused; a stale one (its server gone) is replaced."""
    if not path.is_socket():
        if path.exists() or path.is_symlink():
            raise ConfigError(f"{str(path)!r} exists and is not a socket: move it away")
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(str(path))
        except OSError:
            path.unlink()
            return
    raise ConfigError(f"{str(path)!r}: a proxy is serving there already (stop it first)")


def _restrict_when_made(path: Path, mode: int) -> None:
    """Set the socket's mode as soon as gRPC has made it (in a thread: the server blocks until stopped)."""
    def wait() -> None:
        for _ in range(600):
            if path.is_socket():
                os.chmod(path, mode)
                return
            time.sleep(0.05)

    threading.Thread(target=wait, daemon=True, name="autotune-socket-mode").start()


def _check_listen(host: str, port: int) -> None:
    """``--host`` must name an address of this machine and ``--port`` be free there: one line otherwise (gRPC
    would fail with its own log line and a traceback)."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise ConfigError(f"--host: {host!r} is not a host name or address ({getattr(exc, 'strerror', None) or exc})") \
            from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as exc:
            raise ConfigError(f"--host/--port: cannot listen on {host}:{port} ({exc.strerror or exc})") from None
