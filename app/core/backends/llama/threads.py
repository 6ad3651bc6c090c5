"""How many threads llama.cpp gets (chosen by measurement)."""

from __future__ import annotations

import os

# Thread defaults, chosen by measurement: benchmarks/threads.py, SmolLM2-135M
# Q4_1, 2-vCPU shared VM (OpenMP build), 500-token prompt prefill and 200-token
# decode, alone and with a busy pure-Python thread standing in for the GUI.
# "GUI share" = the busy thread's progress relative to running alone; medians
# of 3 interleaved repeats; Python's default 5 ms GIL switch interval.
#
#   threads (n_threads = n_threads_batch)        1             2
#   quiet box     prefill 500 tok              5.3 s         3.1 s
#                   prefill with abort cb      5.1 s         2.4 s
#                 decode                    51.6 tok/s    63.0 tok/s
#   + busy GUI    prefill                      6.0 s         6.3 s
#                   GUI share / worst stall   0.83 / 4 ms   0.65 / 8 ms
#                   prefill with abort cb     11.3 s         8.1 s
#                 decode                    21.8 tok/s     6.8 tok/s
#                   GUI share / worst stall   0.67 / 12 ms  0.45 / 16 ms
#   box loaded by other processes (a concurrent pytest + pip run):
#                 prefill                      6.9 s        12.6 s
#                 decode                    39.4 tok/s     7.5 tok/s
#                 decode + busy GUI         12.8 tok/s     1.7 tok/s
#
# Two threads win only on an idle box (prefill 1.7x, decode 1.2x); with the
# GUI thread busy they give no prefill gain, 3x slower decode and a smaller GUI
# share, and under outside load they collapse (OpenMP threads spin-wait for a
# descheduled partner). So: 1 and 1 on <= 2 CPUs. On bigger machines (not
# measured here) use up to half the logical CPUs, at most 4, leaving the rest
# to the GUI.
#
# The "busy GUI" decode loss with 1 thread is the GIL, not the cores: every
# ctypes call in the token loop releases the GIL and may wait up to a switch
# interval to get it back. With sys.setswitchinterval(0.001) the same run gave
# decode 39.0 tok/s, GUI share 0.89, worst stall 2.6 ms, and prefill with the
# abort callback 6.8 s instead of 11.3 s.


def default_thread_counts(cpu_count: int | None = None) -> tuple[int, int]:
    """(n_threads, n_threads_batch) for this machine; see the table above."""
    cpus = cpu_count if cpu_count is not None else (os.cpu_count() or 1)
    if cpus <= 2:
        return 1, 1
    n = max(1, min(4, cpus // 2))
    return n, n




DEFAULT_N_THREADS, DEFAULT_N_THREADS_BATCH = default_thread_counts()
