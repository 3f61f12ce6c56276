"""Instructions per request of Envoy's worker thread, listener by listener, from valgrind's callgrind: the work a
request costs, the same from run to run on a shared 2-core machine where req/s and CPU time move with the
neighbours' load (side_by_side.py --instructions N; docs/ENVOY.md, "Load").

One Envoy (--concurrency 1) under callgrind with one output file per thread (--separate-threads=yes), on the
bootstrap the load rows used. For each row: 20 requests to warm up, callgrind's counters zeroed
(callgrind_control -z), N requests on one keep-alive connection, a dump (callgrind_control -d); the row's count is
the dump's busiest thread, the worker (every request runs on it; the main thread only flushes stats), divided by
N. Everything the worker executes in user space is counted: HTTP parsing, the filter chain, the filters, the
answer, the syscall wrappers (not the kernel). Envoy's binary has no symbols but the dynamic-module callbacks; the
module and libjwtk have theirs, so callgrind_annotate on a row's file (callgrind.out.PART-THREAD in the work
directory; side_by_side.py run by hand with its own --work keeps them) shows the module's own share. Valgrind's
CPU model may lead OpenSSL and BoringSSL down other code paths than the real CPU does: the counts compare work,
not time.
"""
import glob
import os
import subprocess
import time

from envoy_process import Envoy
from support.keepalive import Client
from support.waiting import wait_for

WARM_UP = 20


class CallgrindEnvoy:
    """Envoy under callgrind on bootstrap; count() measures one listener."""

    def __init__(self, envoy_bin, module_dir, bootstrap, work, base_id):
        self.out = os.path.join(work, "callgrind.out")
        self.envoy = Envoy(envoy_bin, module_dir, bootstrap, os.path.join(work, "callgrind.json"),
                           os.path.join(work, "callgrind.log"), ["--concurrency", "1", "--base-id", str(base_id)],
                           wrapper=["valgrind", "--tool=callgrind", "--separate-threads=yes",
                                    f"--callgrind-out-file={self.out}"])
        self.part = 0

    def _control(self, flag):
        # callgrind_control answers once the guest has acted on the command (it polls a command file).
        subprocess.run(["callgrind_control", flag, str(self.envoy.pid)], capture_output=True, timeout=120)

    def _worker_total(self):
        """Ir of the busiest thread in dump number self.part, once every file of that dump is complete (callgrind
        writes a file's totals line last); 0 if none is after a minute."""
        pattern = f"{self.out}.{self.part}-*"
        totals = []

        def complete():
            totals.clear()
            for path in glob.glob(pattern):
                with open(path) as f:
                    last = [l for l in f if l.startswith("totals:") or l.startswith("summary:")]
                if not last:
                    return False
                totals.append(int(last[-1].split()[1]))
            return bool(totals)

        return max(totals) if wait_for(complete, 60, 0.5) else 0

    def count(self, port, tokens, n):
        """(instructions per request, the statuses of the n counted requests); request i sends the bearer token
        tokens[i % len(tokens)]."""
        c = Client(port)
        get = lambda i: c.get("/", token=tokens[i % len(tokens)], timeout=120)[0]
        for i in range(WARM_UP):
            get(i)
        self._control("-z")
        statuses = [get(WARM_UP + i) for i in range(n)]
        self._control("-d")
        self.part += 1
        return self._worker_total() / n, statuses

    def wait_up(self, probe, timeout=240):
        """True once probe() (a request through the filters) passes: under valgrind Envoy starts in about a minute."""
        return wait_for(probe, timeout, 1)

    def stop(self):
        return self.envoy.stop()


def table(a, cg, rows, check):
    """Counts each row (label, port, tokens) and prints the markdown table; check(name, ok, detail)."""
    print(f"\n| row (callgrind, {a.instructions} requests) | instructions per request |")
    print("|---|---:|")
    result = {}
    t0 = time.time()
    for label, port, tokens in rows:
        per, statuses = cg.count(port, tokens, a.instructions)
        result[label] = per
        check(f"instructions {label}: every answer 200", per > 0 and all(s == 200 for s in statuses),
              (per, sorted(set(statuses))))
        print(f"| {label} | {per / 1000:.1f}k |")
    print(f"\ninstructions: {len(rows)} rows counted in {time.time() - t0:.0f} s")
    return result
