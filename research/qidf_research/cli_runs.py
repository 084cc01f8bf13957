"""The real CLI in a child process, timed: what the cost studies measure (``bench_stats``,
``stats_scale``, ``predictor_cost``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

from qidf_research.paths import REPO as ROOT


def run_cli(url: str, args: list[str], command: str = "stats") -> dict[str, Any]:
    """Run ``qidf stats`` (or another command) as a child process; its wall time, peak RSS
    and JSON output.

    Output goes to files and the child is reaped with ``os.wait4``, which returns that one
    child's resource usage (RUSAGE_CHILDREN would be the maximum over all children so far).
    """
    cmd = [sys.executable, "-m", "qidf_ctl", command, *args, "--json"]
    env = {**os.environ, "QIDF_URL": url}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            raise RuntimeError(f"{' '.join(cmd)} failed: {err.read().decode()[-500:]}")
        payload = json.loads(out.read())
    return {"seconds": seconds, "rss_mib": usage.ru_maxrss / 1024,
            "cpu_s": usage.ru_utime + usage.ru_stime, "out": payload}
