# SPDX-License-Identifier: GPL-2.0-or-later
"""The simulated world's clock under the runtime model (--comm): real time
less the pauses the model takes while it computes.

Why: a LID choice for a 900-node job takes 10-30 real seconds. On a real
cluster that is seconds of a job of hours; at a compression of 70x it is
half an hour, longer than many jobs' whole run, and every job whose rate
waits for the model holds its nodes (docs/sim.md run 28: 26% of the
node-hours). So while the model computes, the world stops: slurmctld is
sent SIGSTOP (nothing starts or ends, as on a real cluster where the
choice takes seconds), the jobs' loops (advance.py) do not advance, and
the stream's next submission waits. Every time the report gives is taken
on this clock: real time minus the pauses before it.

advance.py, a separate process in each job, reads the file this clock
keeps: "PAUSED_SECONDS PAUSE_START" (the pauses that ended, summed, and
the start of the one under way, or -1), so that its virtual now is
now - PAUSED_SECONDS - (now - PAUSE_START if under way)."""

import bisect
import os
import signal
import threading
import time

from .common import log


class Clock:
    def __init__(self, path, pid_file=None):
        self.path = path                # the file advance.py reads
        self.pid_file = pid_file        # slurmctld's: stopped while paused
        self.lock = threading.Lock()
        self.starts = []                # real starts of the pauses, in order
        self.ends = []                  # and their real ends
        self.before = []                # paused seconds up to each end
        self.vstarts = []               # each pause's start, on this clock
        self.paused_at = None
        self.running = threading.Event()
        self.running.set()
        self.total = 0.0
        self.count = 0
        self.stopped = None             # the pid sent SIGSTOP
        self._write()

    def _write(self):
        with open(self.path + ".tmp", "w") as f:
            f.write("%.6f %.6f\n" % (self.total, -1.0 if self.paused_at is None
                                     else self.paused_at))
        os.replace(self.path + ".tmp", self.path)

    def _ctld(self):
        try:
            with open(self.pid_file) as f:
                return int(f.read().split()[0])
        except (OSError, ValueError, IndexError, TypeError):
            return None

    def pause(self):
        with self.lock:
            if self.paused_at is not None:
                return
            self.running.clear()
            pid = self._ctld() if self.pid_file else None
            if pid is not None:
                try:
                    os.kill(pid, signal.SIGSTOP)
                    self.stopped = pid
                except OSError as e:
                    log("could not stop slurmctld (%d) for the model: %s" % (pid, e))
            self.paused_at = time.time()
            self._write()

    def resume(self):
        with self.lock:
            if self.paused_at is None:
                return
            now = time.time()
            self.total += now - self.paused_at
            self.vstarts.append(self.paused_at - (self.before[-1] if self.before else 0.0))
            self.starts.append(self.paused_at)
            self.ends.append(now)
            self.before.append(self.total)
            self.count += 1
            self.paused_at = None
            # the file first: a job must not take the stop's seconds as work
            self._write()
            if self.stopped is not None:
                try:
                    os.kill(self.stopped, signal.SIGCONT)
                except OSError:
                    pass
                self.stopped = None
            self.running.set()

    def virtual(self, wall):
        """Real time `wall` on the world's clock (pauses before it taken
        out; a time inside a pause is that pause's start)."""
        with self.lock:
            i = bisect.bisect_right(self.ends, wall)
            v = wall - (self.before[i - 1] if i else 0.0)
            # inside pause i, or the one under way: its start
            start = self.starts[i] if i < len(self.starts) else self.paused_at
            if start is not None and wall > start:
                v -= wall - start
            return v

    def paused_since(self, v):
        """Real seconds the world stood still after `v` (this clock): what a
        job that started at v has lost to pauses in Slurm's eyes."""
        with self.lock:
            k = bisect.bisect_left(self.vstarts, v)
            return self.total - (self.before[k - 1] if k else 0.0)

    def paused_for(self):
        """Real seconds the pause under way has lasted (0: running)."""
        with self.lock:
            return 0.0 if self.paused_at is None else time.time() - self.paused_at

    def longest(self):
        """Real seconds of the longest stop that ended (0: none)."""
        with self.lock:
            return round(max((e - s for s, e in zip(self.starts, self.ends)), default=0.0), 1)

    def now(self):
        return self.virtual(time.time())

    def wait_until(self, v, stop):
        """Waits until the world's clock reaches `v` (true), or `stop` is set
        (false)."""
        while True:
            if not self.running.is_set():
                if stop.wait(0.05):
                    return False
                continue
            left = v - self.now()
            if left <= 0:
                return True
            if stop.wait(min(left, 0.2)):
                return False

    def close(self):
        self.resume()
        if self.count:
            log("the model stopped the world %d times, %.1f real s in all"
                % (self.count, self.total))
