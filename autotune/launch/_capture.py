"""Captured output with a size cap: the head and the tail are kept, the size of what was dropped noted."""

from __future__ import annotations

OUTPUT_CAP = 1 << 20  # bytes kept per stream per repetition


class CappedBuffer:
    """Keeps the first and the last ``cap // 2`` bytes of a stream and counts all of it."""

    def __init__(self, cap: int = OUTPUT_CAP) -> None:
        self.cap = cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.cap // 2 - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            keep = self.cap - self.cap // 2
            self.tail += data[-keep:]
            if len(self.tail) > keep:
                del self.tail[: len(self.tail) - keep]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.head) + len(self.tail)

    def text(self) -> str:
        head = self.head.decode(errors="replace")
        tail = self.tail.decode(errors="replace")
        if not self.truncated:
            return head + tail
        dropped = self.total - len(self.head) - len(self.tail)
        return (f"{head}\n[autotune: {dropped} bytes of output dropped here; the run printed {self.total} bytes, "
                f"the first and last {self.cap // 2} are kept]\n{tail}")
