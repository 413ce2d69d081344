"""One run of a configuration with everything a user needs to trust the night: ``autotune check`` and the
fail-fast report of ``tune`` when the default configuration fails in every repetition."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from autotune._yaml import expect
from autotune.campaign.trial import Runtime, output_tail, what_took_effect
from autotune.errors import AutotuneError, ConfigError
from autotune.launch import RunRequest, RunResult, app_command
from autotune.measure import STATES, Measurement
from autotune.space import COMPONENT_RULES, Config, other_component
from autotune.units import parse_size


@dataclass
class CheckReport:
    """What one checked run received and produced."""

    config: Config
    is_default: bool
    command: str
    env: dict[str, str]
    files: dict[Path, str]
    requested: dict[str, str]
    preflight: str | None = None        # what the launcher's preflight checked (a note)
    preflight_error: str | None = None  # why it says the run cannot start
    result: RunResult | None = None
    measurement: Measurement | None = None
    in_effect: dict[str, str] = field(default_factory=dict)
    not_in_effect: dict[str, Any] = field(default_factory=dict)
    verification: dict[str, Any] = field(default_factory=dict)

    @property
    def error(self) -> str | None:
        """Why the check failed (one line), or None."""
        if self.preflight_error:
            return f"preflight: {self.preflight_error}"
        if self.result is None:
            return "not run"
        if not self.result.ok:
            return self.result.error or f"exit code {self.result.returncode}"
        if self.measurement is None or self.measurement.value is None:
            return self.measurement.error if self.measurement else "no measurement"
        return None


def parse_config_overrides(rt: Runtime, items: list[str]) -> Config:
    """``["mpiio.cb_nodes=2", ...]`` on top of the default configuration; each checked against the space."""
    config = dict(rt.space.default_config())
    params = {p.name: p for p in rt.space.active}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ConfigError(f"--config: {item!r} is not NAME=VALUE")
        if name not in params:
            known = ", ".join(sorted(params)) or "none"
            raise ConfigError(f"--config: {name!r} is not searched on this target (searched: {known})")
        p = params[name]
        value = yaml.safe_load(text) if text.strip() else text
        if p.type != "categorical" and isinstance(value, str):
            value = parse_size(value, f"--config {name}")
        expect(value, (str, int, bool, float), f"--config {name}", "a value")
        if not p.contains(value):
            raise ConfigError(f"--config {name}: {value!r} is not in the searched range ({p.describe()})")
        config[name] = value
    violations = rt.space.violations(config)
    broken = sorted(k for k, v in violations.items() if v > 0 and k not in COMPONENT_RULES)
    if broken:
        raise ConfigError(f"--config: this configuration breaks the rule(s) {', '.join(broken)}")
    return config


def check_request(rt: Runtime, config: Config, is_default: bool) -> RunRequest:
    c = rt.campaign
    return rt.request(0, 0, config, is_default, seeded=False, run_dir=c.workdir / "check" / "rep-0",
                      data_dir=c.data_root / f"{c.study}-check")


def what_it_gets(rt: Runtime, req: RunRequest) -> tuple[str, dict[str, str], dict[Path, str]]:
    """The command line (or job script), the environment autotune adds and the files it writes first."""
    command = rt.launcher.describe(req)
    if rt.campaign.launcher.get("name") == "model":
        return command, {}, {}
    cmd = app_command(req, python=rt.launcher.options.get("python"))
    return command, dict(cmd.env), dict(cmd.files)


def run_check(rt: Runtime, config: Config | None = None) -> CheckReport:
    """Run ``config`` (default: the default configuration) once and report everything about it."""
    is_default = config is None
    config = dict(rt.space.default_config()) if config is None else config
    req = check_request(rt, config, is_default)
    command, env, files = what_it_gets(rt, req)
    rep = CheckReport(config, is_default, command, env, files, dict(req.settings.info))
    preflight = getattr(rt.launcher, "preflight", None)  # e.g. Slurm's sbatch --test-only (BaseLauncher hook)
    if callable(preflight):
        try:
            note = preflight([req])
        except AutotuneError as exc:
            rep.preflight_error = str(exc)
            return rep
        rep.preflight = str(note) if note else None
    shutil.rmtree(req.run_dir, ignore_errors=True)
    try:
        rep.result = rt.launcher.run_many([req])[0]
    finally:
        shutil.rmtree(req.data_dir, ignore_errors=True)
    if rep.result.ok:
        rep.measurement = rt.extractor.extract(rep.result, rt.campaign.objective.metric)
        rep.in_effect, rep.not_in_effect, rep.verification = what_took_effect(req, rep.result, rep.measurement,
                                                                              rt.io)
        if rt.campaign.system.mpi_flavour == "openmpi" and not is_default:  # the io component that runs never reads them
            for name, why in other_component({"ompi.io": rt.io, **config}).items():
                rep.verification[name] = {"state": "not passed", "how": why, "requested": config[name],
                                          "observed": None}
    return rep


def format_check(rt: Runtime, rep: CheckReport) -> str:
    c = rt.campaign
    o = c.objective
    what = "the default configuration" if rep.is_default else "the given configuration"
    lines = [f"check of {c.name}: {what} once on {c.system.name}/{c.fs.name} via launcher {c.launcher['name']}"]
    lines += [f"  {k} = {v}" for k, v in sorted(rep.config.items())]
    lines += ["command:", *(f"  {ln}" for ln in rep.command.splitlines())]
    if rep.env:
        lines.append("environment autotune adds:")
        lines += [f"  {k}={v}" for k, v in sorted(rep.env.items())]
    for path, text in sorted(rep.files.items()):
        lines.append(f"file {path}:")
        lines += [f"  {ln}" for ln in text.splitlines()] or ["  (empty)"]
    if not rep.requested:
        lines.append("hints requested: none (the system's defaults)")
    if rep.preflight or rep.preflight_error:
        lines.append(f"preflight: {rep.preflight_error or rep.preflight}")
    if rep.result is not None:
        r = rep.result
        lines.append(f"run: exit code {r.returncode}, {r.wall_seconds:.1f}s" + (" (timed out)" if r.timed_out else ""))
        lines += output_tail(r)
    if rep.measurement is not None and rep.measurement.value is not None:
        unit = f" {o.unit}" if o.unit else ""
        kind = f"a {o.kind}" if o.kind else "of unknown kind"
        lines.append(f"metric: {o.metric} = {rep.measurement.value:.6g}{unit} ({kind}, {o.direction}d; "
                     f"read by extractor {c.metric.get('extractor', 'json')})")
    lines += _hints_lines(rep, echo=c.system.mpi_flavour == "openmpi" and c.app.kernel is not None)
    err = rep.error
    lines.append(f"FAILED: {err}" if err else "OK: the campaign can run; `autotune tune` spends its budget on this")
    return "\n".join(lines)


def _hints_lines(rep: CheckReport, echo: bool) -> list[str]:
    """What the library reported (``echo``: it only returns the requested keys, so it proves nothing), the
    mismatches, then every requested setting as verified in effect / verified not in effect / not verifiable."""
    if rep.result is None or not rep.result.ok:
        return []
    if not rep.in_effect:
        lines = ["hints in effect: not reported (the program opened no MPI-IO file, or its MPI prints none)"]
    elif echo:
        lines = ["hints the MPI library returns (Open MPI echoes the requested keys: this proves nothing):"]
    else:
        lines = ["hints in effect (as the MPI library reports them):"]
    lines += [f"  {k} = {v}" for k, v in sorted(rep.in_effect.items())]
    for k, v in sorted(rep.not_in_effect.items()):
        lines.append(f"  NOT IN EFFECT: {k}={v.get('requested')} -> {v.get('in_effect')} ({v.get('why')})")
    for state in STATES:
        found = {k: v for k, v in rep.verification.items() if v.get("state") == state}
        if found:
            lines.append(f"settings {'verified ' if state in STATES[:2] else ''}{state}:")
            lines += [f"  {k}={v.get('requested')}: {v.get('how')}" for k, v in sorted(found.items())]
    return lines


