"""The contract every tracker passes (tests/tracking/test_contracts.py runs it for each registered one)."""

from __future__ import annotations

from typing import Any

from autotune.tracking import TRACKERS, BaseTracker, CampaignInfo, SafeTracker, TrackedTrial

INFO = CampaignInfo(name="contract", study="contract", storage="sqlite:///contract.db", app="ior", system="local",
                    filesystem="disk", launcher="local", space="local-romio", objective="maximize bandwidth_mib_s",
                    command_line="autotune tune contract.yaml", campaign_text="name: contract\n")
METRIC = "bandwidth_mib_s"


def trial(number: int, state: str = "COMPLETE", reps: tuple[float | None, ...] = (10.0, 12.0, 11.0)) -> TrackedTrial:
    """A finished trial as the loop hands it to trackers."""
    values = [r for r in reps if r is not None]
    return TrackedTrial(number=number, state=state, config={"mpiio.romio_cb_write": "enable", "lustre.stripe_count": 4},
                        value=max(values) if state == "COMPLETE" and values else None, repetitions=list(reps),
                        metric=METRIC, is_default=number == 0, hints={"romio_cb_write": "enable"},
                        hints_in_effect={"romio_cb_write": "enable"}, artifacts={"command.txt": "mpiexec -n 2 app\n"},
                        error="exit code 1: boom" if state == "FAIL" else None, duration=1.25)


class TrackerContract:
    """Subclass in a test module; provide the ``tracker`` fixture (a fresh tracker on a fresh record).

    ``recorded(tracker)`` returns what the tracker kept, read back through the tracker's own backend, as
    ``{trial number: [value per repetition]}``, or None for a tracker that keeps nothing (``none``).
    """

    def recorded(self, tracker: BaseTracker) -> dict[int, list[float | None]] | None:
        return None

    def test_is_registered(self, tracker: BaseTracker) -> None:
        assert TRACKERS.get(tracker.name) is type(tracker)

    def test_a_campaign_is_recorded_with_one_value_per_repetition(self, tracker: BaseTracker) -> None:
        tracker.start(INFO)
        tracker.log_trial(trial(0))
        tracker.log_trial(trial(1, reps=(5.0, None, 7.0)))
        tracker.log_trial(trial(2, state="FAIL", reps=(None,)))
        tracker.finish({"best_value": 12.0, "best_params": {"lustre.stripe_count": 4}, "default_value": 12.0})
        kept = self.recorded(tracker)
        if kept is not None:
            assert kept[0] == [10.0, 12.0, 11.0]
            assert [v for v in kept[1] if v is not None] == [5.0, 7.0]
            assert 2 in kept

    def test_resume_continues_the_same_record_without_duplicates(self, tracker: BaseTracker) -> None:
        tracker.start(INFO)
        tracker.log_trial(trial(0))
        tracker.finish({"best_value": 12.0})
        tracker.start(INFO)       # the campaign was resumed
        tracker.log_trial(trial(0))  # logged again by a resumed loop: kept once
        tracker.log_trial(trial(1))
        tracker.finish({"best_value": 12.0})
        kept = self.recorded(tracker)
        if kept is not None:
            assert sorted(kept) == [0, 1]
            assert kept[0] == [10.0, 12.0, 11.0]

    def test_failures_never_reach_the_campaign(self, tracker: BaseTracker) -> None:
        class Broken(type(tracker)):  # type: ignore[misc]
            def log_trial(self, record: TrackedTrial) -> None:
                raise RuntimeError("backend down")

        safe = SafeTracker(Broken.__new__(Broken))
        safe.log_trial(trial(0))
        assert safe.failures == 1

    def test_unknown_tracker_names_the_known_ones(self, tracker: BaseTracker) -> None:
        from autotune.errors import RegistryError

        try:
            TRACKERS.get("nope")
        except RegistryError as err:
            assert tracker.name in str(err) and "\n" not in str(err)
        else:
            raise AssertionError("an unknown tracker name was accepted")


def history(client: Any, experiment: str, metric: str = METRIC) -> dict[int, list[float | None]]:
    """``{trial: [value per repetition]}`` of an MLflow experiment, read back with ``MlflowClient``."""
    exp = client.get_experiment_by_name(experiment)
    runs = client.search_runs([exp.experiment_id], max_results=1000)
    out: dict[int, list[float | None]] = {}
    for run in runs:
        if "autotune.trial" not in run.data.tags:
            continue
        number = int(run.data.tags["autotune.trial"])
        assert number not in out, f"trial {number} logged twice"
        steps = sorted(client.get_metric_history(run.info.run_id, metric), key=lambda m: m.step)
        out[number] = [m.value for m in steps]
    return out
