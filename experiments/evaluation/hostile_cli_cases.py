"""The cases of the hostile-input probe (``hostile_cli``): what each runs, and the text its error must name."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

Runner = Callable[[list[str]], tuple[int, str, str]]
APP = "print('{\"metrics\": {\"bandwidth_mib_s\": 1}}')"


def campaign_data(**over: Any) -> dict[str, Any]:
    """The tiny campaign every case starts from (a ``python -c`` app, one repetition, nothing else)."""
    data: dict[str, Any] = {
        "name": "hp", "system": "local", "target": {"filesystem": "disk"}, "launcher": "local",
        "app": {"command": ["python3", "-c", APP], "mpiexec": False, "ranks": 1, "metric": {"extractor": "json"}},
        "space": {"use": "local-romio", "only": ["mpiio.romio_cb_write"]},
        "objective": {"metric": "bandwidth_mib_s", "repeats": 1, "confirm": 0},
        "budget": {"trials": 2}, "sampler": {"name": "random", "seed": 1},
        "tracking": {"enabled": False}, "workdir": "w",
    }
    for dotted, value in over.items():
        *head, last = dotted.split("__")
        cur = data
        for k in head:
            cur = cur.setdefault(k, {})
        if value is _DELETE:
            cur.pop(last, None)
        else:
            cur[last] = value
    return data


_DELETE = object()


class Env:
    """One case's folder: campaign files written into it, the study tuned beforehand (``seeded`` cases)."""

    def __init__(self, work: Path, run: Runner) -> None:
        self.work, self.run = work, run

    @property
    def db(self) -> Path:
        return self.work / "w" / "optuna.db"

    @property
    def ref(self) -> str:
        """The trial `ask` handed out in the seed (STUDY:NUMBER:TOKEN)."""
        return (self.work / "ref.txt").read_text().strip()

    def campaign(self, text: str | None = None, file_: str = "c.yaml", **over: Any) -> str:
        path = self.work / file_
        path.write_text(text if text is not None else yaml.safe_dump(campaign_data(**over), sort_keys=False))
        return str(path)

    def file(self, name: str, data: bytes) -> str:
        (self.work / name).write_bytes(data)
        return str(self.work / name)

    @staticmethod
    def tune_seed(seed: Path, run: Runner) -> None:
        """Tune the campaign (2 trials) and ask one production trial, kept in ``ref.txt``."""
        env = Env(seed, run)
        rc, out, err = run(["tune", env.campaign()])
        if rc != 0:
            raise SystemExit(f"the seed campaign failed (exit {rc}): {err.strip()}")
        rc, out, err = run(["ask", env.campaign(), "--format", "json", "--explore", "1", "--seed", "1"])
        if rc != 0:
            raise SystemExit(f"the seed ask failed (exit {rc}): {err.strip()}")
        (seed / "ref.txt").write_text(json.loads(out)["trial"])


def study_digest(db: Path) -> list[Any]:
    """The stored trials (number, state, values, parameters, attributes) of an Optuna SQLite file."""
    if not db.is_file():
        return []
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return [con.execute(q).fetchall() for q in (
            "SELECT trial_id, number, state FROM trials ORDER BY trial_id",
            "SELECT trial_id, objective, value FROM trial_values ORDER BY trial_id, objective",
            "SELECT trial_id, param_name, param_value FROM trial_params ORDER BY trial_id, param_name",
            "SELECT trial_id, key, value_json FROM trial_user_attributes ORDER BY trial_id, key")]


@dataclass(frozen=True)
class Case:
    name: str
    argv: Callable[[Env], list[str]]
    expect: str | None = None  # a fragment the one error line must contain (the bad value, the key)
    seeded: bool = False       # run against the tuned study; its trials must stay as they were
    # a case that must not end in exit 2 (a run that must succeed, an ask that must fall back): its own
    # verdict from (folder, exit code, stdout, stderr), 'ok' or what broke
    judge: Callable[[Env, int, str, str], str] | None = None


def _campaign_case(label_: str, expect_: str | None, command_: str = "tune", *extra: str, **over: Any) -> Case:
    """A campaign with ``over`` applied (``a__b=value`` sets ``a.b``), given to ``command_``."""
    return Case(label_, lambda e: [command_, e.campaign(**over), *extra], expect_)


