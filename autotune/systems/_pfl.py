"""Progressive file layouts (Lustre PFL): components of growing stripe count along the file.

A layout is written as ``lfs setstripe -E`` components: ``"1GiB:1,8GiB:4,eof:16"`` means the first
GiB on one OST, up to 8 GiB on four, the rest on sixteen. All ranks write their parts of the file at
once, so the component that holds the most bytes per OST sets the pace: the layout acts as a file of
``effective_stripe_count`` stripes (``size / max_i(bytes_i / count_i)``).
"""

from __future__ import annotations

import math

from autotune.errors import ConfigError
from autotune.units import parse_size

Component = tuple[float, int]  # (end offset in bytes, inf for eof; stripe count)


def parse_pfl(text: str, where: str = "lustre.pfl") -> tuple[Component, ...]:
    """Components from ``"END:COUNT,..."`` (END a size or ``eof``; ends increasing, the last ``eof``)."""
    comps: list[Component] = []
    for item in str(text).split(","):
        end_s, sep, count_s = item.strip().partition(":")
        if not sep:
            raise ConfigError(f"{where}: component {item.strip()!r} is not END:COUNT (e.g. 1GiB:1,eof:8)")
        end = math.inf if end_s.strip().lower() in ("eof", "-1") else float(parse_size(end_s.strip(), where))
        try:
            count = int(count_s)
        except ValueError:
            raise ConfigError(f"{where}: stripe count {count_s!r} is not an integer") from None
        if count < 1:
            raise ConfigError(f"{where}: stripe count {count} must be >= 1")
        if comps and end <= comps[-1][0]:
            raise ConfigError(f"{where}: component ends must increase ({end_s.strip()!r} after {comps[-1][0]:.0f})")
        comps.append((end, count))
    if not comps or comps[-1][0] != math.inf:
        raise ConfigError(f"{where}: the last component must extend to eof (e.g. ...,eof:8)")
    return tuple(comps)


def effective_stripe_count(comps: tuple[Component, ...], file_bytes: float, osts: int) -> int:
    """The stripe count a plain layout would need to write ``file_bytes`` as fast as ``comps``."""
    start, worst = 0.0, 0.0
    for end, count in comps:
        part = max(0.0, min(end, file_bytes) - start)
        if part > 0:
            worst = max(worst, part / min(count, osts))
        start = end
        if start >= file_bytes:
            break
    widest = max(count for _, count in comps)
    return max(1, min(osts, widest, math.floor(file_bytes / worst + 1e-9))) if worst > 0 else 1
