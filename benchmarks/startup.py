"""CPU seconds of short ``sparrow`` commands, start-up included: ``--help``, ``score`` of one hand,
``analyze waits`` of one hand, ``review`` of a 16-hand game, and ``serve`` until its first ``/healthz``.

Each command runs as ``python -m server.cli …`` in a child process whose CPU time (user + system) is
measured (``resource.getrusage(RUSAGE_CHILDREN)``; the server's from ``/proc`` when ``/healthz`` first
answers). Each figure is the median of ``--repeat`` runs, after one warm-up run per command (it
compiles the byte-code, into a private directory, as a first run after installing would). The lookup
tables' cache file starts empty: the first ``score`` builds and writes it (printed on its own line),
and every later command loads it. The interpreter's own floor (``python -c pass``) is printed first.

With ``--against DIR`` the same commands also run on the checkout in ``DIR`` (e.g. ``git worktree add
/tmp/sparrow-main main``), in alternation with this one, in the same run, so both see the same machine.

    .venv/bin/python benchmarks/startup.py [--against DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
HAND = {  # tests/server/test_cli_score.py's hand
    "concealed": "123b 456c 789d 55d WWW",
    "melds": [],
    "bonus": "",
    "winning_tile": "W",
    "win_by": "wall",
    "seat_wind": "S",
    "round_wind": "E",
    "dealer": False,
}
_SERVE_WITHIN = 120.0  # seconds a server may take to answer /healthz on a very busy machine


class Checkout:
    """One source tree's ``sparrow``, run with its own directory first on the path, and its own caches."""

    def __init__(self, label: str, root: Path, scratch: Path) -> None:
        self.label, self.root = label, root
        self.scratch = scratch / label
        self.scratch.mkdir()
        self.env = {
            key: value for key, value in os.environ.items() if key not in ("PYTHONDONTWRITEBYTECODE", "SPARROW_DB")
        }
        self.env.update(
            PYTHONPATH=str(root),
            PYTHONPYCACHEPREFIX=str(scratch / "pycache"),  # byte-code kept between runs, outside the checkouts
            SPARROW_CACHE=str(self.scratch / "cache"),
            SPARROW_DATA=str(self.scratch / "data"),
        )

    def run(self, args: list[str], env: dict[str, str] | None = None) -> float:
        """CPU seconds of ``python -m server.cli ARGS`` (``-c …`` runs as given instead)."""
        command = [sys.executable, *args] if args[0] == "-c" else [sys.executable, "-m", "server.cli", *args]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            command, cwd=self.root, env=env or self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        if done.returncode != 0:
            raise SystemExit(f"{self.label}: {' '.join(args)} failed:\n{done.stderr.decode()}")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    def serve(self) -> float:
        """CPU seconds of ``sparrow serve`` from its start to its first ``/healthz`` answer."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        database = f"sqlite+aiosqlite:///{self.scratch / 'serve.db'}"
        command = [sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--db", database]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.Popen(command, cwd=self.root, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            seconds = _first_answer(proc, f"http://127.0.0.1:{port}/healthz")
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if seconds is None:  # no /proc: the whole run, stopping included
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return seconds


def _first_answer(proc: subprocess.Popen[bytes], url: str) -> float | None:
    """Wait for ``url`` to answer 200; the CPU seconds ``proc`` had used by then (None without /proc)."""
    deadline = time.monotonic() + _SERVE_WITHIN
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server stopped: {proc.stderr.read().decode() if proc.stderr else ''}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return _cpu_of(proc.pid)
        time.sleep(0.02)
    raise SystemExit(f"the server did not answer {url} within {_SERVE_WITHIN:g} s")


def _cpu_of(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, default=None, metavar="DIR", help="another checkout to run too")
    parser.add_argument("--repeat", type=int, default=5, help="runs per command and checkout (default 5)")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; load {_load()}")
    print(f"this: {HERE}" + (f"; against: {args.against.resolve()}" if args.against else ""))
    with tempfile.TemporaryDirectory(prefix="sparrow-startup-") as scratch:
        root = Path(scratch)
        checkouts = [Checkout("this", HERE, root)]
        if args.against is not None:
            checkouts.append(Checkout("against", args.against.resolve(), root))
        hand = root / "hand.json"
        hand.write_text(json.dumps(HAND), encoding="utf-8")
        game = root / "game.jsonl"
        play = ["play", "--bots", "strong,normal,greedy,easy", "--seed", "1", "--deals", "16", "--quiet"]
        checkouts[0].run([*play, "--log", str(game)], env={**checkouts[0].env, "SPARROW_CACHE": ""})
        commands = {
            "python -c pass": ["-c", "pass"],
            "sparrow --help": ["--help"],
            "sparrow score HAND": ["score", str(hand)],
            "sparrow analyze waits HAND": ["analyze", "waits", "123b 456c 789d 55d WW"],
            "sparrow review GAME (16 deals)": ["review", str(game), "--seat", "0"],
        }
        for c in checkouts:  # compile the byte-code once, with no cache file for the tables
            for words in commands.values():
                c.run(words, env={**c.env, "SPARROW_CACHE": ""})
        first = {c.label: c.run(commands["sparrow score HAND"]) for c in checkouts}
        _row("first `sparrow score` (builds the cache file)", [[first[c.label]] for c in checkouts], checkouts)
        for name, words in commands.items():
            runs: list[list[float]] = [[] for _ in checkouts]
            for _ in range(args.repeat):
                for i, c in enumerate(checkouts):
                    runs[i].append(c.run(words))
            _row(name, runs, checkouts)
        for c in checkouts:
            c.serve()  # the database is made and migrated: not part of a usual start
        runs = [[] for _ in checkouts]
        for _ in range(args.repeat):
            for i, c in enumerate(checkouts):
                runs[i].append(c.serve())
        _row("sparrow serve, to its first /healthz", runs, checkouts)


def _row(name: str, runs: list[list[float]], checkouts: list[Checkout]) -> None:
    cells = []
    for c, seconds in zip(checkouts, runs, strict=True):
        spread = f" ({min(seconds):.2f}–{max(seconds):.2f})" if len(seconds) > 1 else ""
        cells.append(f"{c.label} {statistics.median(seconds):.3f} s{spread}")
    ratio = ""
    if len(runs) == 2:
        ratio = f"  ratio {statistics.median(runs[0]) / statistics.median(runs[1]):.2f}"
    print(f"{name:<46} " + "   ".join(cells) + ratio, flush=True)


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
