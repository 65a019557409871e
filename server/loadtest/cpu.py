"""CPU and memory figures for ``sparrow loadtest``: the server's and the load client's own, sampled
with psutil, and the client's event-loop lag (if the client is late, latency is the client's).
"""

from __future__ import annotations

import asyncio
import time

import psutil  # type: ignore[import-untyped]  # no stubs in the pinned dependencies

__all__ = ["Sampler", "listener", "process", "speed_probe"]


def speed_probe() -> float:
    """Seconds one core of this machine takes, now, for a fixed piece of pure-Python work: the probe
    docs/benchmarks.md gives beside each load test's figures, ``sum(i * i for i in
    range(10**7))``. A virtual machine's cores run at different speeds from hour to hour; runs of the
    load test compare fairly only at similar figures.
    """
    started = time.perf_counter()
    sum(i * i for i in range(10**7))
    return time.perf_counter() - started


def listener(port: int) -> int | None:
    """The PID of the process listening on ``port`` here, if it can be seen."""
    try:
        for conn in psutil.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
                return int(conn.pid)
    except (psutil.Error, OSError):
        return None
    return None


def process(pid: int | None) -> psutil.Process | None:
    try:
        return None if pid is None else psutil.Process(pid)
    except psutil.Error:
        return None


class Sampler:
    """CPU (percent of one core) and RSS of the server and of this client, sampled once a second.

    ``timeline`` keeps every sample's time and both processes' CPU seconds, so that a stretch of the
    run can be told apart: on a virtual machine the same play may take half as much CPU again for
    tens of seconds while the host is busy (docs/benchmarks.md, "Live tables: the machine's speed").
    """

    def __init__(self, server: psutil.Process | None, me: psutil.Process) -> None:
        self.procs = {"server": server, "client": me}
        self.start = {k: self._cpu(p) for k, p in self.procs.items()}
        self.last = dict(self.start)
        self.t0 = self.t = time.perf_counter()
        self.peak: dict[str, float] = {k: 0.0 for k in self.procs}
        self.recent: dict[str, float] = {k: 0.0 for k in self.procs}
        self.rss: dict[str, list[int]] = {k: [] for k in self.procs}
        self.busy0 = self.busy = self._busy()  # every process on the machine, in CPU seconds
        self.steal0 = self.steal = self._steal()  # CPU seconds the hypervisor gave to other machines
        self.lags: list[float] = []  # this client's event-loop lag, seconds
        self.timeline: list[tuple[float, float, float]] = [(self.t, self.start["server"], self.start["client"])]
        # The server's child processes (the SQLite journal's writer): their CPU seconds since the start.
        self.helpers = 0.0
        self._helpers: dict[int, float] = {}  # pid → its CPU seconds when last sampled
        self._sample_helpers()
        self.helpers = 0.0

    @staticmethod
    def _busy() -> float:
        times = psutil.cpu_times()
        return float(sum(times) - times.idle - getattr(times, "iowait", 0.0))

    @staticmethod
    def _steal() -> float:
        return float(getattr(psutil.cpu_times(), "steal", 0.0))  # (Linux only)

    async def watch_loop(self) -> None:
        """Record how late a 50 ms sleep wakes up: the client's own event-loop lag."""
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(0.05)
            self.lags.append(loop.time() - before - 0.05)

    @staticmethod
    def _cpu(proc: psutil.Process | None) -> float:
        if proc is None:
            return 0.0
        try:
            times = proc.cpu_times()
        except psutil.Error:
            return 0.0
        return float(times.user + times.system)

    def sample(self) -> None:
        """Take one sample of each process."""
        now = time.perf_counter()
        for key, proc in self.procs.items():
            if proc is None:
                continue
            cpu = self._cpu(proc)
            if now - self.t >= 0.5:  # shorter spans are mostly the 10 ms granularity of CPU times
                self.recent[key] = 100 * (cpu - self.last[key]) / (now - self.t)
                self.peak[key] = max(self.peak[key], self.recent[key])
            self.last[key] = cpu
            try:
                self.rss[key].append(proc.memory_info().rss)
            except psutil.Error:
                pass
        self._sample_helpers()
        self.busy = self._busy()
        self.steal = self._steal()
        self.t = now
        self.timeline.append((now, self.last["server"], self.last["client"]))

    def between(self, start: float, end: float) -> tuple[float, float, float, float] | None:
        """Over the samples taken from ``start`` to ``end`` (perf_counter): the first's and the last's
        times, and the server's and the client's CPU seconds between them. None when they span less
        than half a second.
        """
        inside = [s for s in self.timeline if start <= s[0] <= end]
        if len(inside) < 2 or inside[-1][0] - inside[0][0] < 0.5:
            return None
        (t0, server0, client0), (t1, server1, client1) = inside[0], inside[-1]
        return t0, t1, server1 - server0, client1 - client0

    def _sample_helpers(self) -> None:
        server = self.procs["server"]
        if server is None:
            return
        try:
            children = server.children(recursive=True)
        except psutil.Error:
            return
        for child in children:
            cpu = self._cpu(child)
            before = self._helpers.get(child.pid, cpu)  # one first seen counts from then
            self.helpers += max(0.0, cpu - before)
            self._helpers[child.pid] = cpu

    def helpers_average(self) -> float:
        """Average CPU of the server's child processes over the run, in percent of one core."""
        return 100 * self.helpers / max(self.t - self.t0, 1e-9)

    def machine(self) -> float:
        """CPU use of the whole machine over the run, in percent of one core."""
        return 100 * (self.busy - self.busy0) / max(self.t - self.t0, 1e-9)

    def stolen(self) -> float:
        """CPU time the hypervisor gave to other virtual machines over the run, in percent of one core."""
        return 100 * (self.steal - self.steal0) / max(self.t - self.t0, 1e-9)

    def average(self, key: str) -> float:
        """Average CPU of ``server`` or ``client`` over the run, in percent of one core."""
        return 100 * (self.last[key] - self.start[key]) / max(self.t - self.t0, 1e-9)
