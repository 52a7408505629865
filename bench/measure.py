"""Run a command and report its wall time and memory as JSON on stdout.

peak_rss_sum_kb: the largest sum of VmRSS over the command's whole process tree, sampled every ~1 ms
    from /proc (Linux). Short-lived processes can slip between samples, so it is a lower bound.
max_rss_kb: ru_maxrss of the biggest single process in the tree (exact, from the kernel's accounting).
cpu_ms: user + system CPU time of the whole tree once it has exited (the kernel's accounting, to the
    microsecond). The whole tree: this process is a child subreaper, so a descendant its parent left
    behind (a `relm run` exits without waiting for its kernel, which bubblewrap and the kernel's
    parent-death signal then end) is reaped here, its CPU with it, rather than by init, uncounted. It
    waits up to ORPHAN_WAIT seconds for them after the command exits (not part of wall_ms); one still
    running then (a daemon) is not counted.
peak_pss_sum_kb: the largest sum of PSS (proportional set size: shared pages divided among the processes
    sharing them) over the tree, sampled every ~25 ms; the fair figure for forked processes, whose RSS
    counts the pages they share with their template again and again.
"""
import ctypes
import json
import os
import resource
import subprocess
import sys
import threading
import time


def tree(pid):
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        seen.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return seen


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def pss_kb(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


ORPHAN_WAIT = 5.0
PR_SET_CHILD_SUBREAPER = 36


def reap_orphans():
    """Reaps the descendants reparented here until none is left or ORPHAN_WAIT has passed."""
    deadline = time.perf_counter() + ORPHAN_WAIT
    while time.perf_counter() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.001)


def drain(pipe, chunks):
    """Reads `pipe` to its end as it comes: the command is never held on a full pipe, and what it said is
    here whether or not a leftover of it keeps the pipe open past ORPHAN_WAIT."""
    while chunk := pipe.read1(1 << 16):
        chunks.append(chunk)


def main():
    cmd = sys.argv[1:]
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    # --no-poll: a single process measured by the kernel's accounting only, with no sampler competing for
    # the CPU (on two cores a 1 ms sampler slows down what it measures).
    poll = True
    if cmd and cmd[0] == "--no-poll":
        poll, cmd = False, cmd[1:]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    said = []
    reader = threading.Thread(target=drain, args=(proc.stderr, said), daemon=True)
    reader.start()
    peak = 0
    peak_pss = 0
    last_pss = 0.0
    while poll and proc.poll() is None:
        pids = tree(proc.pid)
        peak = max(peak, sum(rss_kb(p) for p in pids))
        if time.perf_counter() - last_pss > 0.025:
            peak_pss = max(peak_pss, sum(pss_kb(p) for p in pids))
            last_pss = time.perf_counter()
        time.sleep(0.001)
    proc.wait()
    wall = time.perf_counter() - start
    reap_orphans()
    # The end of the pipe, once every writer is gone; one still there past ORPHAN_WAIT is not waited for.
    reader.join(0.5)
    err = b"".join(said).decode(errors="replace")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"wall_ms": wall * 1000, "peak_rss_sum_kb": peak, "max_rss_kb": usage.ru_maxrss,
                      "peak_pss_sum_kb": peak_pss,
                      "cpu_ms": (usage.ru_utime + usage.ru_stime) * 1000,
                      "code": proc.returncode, "stderr": err[-2000:]}))


main()
