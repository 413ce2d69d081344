"""Where a drafted campaign's trials write: the command's output argument moved under ``{data_dir}``, and the
data directory (``target.path``) beside the job's own files on the target, never at a file system's root.

A command taken from the log writes where the job wrote: every trial would overwrite the job's real output.
The arguments that name what the job wrote (the file, its directory, or the prefix of the names the
application derived from it: E3SM-IO's ``-o out.nc`` writes ``out_h0.nc`` and ``out_h1.nc``) are rewritten
to ``{data_dir}/<name>``; when no argument names a file the job wrote, the draft stops with one line.
Only outputs move: a file the job read before it wrote it (an update in place: Darshan's first read and write
timestamps) or only read is an input, and an argument naming one is left as it is.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field

from autotune.darshan._pattern import Derived, FileFigures
from autotune.darshan._target import Target
from autotune.errors import ConfigError
from autotune.tiers import DATAWARP

DATA = "{data_dir}"
# A benchmark's output argument and its default when the command line leaves it out: IOR's "-o S: full name
# for the test file", default "testFile" (IOR's user guide).
DEFAULT_OUTPUT = {"ior": ("-o", "testFile")}
DATA_FOLDER = "autotune-data"


@dataclass
class Moved:
    """The command with its output arguments under ``{data_dir}``; what was moved, and what no argument names."""

    command: list[str]
    moved: list[tuple[str, str]] = field(default_factory=list)   # (argument as logged, as rewritten)
    unnamed: list[str] = field(default_factory=list)             # written main files no argument names
    in_place: list[str] = field(default_factory=list)            # main files the job read, then wrote


def read_first(f: FileFigures) -> bool:
    """Whether the job read ``f`` before it wrote it (or only read it): an input, never moved. Without
    Darshan's first-read/first-write timestamps a file both read and written counts as read first."""
    if f.bytes_read <= 0:
        return False
    if f.bytes_written <= 0:
        return True
    p = f.layer.replace("-", "")
    read, write = (f.counters.get(f"{p}_F_{op}_START_TIMESTAMP", 0.0) for op in ("READ", "WRITE"))
    return not (0 < write < read)


def _stem(base: str) -> str:
    root, ext = os.path.splitext(base)
    return root if root and ext else base


def _names(arg: str, written: list[str]) -> tuple[set[str], bool]:
    """The written files ``arg`` names (the file, its folder, or a prefix of names in that folder), and whether
    it names their folder. A relative ``arg`` is matched on its trailing components (the job's cwd is not
    in the log)."""
    a = arg.rstrip("/")
    if not a or a in (".", ".."):
        return set(), False
    adir, abase = os.path.split(a)
    hits: set[str] = set()
    folder = False
    for w in written:
        wdir, wbase = os.path.split(w)
        same_dir = (wdir == adir) if a.startswith("/") else (not adir or wdir.endswith("/" + adir.lstrip("./")))
        if w == a or (not a.startswith("/") and w.endswith("/" + a.lstrip("./"))):
            hits.add(w)
        elif wdir == a or (not a.startswith("/") and wdir.endswith("/" + a.lstrip("./"))):
            hits.add(w)
            folder = True
        elif same_dir and len(_stem(abase)) >= 3 and wbase.startswith(_stem(abase)):
            hits.add(w)
    return hits, folder


def _names_file(arg: str, files: list[str]) -> bool:
    """Whether ``arg`` names one of ``files`` itself (a relative ``arg`` by its trailing components)."""
    a = arg.rstrip("/")
    if not a or a in (".", ".."):
        return False
    tail = "/" + a.lstrip("./")
    return any(f == a or (not a.startswith("/") and f.endswith(tail)) for f in files)


def move_outputs(command: list[str], d: Derived, preset: str | None) -> Moved:
    """``command`` with every argument that names a main file the job wrote (and did not read first) moved
    under ``{data_dir}``; an argument naming a file the job read first stays (``read_first``)."""
    written = [f.name for f in d.matter if f.bytes_written > 0 and not read_first(f)]
    in_place = [f.name for f in d.matter if f.bytes_written > 0 and read_first(f)]
    inputs = [f.name for f in d.files if read_first(f)]
    out, moved, covered = list(command), [], set()
    for i, arg in enumerate(command[1:], start=1):
        flag, sep, value = arg.partition("=") if arg.startswith("-") else ("", "", arg)
        if arg.startswith("-") and not sep:
            continue
        if _names_file(value, inputs):
            continue
        hits, folder = _names(value, written)
        if not hits:
            continue
        new = DATA if folder else f"{DATA}/{os.path.basename(value.rstrip('/'))}"
        out[i] = f"{flag}={new}" if sep else new
        moved.append((arg, out[i]))
        covered |= hits
    default = DEFAULT_OUTPUT.get(preset or "")
    if default and default[0] not in command and written:
        flag, name = default
        if all(os.path.basename(w).startswith(name) for w in written):
            out += [flag, f"{DATA}/{name}"]
            moved.append((f"(default {flag} {name})", f"{flag} {DATA}/{name}"))
            covered |= set(written)
    return Moved(out, moved, [w for w in written if w not in covered], in_place)


def refuse_unnamed(log_path: str, command: list[str], unnamed: list[str]) -> None:
    """One line: the job wrote ``unnamed`` and its command line names no argument for them."""
    more = f" (and {len(unnamed) - 1} more)" if len(unnamed) > 1 else ""
    base = os.path.basename(unnamed[0])
    raise ConfigError(
        f"darshan log {log_path!r}: the job wrote {unnamed[0]}{more}, but no argument of its command line "
        f"({shlex.join(command)[:120]}) names it, so every trial would write over it: pass --app-command with the "
        f"output argument set to {DATA}/{base} (or run the app in {DATA}), or --target model")


def refuse_in_place(log_path: str, command: list[str], in_place: list[str]) -> None:
    """One line: the job read ``in_place`` and then wrote it, so every trial would change the user's file."""
    base = os.path.basename(in_place[0])
    raise ConfigError(
        f"darshan log {log_path!r}: the job read {in_place[0]} and then wrote it (an update in place), so every "
        f"trial would change that file: pass --app-command that works on a copy at {DATA}/{base} (e.g. sh -c "
        f"'cp {in_place[0]} {DATA}/ && exec {shlex.quote(command[0])} ...', the copy then timed with the run), "
        "or --target model")


def data_path(d: Derived, t: Target, workdir: str) -> tuple[str | None, str]:
    """``target.path`` for the campaign and a note: a folder beside the job's main file when the target holds
    that file (never the file system's root); else the work directory's data folder; None for DataWarp (the
    launcher puts the data in the job's DataWarp instance)."""
    if t.fs.tier is DATAWARP:
        return None, ""
    main: FileFigures = d.matter[0]
    real = (main.real or main.name).rstrip("/") + "/"
    fs_path = (t.fs.path or "").rstrip("/") + "/"
    mount = main.mount.rstrip("/") + "/"
    on_target = t.draft is not None or (fs_path != "/" and (real.startswith(fs_path) or (
        mount != "/" and fs_path.startswith(mount) and t.fs.kind == t.kind)))
    if on_target:
        return os.path.join(os.path.dirname(main.name) or "/", DATA_FOLDER), ""
    where = os.path.join(workdir, "data")
    return where, (f"the job's files are not on {t.system.name}:{t.fs.name}: trial data goes to {where}; set "
                   f"target.path to a folder of yours on {t.fs.path or t.fs.name} so its settings act on the data")