def _study_case(name: str, expect: str | None, *argv: str) -> Case:
    """A command on the tuned study: ``{c}`` is the campaign file, ``{ref}`` the asked trial, ``{w}`` the folder."""
    return Case(name, lambda e: [a.format(c=e.campaign(), ref=e.ref, w=e.work) for a in argv], expect, seeded=True)


def _file_case(name: str, expect: str | None, command: str, data: bytes | None, *extra: str) -> Case:
    """``command FILE`` where FILE holds ``data`` (None: FILE does not exist)."""
    def argv(e: Env) -> list[str]:
        path = e.file("f.bin", data) if data is not None else str(e.work / "missing.yaml")
        return [command, path, *extra]
    return Case(name, argv, expect)


def _fifo_args(e: Env) -> list[str]:
    """``space FIFO``: a named pipe with no writer where a campaign file is expected."""
    os.mkfifo(e.work / "fifo")
    return ["space", str(e.work / "fifo")]


DARSHAN_LIKE = b"\x78\x9c" + bytes(range(64))  # a zlib header and noise: not a Darshan log

CASES: list[Case] = [
    # ---- campaign files: nulls, lists for maps, wrong types
    _campaign_case("app: null", "app", app=None),
    _campaign_case("objective: a list", "objective", objective=["bandwidth_mib_s"]),
    _campaign_case("budget: a list", "budget", budget=[1]),
    _campaign_case("launcher: a list", "launcher", launcher=["local"]),
    _campaign_case("target: a list", "target", target=["disk"]),
    _campaign_case("tracking: a string", "tracking", tracking="off"),
    _campaign_case("app.command: null", "app.command", app__command=None),
    _campaign_case("app.command: empty list", "app.command", app__command=[]),
    _campaign_case("app.command: a mapping", "app.command", app__command={"a": 1}),
    _campaign_case("app.command: [python3, null]", "app.command", app__command=["python3", None]),
    _campaign_case("app.ranks: 'four'", "app.ranks", app__ranks="four"),
    _campaign_case("app.ranks: 1.5", "app.ranks", app__ranks=1.5),
    _campaign_case("app.ranks: true", "app.ranks", app__ranks=True),
    _campaign_case("app.ranks: -3", "app.ranks", app__ranks=-3),
    _campaign_case("app.nodes: 0", "app.nodes", app__nodes=0),
    _campaign_case("app.mpiexec: 'sometimes'", "app.mpiexec", app__mpiexec="sometimes"),
    _campaign_case("app.metric.extractor: unknown", "app.metric", app__metric={"extractor": "telepathy"}),
    _campaign_case("app.metric regex '('", "app.metric", app__metric={"extractor": "regex", "pattern": "("}),
    _campaign_case("app.metric regex without group", "app.metric", app__metric={"extractor": "regex", "pattern": "bw"}),
    _campaign_case("budget.trials: 'ten'", "budget.trials", budget__trials="ten"),
    _campaign_case("budget.trials: 2.5", "budget.trials", budget__trials=2.5),
    _campaign_case("budget.trials: .nan", "budget.trials", budget__trials=float("nan")),
    _campaign_case("budget.trials: true", "budget.trials", budget__trials=True),
    _campaign_case("budget.wall_time: -1h", "budget.wall_time", budget__wall_time="-1h"),
    _campaign_case("budget.wall_time: .inf", "budget.wall_time", budget__wall_time=float("inf")),
    _campaign_case("budget.run_timeout: 'nan s'", "budget.run_timeout", budget__run_timeout="nan s"),
    _campaign_case("budget.run_timeout: 0", "budget.run_timeout", budget__run_timeout=0),
    _campaign_case("objective.repeats: .nan", "objective.repeats", objective__repeats=float("nan")),
    _campaign_case("objective.repeats: 0", "objective.repeats", objective__repeats=0),
    _campaign_case("objective.confirm: -1", "objective.confirm", objective__confirm=-1),
    _campaign_case("objective.confirm: .inf", "objective.confirm", objective__confirm=float("inf")),
    _campaign_case("objective.confirm: 'lots'", "objective.confirm", objective__confirm="lots"),
    _campaign_case("objective.direction: 'up'", "objective.direction", objective__direction="up"),
    _campaign_case("objective.metric: null", "objective.metric", objective__metric=None),
    _campaign_case("objective.aggregate: 'mode'", "objective.aggregate", objective__aggregate="mode"),
    _campaign_case("objective.unknown key", "objective", objective__speed=1),
    _campaign_case("budget.unknown key", "budget", budget__hours=1),
    _campaign_case("app.metric.unknown key", "app.metric", app__metric={"extractor": "json", "colour": "red"}),
    _campaign_case("launcher.name: unknown", "launcher", launcher={"name": "carrier-pigeon"}),
    _campaign_case("executor.name: unknown", "executor", executor={"name": "abacus"}),
    _campaign_case("sampler.name: unknown", "sampler", sampler={"name": "dice"}),
    _campaign_case("system: missing profile", "system", system="no-such-system"),
    _campaign_case("system: a directory", "system", system="/tmp"),
    _campaign_case("space.use: unknown", "space", space={"use": "no-such-space"}),
    _campaign_case("space.only: unknown parameter", "mpiio.nope", space={"use": "local-romio", "only": ["mpiio.nope"]}),
    _campaign_case("name: unicode emoji", "name", name="h\u00e9\U0001f4a5"),
    _campaign_case("storage: 'sqlite:'", "sqlite:", storage="sqlite:"),
    _campaign_case("objective.metric: 5", "objective.metric", objective__metric=5),
    _campaign_case("storage: '://'", "storage", storage="://"),
    _campaign_case("storage: mysql driver missing", "storage", storage="mysql://u@127.0.0.1:1/x"),
    _campaign_case("storage: sqlite dir", "storage", storage="sqlite:////tmp"),
    _campaign_case("storage: 42", "storage", storage=42),
    Case("campaign: YAML python tag", lambda e: ["tune", e.campaign("name: !!python/object/apply:os.system [ls]\n")],
         "c.yaml"),
    Case("campaign: !!binary name", lambda e: ["space", e.campaign(yaml.safe_dump(campaign_data())
                                                                   .replace("name: hp", "name: !!binary aGVsbG8="))],
         "name"),
    Case("campaign: !!set app", lambda e: ["space", e.campaign(yaml.safe_dump(campaign_data())
                                                               .replace("app:\n", "app: !!set {a}\nx:\n", 1))], None),
    Case("campaign: key 'true' at top", lambda e: ["space", e.campaign("true: 1\n")], "campaign"),
    Case("campaign: integer key in app", lambda e: ["space", e.campaign(
        yaml.safe_dump({**campaign_data(), "app": {**campaign_data()["app"], 3: 4}}))], "app"),
    # ---- files that are not campaign files
    _file_case("campaign: missing file", "missing.yaml", "tune", None),
    Case("campaign: a directory", lambda e: ["status", str(e.work)], "not found"),
    Case("campaign: /dev/zero", lambda e: ["space", "/dev/zero"], "/dev/zero"),
    Case("campaign: a FIFO", lambda e: _fifo_args(e), "fifo"),
    Case("campaign: /proc/self/mem (EIO)", lambda e: ["space", "/proc/self/mem"], "/proc/self/mem"),
    _file_case("campaign: 5 MiB of spaces", "5242880 bytes", "space", b" " * (5 << 20)),
    _file_case("campaign: a bare string", "f.bin", "space", b"hello\n"),
    _file_case("campaign: a number", "f.bin", "space", b"42\n"),
    _file_case("campaign: only a comment", "f.bin", "tune", b"# nothing\n"),
    _file_case("campaign: BOM then YAML", None, "space", b"\xef\xbb\xbfname: x\n"),
    # ---- command-line flags
    _campaign_case("tune --budget nan", "--budget", "tune", "--budget", "nan"),
    _campaign_case("tune --budget inf", "--budget", "tune", "--budget", "inf"),
    _campaign_case("tune --budget -1h", "--budget", "tune", "--budget", "-1h"),
    _campaign_case("tune --budget 1e400s", "--budget", "tune", "--budget", "1e400s"),
    _campaign_case("tune --trials abc", "--trials", "tune", "--trials", "abc"),
    _campaign_case("tune --executor bogus", "--executor", "tune", "--executor", "bogus"),
    _campaign_case("tune --storage 'sqlite:'", "sqlite:", "tune", "--storage", "sqlite:"),
    _campaign_case("tune --storage 'redis://x'", "redis", "tune", "--storage", "redis://x"),
    _campaign_case("tune --storage ':memory:x'", ":memory:x", "tune", "--storage", ":memory:x"),
    _campaign_case("tune --storage grpc://host:notaport", "grpc", "tune", "--storage", "grpc://127.0.0.1:notaport"),
    _campaign_case("tune --notify ''", "--notify", "tune", "--notify", ""),
    _campaign_case("tune --notify no-such-command", "--notify", "tune", "--notify", "no-such-command-xyz"),
    _campaign_case("tune --study ''", "--study", "tune", "--study", ""),
    _campaign_case("tune --workdir ''", "--workdir", "tune", "--workdir", ""),
    _campaign_case("status --exchange-rate nan", "--exchange-rate", "status", "--exchange-rate", "nan"),
    _campaign_case("check --config nonsense", "--config", "check", "--config", "nonsense"),
    _campaign_case("check --config unknown=1", "unknown", "check", "--config", "unknown=1"),
    _campaign_case("check --config cb_write=maybe", "maybe", "check", "--config", "mpiio.romio_cb_write=maybe"),
    _campaign_case("check --config '=1'", "--config", "check", "--config", "=1"),
    _campaign_case("compare --report is a file", "--report", "compare", "--report", "/etc/hostname"),
    _campaign_case("report: no study, report dir", "not found", "report", "--report", "rep"),
    Case("model fit: no store", lambda e: ["model", "fit", e.campaign()], "not found"),
    Case("model fit --storage 'sqlite:'", lambda e: ["model", "fit", e.campaign(), "--storage", "sqlite:"], "sqlite:"),
    Case("model fit -o a directory", lambda e: ["model", "fit", e.campaign(), "-o", "/tmp"], None, seeded=True),
    Case("model fit --constants bogus", lambda e: ["model", "fit", e.campaign(), "--constants", "bogus"], "bogus",
         seeded=True),
    Case("site detect --path missing", lambda e: ["site", "detect", "--no-mpi", "--path", str(e.work / "nope")], "nope"),
    Case("site profile --budget nan", lambda e: ["site", "profile", "--no-mpi", "-o", "p.yaml", "--budget", "nan"],
         "--budget"),
    Case("site profile --budget -5", lambda e: ["site", "profile", "--no-mpi", "-o", "p.yaml", "--budget", "-5"],
         "--budget"),
    Case("site profile -o a directory", lambda e: ["site", "profile", "--no-mpi", "-o", str(e.work)], "-o"),
    Case("store serve --port 70000", lambda e: ["store", "serve", "--storage", "sqlite:///x.db", "--port", "70000"],
         "70000"),
    Case("store serve --storage bogus", lambda e: ["store", "serve", "--storage", "bogus://", "--port", "1"], "bogus"),
    Case("store serve --host 'no such host'", lambda e: ["store", "serve", "--storage", f"sqlite:///{e.work}/s.db",
                                                         "--host", "no such host", "--port", "13999"], "no such host"),
    Case("submit --address not-a-url", lambda e: ["submit", e.campaign(), "--address", "not a url"], "--address"),
    # ---- init --from-darshan
    Case("init: not a Darshan file", lambda e: ["init", "--from-darshan", e.file("a.darshan", b"hello\n")], "a.darshan"),
    Case("init: zlib noise", lambda e: ["init", "--from-darshan", e.file("a.darshan", DARSHAN_LIKE)], "a.darshan"),
    Case("init: empty file", lambda e: ["init", "--from-darshan", e.file("a.darshan", b"")], "a.darshan"),
    Case("init: a campaign file", lambda e: ["init", "--from-darshan", e.campaign()], "c.yaml"),
    Case("init: missing file", lambda e: ["init", "--from-darshan", str(e.work / "no.darshan")], "no.darshan"),
    Case("init: a directory", lambda e: ["init", "--from-darshan", str(e.work)], "darshan log"),
    Case("init --trials 0", lambda e: ["init", "--from-darshan", e.file("a.darshan", b"x"), "--trials", "0"],
         "--trials"),
    Case("init -o existing file", lambda e: ["init", "--from-darshan", e.file("a.darshan", b"x"), "-o", e.campaign()],
         None),
    Case("init --nodes -1", lambda e: ["init", "--from-darshan", e.file("x.darshan", b"x"), "--nodes", "-1"], None),
    # ---- ask / tell / status / export on the tuned study (must not change what is stored)
    _study_case("tell --value nan", "nan", "tell", "{c}", "--trial", "{ref}", "--value", "nan"),
    _study_case("tell --value inf", "inf", "tell", "{c}", "--trial", "{ref}", "--value", "inf"),
    _study_case("tell --value=-inf", "-inf", "tell", "{c}", "--trial", "{ref}", "--value=-inf"),
    _study_case("tell --value 0 (not > 0)", "0", "tell", "{c}", "--trial", "{ref}", "--value", "0"),
    _study_case("tell without a value", "--value", "tell", "{c}", "--trial", "{ref}"),
    _study_case("tell --walltime on a bandwidth", "--walltime", "tell", "{c}", "--trial", "{ref}", "--walltime"),
    _study_case("tell --value 1e999", "1e999", "tell", "{c}", "--trial", "{ref}", "--value", "1e999"),
    _study_case("tell --value fast", "fast", "tell", "{c}", "--trial", "{ref}", "--value", "fast"),
    _study_case("tell --trial malformed", "--trial", "tell", "{c}", "--trial", "nonsense", "--value", "1"),
    _study_case("tell --trial unknown number", "99999", "tell", "{c}", "--trial", "hp:99999:" + "0" * 32, "--value", "1"),
    _study_case("tell --trial wrong token", "token", "tell", "{c}", "--trial", "hp:2:" + "f" * 32, "--value", "1"),
    _study_case("tell --trial of a finished trial", None, "tell", "{c}", "--trial", "hp:0:" + "0" * 32, "--value", "1"),
    _study_case("tell --exit-status x", "--exit-status", "tell", "{c}", "--trial", "{ref}", "--exit-status", "x"),
    _study_case("tell --timeout nan", "--timeout", "tell", "{c}", "--trial", "{ref}", "--value", "1", "--timeout", "nan"),
    _study_case("tell --output a directory", "--output", "tell", "{c}", "--trial", "{ref}", "--output", "{w}"),
    _study_case("tell --output /dev/zero", "/dev/zero", "tell", "{c}", "--trial", "{ref}", "--output", "/dev/zero"),
    _study_case("ask --explore 2", "--explore", "ask", "{c}", "--explore", "2"),
    _study_case("ask --explore nan", "--explore", "ask", "{c}", "--explore", "nan"),
    _study_case("ask --max-slowdown inf", "--max-slowdown", "ask", "{c}", "--max-slowdown", "inf"),
    _study_case("ask --expire -1h", "--expire", "ask", "{c}", "--expire", "-1h"),
    _study_case("ask --timeout nan", "--timeout", "ask", "{c}", "--timeout", "nan"),
    _study_case("tell --study that does not exist", "not found", "tell", "{c}", "--study", "ghost", "--trial",
                "ghost:0:" + "0" * 32, "--value", "1"),
    _study_case("status --within -5%", "--within", "status", "{c}", "--within", "-5%"),
    _study_case("status --study with a slash", "--study", "status", "{c}", "--study", "a/b"),
    _study_case("export --files ',,'", "--files", "export", "{c}", "--files", ",,"),
    _study_case("export --format xml", "--format", "export", "{c}", "--format", "xml"),
    _study_case("status --storage not a database", "not an Optuna database", "status", "{c}", "--storage", "sqlite:///{c}"),
    _study_case("export --storage ''", "--storage", "export", "{c}", "--storage", ""),
    _study_case("export --study ''", "--study", "export", "{c}", "--study", ""),
    _study_case("export --path ''", "--path", "export", "{c}", "--format", "lfs", "--path", ""),
    _study_case("status --within 'lots'", "--within", "status", "{c}", "--within", "lots"),
    _study_case("tune --trials -3 on the study", "--trials", "tune", "{c}", "--trials=-3"),
    _study_case("tune --repeats 1.5 on the study", "--repeats", "tune", "{c}", "--repeats", "1.5"),
    _study_case("tune --storage sqlite: on the study", "sqlite:", "tune", "{c}", "--storage", "sqlite:"),
    _study_case("check --config two '='", "--config", "check", "{c}", "--config", "mpiio.romio_cb_write=a=b"),
]
