"""One confirmation per shared campaign: the worker that claims it on the study confirms, the others leave it.

Workers sharing one campaign (one store, one study) finish it together, and each would confirm it: the work done
N times on the same run numbers (``CONFIRM_BASE`` onward), so on one host in the same run and data directories,
and the last writer's result winning. Instead a worker claims the confirmation in the study attribute
``confirmation_claim``: its identity ``host:pid`` (as trials record it in ``worker``), a heartbeat (POSIX time),
and the set of trials it confirms (their count and a digest of their numbers). The claim is read and written
under the store's ``confirmation-claim`` lock (``autotune._storelock``), so two workers never both claim.

A claim is live while its worker is: on this host while its process exists, on another host while its heartbeat
is younger than the grace period of trials (``GRACE_S``; the claimant refreshes it every ``HEARTBEAT_S``). A live
claim is left to its worker; a dead one (killed, its host gone) is taken over; a finished claim of the same set
of trials whose confirmation is recorded is not redone. A claimant that fails or is interrupted clears its claim.
While another worker's claim is live, a worker joining the campaign leaves the confirmation runs' data
directories alone (``in_use``).
"""

from __future__ import annotations

import contextlib
import hashlib
import socket
import threading
import time
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from typing import Any

import optuna

from autotune import trialrecord
from autotune._storage import GRACE_S, HEARTBEAT_S
from autotune._storelock import store_lock
from autotune.campaign.confirm._sequential import CONFIRM_BASE
from autotune.campaign.study import pid_alive

LOCK = "confirmation-claim"


def trials_key(numbers: Sequence[int]) -> str:
    """A digest of the set of trial numbers a confirmation is based on."""
    return hashlib.sha256(",".join(map(str, sorted(numbers))).encode()).hexdigest()[:16]


def claim_live(claim: Mapping[str, Any], now: float | None = None) -> bool:
    """True when the unfinished ``claim``'s worker may still be confirming (see the module doc)."""
    if claim.get("finished"):
        return False
    host, _, pid = str(claim.get("worker") or "").rpartition(":")
    if host == socket.gethostname():
        return pid.isdigit() and pid_alive(int(pid))
    beat = claim.get("beat")
    if not isinstance(beat, int | float) or isinstance(beat, bool):
        return False
    return (time.time() if now is None else now) - beat < GRACE_S


def confirming_worker(study: optuna.Study) -> str | None:
    """The worker whose live claim says it is confirming ``study`` now, else None."""
    claim = trialrecord.read_study(study).confirmation_claim
    return str(claim.get("worker")) if claim and claim_live(claim) else None


class _From:
    """``numbers``, and every number from ``start`` on."""

    def __init__(self, numbers: Container[int], start: int) -> None:
        self.numbers, self.start = numbers, start

    def __contains__(self, n: object) -> bool:
        return n in self.numbers or (isinstance(n, int) and n >= self.start)


def in_use(study: optuna.Study, worker: str, trials: Container[int]) -> Container[int]:
    """The run numbers whose data directories may still be written: ``trials``, and the confirmation's runs
    while a worker other than ``worker`` holds a live claim."""
    who = confirming_worker(study)
    return trials if who is None or who == worker else _From(trials, CONFIRM_BASE)


class ConfirmationClaim:
    """This worker's claim of the confirmation of ``study`` over the trials ``numbers``."""

    def __init__(self, study: optuna.Study, storage: str, worker: str, numbers: Sequence[int]) -> None:
        self.study, self.storage, self.worker = study, storage, worker
        self.trials, self.key = len(numbers), trials_key(numbers)

    def _held(self) -> dict[str, Any]:
        return dict(trialrecord.read_study(self.study).confirmation_claim or {})

    def _store(self, finished: bool) -> None:
        trialrecord.store_study(self.study, confirmation_claim={
            "worker": self.worker, "beat": time.time(), "trials": self.trials, "key": self.key, "finished": finished})

    def _ours(self, held: Mapping[str, Any]) -> bool:
        return held.get("worker") == self.worker and held.get("key") == self.key and not held.get("finished")

    def take(self, say: Callable[[str], None]) -> bool:
        """Claim the confirmation; False (after one line through ``say``) when it is not this worker's to run."""
        with store_lock(self.storage, LOCK):
            held = self._held()
            who = held.get("worker")
            if held.get("finished") and held.get("key") == self.key and \
                    trialrecord.read_study(self.study).confirmation is not None:
                say(f"confirmation: already recorded for these {self.trials} trials (by worker {who}); not redone")
                return False
            if held and who != self.worker and claim_live(held):
                say(f"confirmation: worker {who} confirms; its result lands in the study")
                return False
            if held and who != self.worker and not held.get("finished"):
                say(f"confirmation: worker {who} stopped confirming (its process is gone or silent for over "
                    f"{GRACE_S} s); this worker takes it over")
            self._store(False)
        return True

    @contextlib.contextmanager
    def beating(self) -> Iterator[None]:
        """Refresh the claim's heartbeat every ``HEARTBEAT_S`` while the block runs; clear the claim if it fails."""
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(HEARTBEAT_S):
                with contextlib.suppress(Exception):  # a missed heartbeat: the next one comes HEARTBEAT_S later
                    with store_lock(self.storage, LOCK):
                        if self._ours(self._held()):
                            self._store(False)

        thread = threading.Thread(target=beat, daemon=True, name="confirmation-heartbeat")
        thread.start()
        try:
            yield
        except BaseException:
            stop.set()
            thread.join(timeout=5)
            with contextlib.suppress(Exception), store_lock(self.storage, LOCK):  # another worker may run it now
                if self._ours(self._held()):
                    trialrecord.store_study(self.study, confirmation_claim=None)
            raise
        stop.set()
        thread.join(timeout=5)

    def record(self, confirmation: dict[str, Any], say: Callable[[str], None]) -> bool:
        """Store ``confirmation`` and finish the claim, unless another worker took the claim over meanwhile."""
        with store_lock(self.storage, LOCK):
            held = self._held()
            if not self._ours(held):
                say(f"confirmation: worker {held.get('worker')} took the claim over meanwhile; its result lands in "
                    "the study")
                return False
            trialrecord.write_study(self.study, confirmation=confirmation)
            self._store(True)
        return True
