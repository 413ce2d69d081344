"""The Darshan logs the probe can find, and hostile variants of them (for ``darshan_probe``).

Logs: the ``.darshan`` files PyDarshan ships (``examples/`` and ``tests/input/``), the ``darshan-logs``
package's when it is installed (PyDarshan's ``darshan.log_utils.get_log_path`` looks there), and any file or
folder given on the command line; duplicates (same bytes) are kept once. Variants are deterministic: the
same logs give the same cases.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autotune.measure import header_maps


@dataclass
class Case:
    """One input for ``init --from-darshan``: ``make`` writes it at the given path (a file, folder, FIFO...).

    ``expect``: ``campaign`` (exit 0), ``error`` (exit 2), ``same`` (the outcome of the undamaged log) or
    ``any`` (exit 0 or 2); ``want``: a word the first stderr line must hold (a notice on exit 0)."""

    name: str
    filename: str
    make: Callable[[Path], None]
    expect: str = "any"
    want: str = ""
    origin: str = ""


def shipped_logs(extra: list[Path]) -> tuple[list[Path], list[str]]:
    """Every log found, one per content, and where they came from (one line per source)."""
    import darshan

    package = Path(os.path.dirname(darshan.__file__))
    sources = {"PyDarshan " + darshan.__version__: [package / "examples", package / "tests" / "input"]}
    try:
        import darshan_logs  # type: ignore[import-not-found]
        sources["darshan-logs"] = [Path(os.path.dirname(darshan_logs.__file__))]
    except ImportError:
        sources["darshan-logs (not installed: not on the configured package index)"] = []
    sources["command line"] = extra
    seen: dict[str, Path] = {}
    said = []
    for source, places in sources.items():
        found = sorted({p for d in places for p in ([d] if d.is_file() else d.rglob("*.darshan"))})
        new = 0
        for p in found:
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
            if digest not in seen:
                seen[digest], new = p, new + 1
        said.append(f"{source}: {len(found)} log(s), {new} not seen before")
    return list(seen.values()), said


def _header_size(data: bytes) -> tuple[int, int]:
    """(region maps, header bytes) of a Darshan 3 log: version, magic, comp type, partial flag, the maps,
    then one uint32 module version per module slot (darshan-log-format.h)."""
    maps = header_maps(data[:8].split(b"\0")[0].decode("ascii", "replace"))
    return maps, 24 + 16 * maps + 4 * (maps - 1)


def regions(data: bytes) -> list[tuple[int, int]]:
    """The (offset, length) of each non-empty region the header maps."""
    maps, _ = _header_size(data)
    order = "<" if struct.unpack("<q", data[8:16])[0] == 6567223 else ">"
    out = [struct.unpack(order + "QQ", data[24 + 16 * i:40 + 16 * i]) for i in range(maps)]
    return [(o, n) for o, n in out if n]


def _write(data: bytes) -> Callable[[Path], None]:
    def write(p: Path) -> None:
        p.write_bytes(data)

    return write


def _patched(data: bytes, at: int, new: bytes) -> bytes:
    return data[:at] + new + data[at + len(new):]


def _flip(data: bytes, at: int) -> bytes:
    return _patched(data, at, bytes([data[at] ^ 0xFF]))


def log_cases(tag: str, path: Path, truncations: int, flips: int) -> list[Case]:
    """The log itself, the copies that must read the same, and its damaged copies."""
    data = path.read_bytes()
    name = f"{tag}.darshan"
    maps, hend = _header_size(data)
    order = "<" if struct.unpack("<q", data[8:16])[0] == 6567223 else ">"
    packed = gzip.compress(data, mtime=0)
    cases = [Case(f"{tag}", name, _write(data), "any", origin=str(path)),
             Case(f"{tag} gzip", name + ".gz", _write(gzip.compress(data, mtime=0)), "same"),
             Case(f"{tag} bzip2", name + ".bz2", _write(bz2.compress(data)), "same"),
             Case(f"{tag} xz", name + ".xz", _write(lzma.compress(data)), "same"),
             Case(f"{tag} gzip renamed .darshan", name, _write(gzip.compress(data, mtime=0)), "same"),
             Case(f"{tag} as *.darshan_partial", f"{tag}.darshan_partial", _write(data), "same"),
             Case(f"{tag} partial flag", name, _write(_patched(data, 20, struct.pack(order + "I", 0xFFFFFFFF))),
                  "same", want="incomplete"),
             Case(f"{tag} + 4 KiB garbage", name, _write(data + bytes(range(256)) * 16), "any"),
             Case(f"{tag} gzip truncated", name + ".gz", _write(packed[:len(packed) // 2]), "error")]
    cuts = {1, 8, 23, 24, 100, hend - 1, hend, hend + 1, len(data) - 1}
    cuts |= {len(data) * k // (truncations + 1) for k in range(1, truncations + 1)}
    cases += [Case(f"{tag} cut at {c}", name, _write(data[:c]), "error") for c in sorted(cuts) if 0 < c < len(data)]
    header = [(0, "version major"), (2, "version minor"), (8, "magic"), (16, "compression type"),
              (24 + 7, "job region offset"), (24 + 15, "job region length"),
              (24 + 16 * maps - 1, "last module length"), (24 + 16 * maps + 4, "POSIX module version")]
    cases += [Case(f"{tag} flip {what}", name, _write(_flip(data, at)), "any") for at, what in header]
    cases += [Case(f"{tag} POSIX version 99", name, _write(_patched(data, 24 + 16 * maps + 4, struct.pack(order + "I", 99))),
                   "any"),
              Case(f"{tag} compression bzip2", name, _write(_patched(data, 16, b"\x01")), "any"),
              Case(f"{tag} version 3.41 header", name, _write(_patched(data, 0, b"3.41\0\0\0\0")), "any")]
    spots = []
    for i, (off, n) in enumerate(regions(data)[:6]):
        spots += [(off, f"region {i} start"), (off + n // 2, f"region {i} middle"), (off + n - 1, f"region {i} end")]
    cases += [Case(f"{tag} flip {what}", name, _write(_flip(data, at)), "any") for at, what in spots[:flips]
              if at < len(data)]
    return cases


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _sparse(data: bytes) -> Callable[[Path], None]:
    """A log whose last region claims 4 GiB, the file extended (sparse) to hold it."""
    def make(p: Path) -> None:
        off, _ = regions(data)[-1]
        order = "<" if struct.unpack("<q", data[8:16])[0] == 6567223 else ">"
        maps, _ = _header_size(data)
        last = max(i for i in range(maps) if struct.unpack(order + "QQ", data[24 + 16 * i:40 + 16 * i])[1])
        head = _patched(data, 24 + 16 * last + 8, struct.pack(order + "Q", 4 << 30))
        with p.open("wb") as fh:
            fh.write(head)
            fh.truncate(off + (4 << 30))
    return make


def other_cases(sample: bytes) -> list[Case]:
    """Inputs that are not a log at all, or not a Darshan 3 one."""
    darshan2 = b"2.06\0\0\0\0" + struct.pack("<q", 6567223) + bytes(1200)   # Darshan 2 logs were gzip files
    return [Case("empty file", "empty.darshan", _write(b""), "error"),
            Case("a directory", "dir.darshan", lambda p: p.mkdir(), "error", want="directory"),
            Case("a FIFO", "fifo.darshan", _fifo, "error"),
            Case("no such file", "missing.darshan", lambda p: None, "error", want="no such file"),
            Case("dangling symlink", "link.darshan", lambda p: p.symlink_to(p.parent / "nowhere"), "error"),
            Case("text renamed .darshan", "notes.darshan", _write(b"job 42 ran fine\n" * 20), "error"),
            Case("gzip of text", "notes.darshan.gz", _write(gzip.compress(b"hello\n" * 100, mtime=0)), "error"),
            Case("4 KiB random bytes", "random.darshan", _write(hashlib.shake_256(b"x").digest(4096)), "error"),
            Case("magic only", "magic.darshan", _write(b"3.21\0\0\0\0" + struct.pack("<q", 6567223)), "error"),
            Case("zeroed magic", "zero-magic.darshan", _write(_patched(sample, 8, bytes(8))), "error"),
            Case("byte-swapped magic", "swapped.darshan", _write(_patched(sample, 8, struct.pack(">q", 6567223))),
                 "error"),
            Case("Darshan 2 log (gzip)", "old.darshan.gz", _write(gzip.compress(darshan2, mtime=0)), "error",
                 want="2.06"),
            Case("header claims 4 GiB (sparse)", "sparse.darshan", _sparse(sample), "any")]
