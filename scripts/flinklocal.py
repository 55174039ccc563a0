"""A real Flink cluster on loopback for beamcrawl: tests, CI and users share it.

``scripts/flink-local COMMAND`` (this file does the work):

- ``install``: Flink from PyPI (``apache-flink`` without its dependencies,
  which would replace apache-beam) and Beam's Flink job server from Maven
  Central, both cached under ``.cache/flink`` (``BEAMCRAWL_FLINK_CACHE``).
- ``start``: install if needed, then start a JobManager, a TaskManager with
  two slots and a Python worker pool (for ``--environment_type EXTERNAL``),
  all bound to 127.0.0.1; waits until the TaskManager has registered. What
  already runs is left running; without a live JobManager, what is left of
  the last cluster is stopped first, and a port another process holds is
  refused. Flink's working and blob directories are under ``run/scratch``,
  not /tmp, and emptied on start and stop.
- ``stop``: stop them, by the pids ``start`` recorded.
- ``status``: the pids, ports and whether each process is alive, as JSON.
- ``flags [--environment loopback|external]``: the Beam flags that run a
  beamcrawl command on this cluster, one per line.
- ``env``: the same as shell ``export`` lines (``BEAMCRAWL_FLINK_FLAGS``).

The Maven Central mirror here serves Beam's Flink runner but not its
packaged job server jar, so ``install`` builds that jar the way Beam does:
the runner and its dependencies shaded into one jar (Maven's shade plugin)
whose main class is Beam's ``FlinkJobServerDriver``. The runner and the
Python SDK must be the same Beam version: ``BEAM_VERSION`` below is the
installed apache-beam's, so the jar ``install`` builds and ``start``
runs (each version's under its own name) is always the SDK's. The mirror
serves Beam's Flink runner up to 2.62.0: CI runs the Flink tests with
2.62.0 installed, the oldest Beam pyproject.toml allows (.ci/run).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from importlib import metadata
from pathlib import Path
from typing import Any

FLINK_VERSION = "1.19.3"
FLINK_MINOR = "1.19"


def _installed_beam() -> str:
    try:
        return metadata.version("apache-beam")
    except metadata.PackageNotFoundError:
        return ""  # _check_beam_version says so


BEAM_VERSION = _installed_beam()
HOST = "127.0.0.1"
SLOTS = 2
READY_TIMEOUT_S = 120

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("BEAMCRAWL_FLINK_CACHE", ROOT / ".cache" / "flink"))
FLINK_HOME = CACHE / f"flink-{FLINK_VERSION}" / "pyflink"
JOB_SERVER_JAR = (
    CACHE / f"beam-runners-flink-{FLINK_MINOR}-job-server-{BEAM_VERSION}.jar"
)
CLUSTER_LIB_JAR = CACHE / f"beam-runners-flink-{FLINK_MINOR}-{BEAM_VERSION}-lib.jar"
RUN = Path(os.environ.get("BEAMCRAWL_FLINK_RUN", CACHE / "run"))
STATE = RUN / "state.json"
# Flink's working and blob directories (a TaskManager caches every job's
# 150 MB job server jar there): inside RUN, emptied on start and on stop
SCRATCH = RUN / "scratch"
SCRATCH_DIRS = {
    "io.tmp.dirs": SCRATCH / "io",
    "process.working-dir": SCRATCH / "work",
    "blob.storage.directory": SCRATCH / "blob",
}

POM = Path(__file__).resolve().parent / "flink-job-server" / "pom.xml"


class FlinkLocalError(Exception):
    """Something the user can fix; printed as one line."""


# --- install ---------------------------------------------------------------


def install() -> None:
    """Install Flink and build the job server jar, unless cached."""
    if not (FLINK_HOME / "bin" / "jobmanager.sh").exists():
        _say(f"installing Flink {FLINK_VERSION} from PyPI into {FLINK_HOME.parent}")
        CACHE.mkdir(parents=True, exist_ok=True)
        target = Path(tempfile.mkdtemp(dir=CACHE))
        _run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
             "--disable-pip-version-check", "--target", str(target),
             f"apache-flink=={FLINK_VERSION}",
             f"apache-flink-libraries=={FLINK_VERSION}"]
        )  # fmt: skip
        shutil.rmtree(FLINK_HOME.parent, ignore_errors=True)
        target.rename(FLINK_HOME.parent)
    if not JOB_SERVER_JAR.exists() or not CLUSTER_LIB_JAR.exists():
        _say(f"resolving Beam {BEAM_VERSION}'s Flink {FLINK_MINOR} runner from Maven")
        _build_jars()
    in_lib = FLINK_HOME / "lib" / CLUSTER_LIB_JAR.name
    if not in_lib.exists():
        shutil.copy(CLUSTER_LIB_JAR, in_lib)


def _build_jars() -> None:
    """The job server jar, and Beam's classes for the cluster's classpath.

    The job server is one shaded jar, as Beam's own job server jar is: it
    stages its classpath to the cluster with every job, and one jar uploads
    in about a second where its 160 dependency jars one by one took twelve.
    The cluster gets the same Beam classes in Flink's ``lib/`` (and loads
    classes parent-first, see ``_write_conf``): Beam then keeps a job's
    Python workers from one stage to the next instead of starting new ones
    for each, and the classes are loaded once per TaskManager, not per job.
    """
    CACHE.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(dir=CACHE))
    try:
        shutil.copy(POM, build / "pom.xml")
        _run(
            ["mvn", "-B", "-q", "-f", str(build / "pom.xml"), "package",
             f"-Dbeam.version={BEAM_VERSION}", f"-Dflink.minor={FLINK_MINOR}",
             f"-Dshaded.dir={build}"]
        )  # fmt: skip
        (build / "cluster-lib.jar").replace(CLUSTER_LIB_JAR)
        (build / "job-server.jar").replace(JOB_SERVER_JAR)
    finally:
        shutil.rmtree(build, ignore_errors=True)


# --- start / stop ----------------------------------------------------------


def start(rest_port: int, rpc_port: int, pool_port: int) -> dict[str, Any]:
    """Start what is not running yet and wait for the TaskManager.

    Without a live JobManager everything starts afresh: what is left of an
    earlier cluster (a worker pool still bound to its port would take some
    of the new cluster's workers) is stopped first. A start that fails
    stops what it started.
    """
    _check_beam_version()
    install()
    state = _state()
    if not _alive(state, "jobmanager"):
        _stop_processes(state)
        state = {"rest_port": rest_port, "rpc_port": rpc_port, "pool_port": pool_port}
        _check_port_is_free(pool_port, "--worker-pool-port")
        _check_port_is_free(rpc_port, "--rpc-port")
        shutil.rmtree(SCRATCH, ignore_errors=True)
        for directory in SCRATCH_DIRS.values():
            directory.mkdir(parents=True)
        _write_conf(rest_port, rpc_port)
    _check_port_is_ours(state)
    stale = set()
    started = []
    try:
        for name, command in _commands(state).items():
            if not _alive(state, name):
                if name == "taskmanager":  # those registered now are dead ones
                    stale = _taskmanager_ids(state)
                state[name] = _spawn(name, command)
                started.append(name)
                _save(state)
        _wait_until_ready(state, stale)
    except BaseException:
        _stop_processes({name: state[name] for name in started})
        raise
    return status()


def _commands(state: dict[str, Any]) -> dict[str, list[str]]:
    flink_bin = FLINK_HOME / "bin"
    return {
        "jobmanager": [str(flink_bin / "jobmanager.sh"), "start-foreground"],
        "taskmanager": [str(flink_bin / "taskmanager.sh"), "start-foreground"],
        "worker_pool": [
            sys.executable, "-m", "apache_beam.runners.worker.worker_pool_main",
            "--service_port", str(state["pool_port"]),
        ],
    }  # fmt: skip


def _spawn(name: str, command: list[str]) -> int:
    log_dir = RUN / "log"
    log_dir.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        FLINK_CONF_DIR=str(RUN / "conf"),
        FLINK_LOG_DIR=str(log_dir),
        FLINK_PID_DIR=str(RUN),
        # Beam's worker pool starts workers as plain `python`: make it ours
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    with open(log_dir / f"{name}.out", "ab") as out:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # outlives this command; stopped by pid
        )
    return process.pid


def _write_conf(rest_port: int, rpc_port: int) -> None:
    """Flink's own conf/, with config.yaml for one machine on loopback."""
    conf = RUN / "conf"
    shutil.rmtree(conf, ignore_errors=True)
    shutil.copytree(FLINK_HOME / "conf", conf)
    shipped = (FLINK_HOME / "conf" / "config.yaml").read_text()
    java_opts = re.search(r"^\s+all:\s*(.+)$", shipped, re.MULTILINE)
    settings = {
        "env.java.opts.all": java_opts.group(1) if java_opts else "",
        "jobmanager.bind-host": HOST,
        "jobmanager.rpc.address": HOST,
        "jobmanager.rpc.port": rpc_port,
        "jobmanager.memory.process.size": "1024m",
        "jobmanager.execution.failover-strategy": "region",
        "taskmanager.bind-host": HOST,
        "taskmanager.host": HOST,
        "taskmanager.numberOfTaskSlots": SLOTS,
        # Beam's runner holds up to 100 messages of a Python worker's output
        # per running stage (BeamFnDataInboundObserver's queue) and the
        # Python SDK sends 10 MB messages: a stage whose output outruns the
        # next one holds up to 1 GB of task heap, whatever the crawldb's size
        # (a 10M-URL generate ran out of the 765 MB a 3 GB TaskManager has);
        # one such stream per slot, and the rest as it was
        "taskmanager.memory.task.heap.size": "2560m",
        "taskmanager.memory.managed.size": "640m",
        # an OutOfMemoryError ends the TaskManager and so fails the job in
        # seconds; Flink's default logs it and the job hangs, its stages
        # waiting for a thread that died
        "taskmanager.jvm-exit-on-oom": True,
        # Beam's Fn API (gRPC over netty) streams elements to the Python
        # workers through direct buffers: Flink's default of no task
        # off-heap memory ends a 10,000-page fetch in "Direct buffer memory"
        "taskmanager.memory.task.off-heap.size": "512m",
        # a job of many shuffles (generate, readseg --dump) runs many blocking
        # partitions at once, each taking sort-shuffle's minimum of buffers:
        # more network memory than Flink's default 64 MB, a smaller minimum
        "taskmanager.memory.network.min": "384mb",
        "taskmanager.memory.network.max": "384mb",
        "taskmanager.network.sort-shuffle.min-buffers": 128,
        "rest.address": HOST,
        "rest.bind-address": HOST,
        "rest.port": rest_port,
        "parallelism.default": 1,
        # a lost TaskManager fails its job in seconds, not after 50 s
        "heartbeat.interval": 1000,
        "heartbeat.timeout": 5000,
        "restart-strategy.type": "none",
        # Beam's classes are in lib/ (see _build_jars); the job's own copy of
        # them (the staged job server jar) must not be preferred over those
        "classloader.resolve-order": "parent-first",
        # not java.io.tmpdir: a killed TaskManager's directory would stay
        # there, and each holds every job's jar until the cleanup below
        **{key: str(directory) for key, directory in SCRATCH_DIRS.items()},
        # a finished job's jar leaves the TaskManager's cache after 30 s, not
        # an hour: a test session runs some forty jobs of 150 MB each
        "blob.service.cleanup.interval": 30,
    }
    (conf / "config.yaml").write_text(
        "".join(f"{key}: {json.dumps(value)}\n" for key, value in settings.items())
    )


def _wait_until_ready(state: dict[str, Any], stale: set[str]) -> None:
    """Wait for a TaskManager, and for the JobManager to drop ``stale`` ones.

    A TaskManager killed a moment ago stays registered until its heartbeat
    times out; a job scheduled on its slots would fail.
    """
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        for name in ("jobmanager", "taskmanager", "worker_pool"):
            if not _stays_alive(state, name):
                log = RUN / "log" / f"{name}.out"
                raise FlinkLocalError(f"{name} exited during start; see {log}")
        registered = _taskmanager_ids(state)
        if registered and not registered & stale:
            return
        time.sleep(0.5)
    raise FlinkLocalError(
        f"no TaskManager registered in {READY_TIMEOUT_S} s ({_rest(state)})"
    )


def _stays_alive(state: dict[str, Any], name: str) -> bool:
    """``_alive``, asked three times over a second before it counts as dead.

    Flink's start scripts exec java in the process they started as; a look
    at ``/proc`` in the middle of that exec can miss the process.
    """
    for _ in range(3):
        if _alive(state, name):
            return True
        time.sleep(0.5)
    return False


def _taskmanager_ids(state: dict[str, Any]) -> set[str]:
    listed = _get_json(f"{_rest(state)}/taskmanagers") or {}
    return {tm["id"] for tm in listed.get("taskmanagers", [])}


def _rest(state: dict[str, Any]) -> str:
    return f"http://{HOST}:{state.get('rest_port', 8081)}"


def stop() -> None:
    """Stop every recorded process by its pid: TERM, then KILL after 20 s."""
    _stop_processes(_state())
    if STATE.exists():
        STATE.unlink()
    shutil.rmtree(SCRATCH, ignore_errors=True)


def _stop_processes(state: dict[str, Any]) -> None:
    names = [n for n in ("taskmanager", "jobmanager", "worker_pool") if n in state]
    signalled = [state[name] for name in names if _alive(state, name)]
    for pid in signalled:
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    for pid in signalled:
        while not _exited(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not _exited(pid):
            os.kill(pid, signal.SIGKILL)
    for pid in signalled:  # a SIGKILL, too, takes its threads a moment
        while not _exited(pid) and time.monotonic() < deadline + 10:
            time.sleep(0.1)


def _exited(pid: int) -> bool:
    """Has every thread of ``pid`` ended (its ports and files closed)?

    The main thread of an exiting process turns zombie before the others
    have ended: a port can be held a moment after the process "died".
    """
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for thread in threads:
        try:
            stat = Path(f"/proc/{pid}/task/{thread}/stat").read_text()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
            return False
    return True


def _check_port_is_free(port: int, flag: str) -> None:
    """Refuse a port another process listens on (gRPC shares ports silently)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # past TIME_WAIT connections of a stopped cluster, still refused by
        # a listener (one without SO_REUSEPORT on its side too)
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            raise FlinkLocalError(
                f"{HOST}:{port} is in use by another process; stop it or choose {flag}"
            ) from None


# --- status and flags ------------------------------------------------------


def status() -> dict[str, Any]:
    """The recorded processes, whether each is alive, and the REST overview."""
    state = _state()
    processes = {
        name: {"pid": state[name], "alive": _alive(state, name)}
        for name in ("jobmanager", "taskmanager", "worker_pool")
        if name in state
    }
    rest = _rest(state)
    return {
        "flink_version": FLINK_VERSION,
        "beam_version": BEAM_VERSION,
        "flink_home": str(FLINK_HOME),
        "job_server_jar": str(JOB_SERVER_JAR),
        "rest": rest,
        "worker_pool": f"{HOST}:{state.get('pool_port', 50000)}",
        "processes": processes,
        "overview": _get_json(f"{rest}/overview") if processes else None,
    }


def flags(environment: str) -> list[str]:
    """Beam flags for a beamcrawl command on this cluster."""
    state = _state()
    result = [
        "--runner=FlinkRunner",
        f"--flink_master={HOST}:{state.get('rest_port', 8081)}",
        f"--flink_version={FLINK_MINOR}",
        f"--flink_job_server_jar={JOB_SERVER_JAR}",
        f"--parallelism={SLOTS}",
    ]
    if environment == "external":
        return [
            *result,
            "--environment_type=EXTERNAL",
            f"--environment_config={HOST}:{state.get('pool_port', 50000)}",
            f"--sdk_worker_parallelism={SLOTS}",
        ]
    return [*result, "--environment_type=LOOPBACK"]


# --- helpers ---------------------------------------------------------------


def _check_beam_version() -> None:
    installed = _installed_beam()
    if not installed:
        raise FlinkLocalError(
            f"apache-beam is not installed for {sys.executable}; "
            "run this inside beamcrawl's virtual environment"
        )


def _check_port_is_ours(state: dict[str, Any]) -> None:
    if _alive(state, "jobmanager"):
        return
    if _get_json(f"{_rest(state)}/overview") is not None:
        raise FlinkLocalError(
            f"something else answers on {HOST}:{state['rest_port']}; "
            "stop it or choose --rest-port"
        )


def _state() -> dict[str, Any]:
    if not STATE.exists():
        return {}
    loaded: dict[str, Any] = json.loads(STATE.read_text())
    return loaded


def _save(state: dict[str, Any]) -> None:
    RUN.mkdir(parents=True, exist_ok=True)
    STATE.write_text(json.dumps(state, indent=2))


def _alive(state: dict[str, Any], name: str) -> bool:
    """Is the recorded process still running (and not a reused pid)?"""
    pid = state.get(name)
    if not pid:
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    zombie = stat.rsplit(")", 1)[1].split()[0] == "Z"
    if zombie:
        return False
    if not cmdline:  # in the middle of an exec: the pid is still the process's
        return True
    marker = b"worker_pool_main" if name == "worker_pool" else b"flink"
    return marker in cmdline


def _get_json(url: str) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            loaded: dict[str, Any] = json.load(response)
            return loaded
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _run(command: list[str]) -> None:
    """Run an install step; its output is shown only when it fails."""
    try:
        subprocess.run(command, check=True, capture_output=True, text=True)
    except FileNotFoundError:
        raise FlinkLocalError(f"{command[0]} is not installed") from None
    except subprocess.CalledProcessError as exc:
        sys.stderr.write((exc.stdout or "")[-4000:] + (exc.stderr or "")[-4000:])
        raise FlinkLocalError(
            f"{command[0]} failed with exit {exc.returncode}"
        ) from None


def _say(message: str) -> None:
    print(f"flink-local: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run one command; a problem prints one line and exits 2."""
    parser = argparse.ArgumentParser(
        prog="flink-local", description=__doc__.split("\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("install", help="install Flink and the job server")
    starting = commands.add_parser("start", help="start the cluster")
    starting.add_argument("--rest-port", type=int, default=8081)
    starting.add_argument("--rpc-port", type=int, default=6123)
    starting.add_argument("--worker-pool-port", type=int, default=50000)
    commands.add_parser("stop", help="stop the cluster")
    commands.add_parser("status", help="processes and overview as JSON")
    for name in ("flags", "env"):
        sub = commands.add_parser(name, help=f"Beam flags ({name})")
        sub.add_argument(
            "--environment", choices=("loopback", "external"), default="loopback"
        )
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            _check_beam_version()
            install()
        elif args.command == "start":
            started = start(args.rest_port, args.rpc_port, args.worker_pool_port)
            print(json.dumps(started, indent=2))
        elif args.command == "stop":
            stop()
        elif args.command == "status":
            print(json.dumps(status(), indent=2))
        elif args.command == "flags":
            print("\n".join(flags(args.environment)))
        else:
            print(f"export FLINK_HOME={FLINK_HOME}")
            print(f"export BEAMCRAWL_FLINK_FLAGS='{' '.join(flags(args.environment))}'")
    except FlinkLocalError as exc:
        print(f"flink-local: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
