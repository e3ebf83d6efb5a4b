# SPDX-License-Identifier: GPL-2.0-or-later
"""A job's work under the runtime model (qft-sim --comm): the batch script
runs `python3 advance.py DIR NAME WORK` instead of `sleep WORK`.

It writes DIR/NAME.start ("real-start SLURM_JOB_NODELIST
SLURM_JOB_NUM_NODES"), then advances its WORK real seconds of work at the
rate the simulator publishes in DIR/NAME.rate ("rate t": that rate from
real time t on; rate 1 until the first one), reading it every TICK
seconds, and writes DIR/NAME.done ("real-start real-end") when the work is
done. A rate that applies from an earlier time than the job's last change
applies from that change: progress is piecewise linear in real time and
never goes back. Standalone (no qftsim import): it runs inside the job.

The job does not end before it has read a rate: the model publishes the
first one when it has taken the job's start in (with a LID choice, after
the job chose its offsets), dated back to the start. A model that lags
(choices of large jobs at a high compression) thus never lets a job run
its whole work at rate 1; the job holds its nodes instead, and the third
field of .done says for how many real seconds past its due end it held
them (the report sums it per policy: a figure of the model's lag, counted
against the policy that lags).

Its clock is the world's (qftsim/clock.py): when DIR/clock exists, real
time less the pauses the model took to compute, so a job does not advance
while the world is stopped; every time it writes is on that clock.
"""

import os
import sys
import time

TICK = 0.1


def write(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def read_rate(path):
    """(rate, t) from the simulator's file, or None."""
    try:
        with open(path) as f:
            r, t = f.read().split()[:2]
        r, t = float(r), float(t)
        return (r, t) if r > 0 else None
    except (OSError, ValueError):
        return None


def world_clock(directory):
    """now() on the world's clock: real time, less the model's pauses
    (DIR/clock: "PAUSED_SECONDS PAUSE_START", -1 when none is under way)."""
    path = os.path.join(directory, "clock")

    def now():
        t = time.time()
        try:
            with open(path) as f:
                paused, since = [float(x) for x in f.read().split()[:2]]
        except (OSError, ValueError):
            return t
        return t - paused - (t - since if 0 <= since < t else 0.0)
    return now


def advance(directory, name, work):
    clock = world_clock(directory)
    start = clock()
    write(os.path.join(directory, name + ".start"), "%.6f %s %s\n" % (
        start, os.environ.get("SLURM_JOB_NODELIST", "none"),
        os.environ.get("SLURM_JOB_NUM_NODES", "1")))
    rate_path = os.path.join(directory, name + ".rate")
    t_change, done_change, rate = start, 0.0, 1.0
    seen = None
    while True:
        got = read_rate(rate_path)
        if got is not None and got != seen:
            seen = got
            t = max(t_change, min(got[1], clock()))
            done_change += (t - t_change) * rate
            t_change, rate = t, got[0]
        now = clock()
        left = work - (done_change + (now - t_change) * rate)
        if left <= 0 and seen is not None:
            break
        time.sleep(TICK if left <= 0 else min(TICK, left / rate))
    end = clock()
    held = max(0.0, -left / rate)
    write(os.path.join(directory, name + ".done"), "%.6f %.6f %.3f\n" % (start, end, held))


if __name__ == "__main__":
    advance(sys.argv[1], sys.argv[2], float(sys.argv[3]))
