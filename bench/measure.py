"""Run a command and report its wall time and memory as JSON on stdout.

peak_rss_sum_kb: the largest sum of VmRSS over the command's whole process tree, sampled every ~1 ms
    from /proc (Linux). Short-lived processes can slip between samples, so it is a lower bound.
max_rss_kb: ru_maxrss of the biggest single process in the tree (exact, from the kernel's accounting).
"""
import json
import os
import resource
import subprocess
import sys
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


def main():
    cmd = sys.argv[1:]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, sum(rss_kb(p) for p in tree(proc.pid)))
        time.sleep(0.001)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"wall_ms": wall * 1000, "peak_rss_sum_kb": peak, "max_rss_kb": usage.ru_maxrss,
                      "code": proc.returncode, "stderr": err[-2000:]}))


main()
