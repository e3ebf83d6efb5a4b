# SPDX-License-Identifier: GPL-2.0-or-later
"""qftsim: the simulator behind contribs/sim/qft-sim.

Modules, in the order a run uses them: cli (options, the run), fabric (the
fabric and its Slurm node names), workload (synthetic streams, SWF),
cluster (the shared harness, contribs/slurm/harness.sh, and what Slurm
writes), replay (one policy: submissions, polling, collection), scoring
(qft score in batches, cached), runtime (--comm: the runtime model, its
live thread) and advance (the job's loop under it, run by the batch
script), metrics (per-policy figures), report (text, JSON, plots); common
holds the small helpers they share.
"""
