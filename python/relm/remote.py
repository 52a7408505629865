"""A kernel started through the remote bootstrap (src/kernel/launchers/bootstrap.ts) on a machine where
relm is not installed: over ssh, in a container, as a Slurm step, or any `cmd:` wrapper.

The bootstrap has read relm's package from stdin and imports it from memory; this reads the settings
line that follows (workdir, environment, first execution count), makes the kernel's scratch directory
(its full outputs, snapshot files and handed-over pickles, which the host moves over the protocol: it
shares no disk with this machine), and runs the runner on the same stdin/stdout. The scratch directory
is removed when the kernel ends: by the keeper on Linux (even after a crash), else by the runner.
"""

import json
import os
import sys
import tempfile


def main(read):
    if sys.version_info < (3, 10):
        # Said while stderr is still the launcher's: later the runner takes fd 2 over, and an older
        # Python failed there without a word (3.6) or in every cell (3.7). Kept parseable by old Pythons.
        sys.stderr.write(
            "relm: the kernel needs Python 3.10+, and %s is Python %d.%d.%d: name another interpreter "
            "(?python=PATH in the kernel URI)\n" % ((sys.executable,) + tuple(sys.version_info[:3]))
        )
        sys.stderr.flush()
        os._exit(2)
    settings = json.loads(_line(read))
    for name, value in (settings.get("env") or {}).items():
        os.environ[str(name)] = str(value)
    workdir = settings.get("workdir")
    if workdir:
        try:
            os.chdir(os.path.expanduser(workdir))
        except OSError as e:
            sys.stderr.write(f"relm: cannot enter the kernel's workdir {workdir}: {e.strerror}\n")
            sys.stderr.flush()
            os._exit(2)
    scratch = tempfile.mkdtemp(prefix="relm-kernel-")
    from . import keeper

    keeper.split(scratch)
    from . import runner

    opts = {
        "output_dir": os.path.join(scratch, "outputs"),
        "first_count": int(settings.get("firstCount") or 1),
        "scratch": scratch,
        "build": settings.get("build"),
    }
    runner.serve(opts)


def _line(read):
    """One line from stdin, read a byte at a time: nothing after it may be taken from the protocol."""
    out = bytearray()
    while True:
        c = read(1)
        if c == b"\n":
            return out.decode("utf-8")
        out += c
