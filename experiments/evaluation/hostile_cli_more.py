"""More cases of the hostile-input probe: links planted in the work directory, apps leaving background
children, impossible metric values, a tampered or wrong last-known-best cache, unsupported operators in a
space, parser usage errors, and where `store serve` may put its socket."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from experiments.evaluation.hostile_cli_cases import Case, Env, _campaign_case, _study_case

UNREACHABLE = "postgresql://postgres@127.0.0.1:1/x"  # refused at once
KEEP = "keep me\n"


def _one_error(rc: int, err: str) -> str | None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if rc != 2:
        return f"exit {rc}"
    return None if len(lines) == 1 else f"{len(lines)} lines"


# ---- links planted where autotune writes its records

def _plant(where: str) -> Callable[[Env], list[str]]:
    """A link at ``w/WHERE`` to a file (or, for a directory name, a folder) outside the work directory."""
    def argv(e: Env) -> list[str]:
        outside = e.work / "outside"
        outside.mkdir(exist_ok=True)
        (outside / "victim.txt").write_text(KEEP)
        link = e.work / "w" / where
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(outside / "victim.txt" if "." in link.name else outside)
        return ["tune", e.campaign()]
    return argv


def _nothing_outside(e: Env, rc: int, out: str, err: str) -> str:
    outside = e.work / "outside"
    if sorted(p.name for p in outside.iterdir()) != ["victim.txt"] or (outside / "victim.txt").read_text() != KEEP:
        return "written through the link"
    return _one_error(rc, err) or ("ok" if "symbolic link" in err else "does not say 'symbolic link'")


LINKS = [Case(f"link planted at w/{w}", _plant(w), judge=_nothing_outside) for w in (
    "runs", "runs/hp", "runs/hp/trial-0000", "runs/hp/trial-0000/rep-0",
    "runs/hp/trial-0000/rep-0/rep0.out", "runs/hp/trial-0000/rep-0/rep0.err",
    "runs/hp/trial-0000/rep-0/command.txt", "runs/hp/trial-0000/rep-0/romio-hints.txt",
    "runs/hp/trial-0000/rep-0/process.json", "check", "dry-run")]


# ---- an app that leaves a background child behind

def _stray(child: str) -> Callable[[Env], list[str]]:
    metric = '{"metrics": {"bandwidth_mib_s": 5}}'
    script = f"{child} >/dev/null 2>&1 </dev/null &\necho '{metric}'\n"
    return lambda e: ["tune", e.campaign(app__command=["bash", "-c", script], app__mpiexec=True,
                                         budget__run_timeout="45s", budget__trials=1)]


def _kept(e: Env, rc: int, out: str, err: str) -> str:
    if "timed out" in out:
        return "lost to the child (timed out)"
    return "ok" if rc == 0 and "median=5" in out else f"exit {rc}"


STRAYS = [Case(f"mpiexec app leaving '{c}'", _stray(c), judge=_kept) for c in (
    "sleep 300", "setsid sleep 300", "( trap '' TERM; exec sleep 300 )")]


# ---- impossible values from a run, and told

def _reports(value: str) -> Callable[[Env], list[str]]:
    app = f"print('{{\"metrics\": {{\"bandwidth_mib_s\": {value}}}}}')"
    return lambda e: ["tune", e.campaign(app__command=["python3", "-c", app], budget__trials=1)]


def _failed_trial(e: Env, rc: int, out: str, err: str) -> str:
    return "ok" if "FAILED: metric 'bandwidth_mib_s' is" in out else "a completed trial"


def _honest(e: Env, rc: int, out: str, err: str) -> str:
    return "ok" if "no plausible trial" in out else "says: " + next((ln for ln in out.splitlines() if "no " in ln), "?")


VALUES = [Case(f"run reports {v} MiB/s", _reports(v), judge=_failed_trial) for v in ("-0", "0", "4.9e-324", "1e-300")]
VALUES += [Case("run reports 2e15 MiB/s (all flagged)", _reports("2e15"), judge=_honest)]
VALUES += [_study_case(f"tell --value {v}", v, "tell", "{c}", "--trial", "{ref}", f"--value={v}")
           for v in ("5e-324", "1e-300", "-0", "5e-07")]


# ---- the last-known-best cache, with the store unreachable

def _cache_file(e: Env, storage: str, study: str = "hp") -> Path:
    """Where ``ask`` keeps the last known best (``service._fallback.cache_path``; the probe's cache root)."""
    key = hashlib.sha256(f"{storage}\n{study}".encode()).hexdigest()[:24]
    return e.work / "cache" / "service" / f"{key}.json"


def _cached(config: Any, mode: int = 0o600) -> Callable[[Env], list[str]]:
    def argv(e: Env) -> list[str]:
        path = _cache_file(e, UNREACHABLE)
        path.parent.mkdir(parents=True, mode=0o700)
        path.write_text(json.dumps({"study": "hp", "config": config}))
        path.chmod(mode)
        return ["ask", e.campaign(), "--storage", UNREACHABLE, "--timeout", "5s"]
    return argv


def _defaults_with_a_warning(e: Env, rc: int, out: str, err: str) -> str:
    if rc != 0:
        return f"exit {rc}"
    if "AUTOTUNE_CONFIG_SOURCE=fallback-default" not in out:
        return "ran the cached values"
    return "ok" if "warning:" in err else "no warning"


GOOD = {"mpiio.romio_cb_write": "enable"}
CACHES = [Case(f"ask, store down, cache {label}", _cached(cfg, mode), judge=_defaults_with_a_warning) for label, cfg, mode in (
    ("null", None, 0o600), ("a string", "x", 0o600), ("a dict value", {"mpiio.romio_cb_write": {"a": 1}}, 0o600),
    ("value -1", {"mpiio.romio_cb_write": -1}, 0o600), ("value true", {"mpiio.romio_cb_write": True}, 0o600),
    ("an unknown name", {**GOOD, "lustre.stripe_count": -1}, 0o600), ("mode 0666", GOOD, 0o666))]


# ---- expressions, usage errors, store serve

def _space(high: str) -> Callable[[Env], list[str]]:
    def argv(e: Env) -> list[str]:
        spec = {"name": "s", "parameters": {"mpiio.cb_nodes": {"type": "pow2", "low": 1, "high": high, "default": 1}}}
        (e.work / "s.yaml").write_text(yaml.safe_dump(spec))
        return ["space", e.campaign(space={"use": str(e.work / "s.yaml")})]
    return argv


def _open_dir(e: Env) -> str:
    d = e.work / "open"
    d.mkdir()
    os.chmod(d, 0o777)
    return str(d)


def _listed(name: str, choices: list[Any], **over: Any) -> dict[str, Any]:
    """A space searching only ``name`` over the listed ``choices`` (a categorical)."""
    return {"use": over.pop("use", "local-romio"), "only": [name],
            "parameters": {name: {"type": "categorical", "choices": choices}}}


THETA = {"system": "theta", "target": {"filesystem": "projects"}}
# a categorical's values have its parameter's kind; Lustre's -1 (every OST) is the target's count
LISTED = [
    _campaign_case("space: a quoted count", "'2' is not an integer", "space",
                   space=_listed("mpiio.cb_nodes", ["2", 4])),
    _campaign_case("space: a count of 0 aggregators", "0 is below 1", "space", space=_listed("mpiio.cb_nodes", [0, 4])),
    _campaign_case("space: stripe counts -1 and 56 on 56 OSTs", "-1 is every OST", "space", **THETA,
                   space=_listed("lustre.stripe_count", [1, 56, -1], use="lustre-cray")),
    _campaign_case("space: a stripe size 'big'", "'big' is not a size", "space", **THETA,
                   space=_listed("lustre.stripe_size", ["1MiB", "big"], use="lustre-cray")),
]


MORE: list[Case] = [
    *LINKS, *STRAYS, *VALUES, *CACHES, *LISTED,
    *(Case(f"space: high '{h}'", _space(h), h) for h in ("1 << 3", "8 >> 1", "~3", "2 & 3", "1 is 1", "1 + 'a'")),
    _study_case("tell --value 0x10", "0x10", "tell", "{c}", "--trial", "{ref}", "--value", "0x10"),
    _study_case("ask --expire -5s", "-5s", "ask", "{c}", "--expire", "-5s"),
    _study_case("ask --format xml", "xml", "ask", "{c}", "--format", "xml"),
    _study_case("tune --trials (no value)", "--trials", "tune", "{c}", "--trials"),
    _study_case("status --within (no value)", "--within", "status", "{c}", "--within"),
    Case("store serve --socket-dir world-writable", lambda e: ["store", "serve", "--storage", "sqlite:///x.db",
                                                             "--socket-dir", _open_dir(e)], "writable by everyone"),
    Case("store serve --socket-dir missing", lambda e: ["store", "serve", "--storage", "sqlite:///x.db",
                                                      "--socket-dir", str(e.work / "nope")], "--socket-dir"),
    Case("store serve --socket-dir and --port", lambda e: ["store", "serve", "--storage", "sqlite:///x.db",
                                                         "--socket-dir", str(e.work), "--port", "13999"], "--socket-dir"),
]
