#!/usr/bin/env python3
"""envoy_test.py's whole pass (verdicts, challenges, claim headers, forged copies, the bearer corpus, hostile
input, RBAC on the metadata, counters, the verdict corpus) with the real Envoy under valgrind's memcheck, driven by
run.sh --memcheck:

    memcheck.py --envoy BIN --module-dir DIR --work DIR

envoy_test.py runs unchanged: its Envoy class is swapped for MemcheckEnvoy, which starts Envoy under memcheck and
returns once the admin port answers (envoy_test.py gives Envoy 20 s to load its keys; under memcheck the start
alone takes longer), and lets valgrind finish its leak check at the stop. The bad-configuration checks
(`envoy --mode validate`) run the plain binary. Then the valgrind log is read: every error whose stack has a frame
in the module (libjwtk_envoy.so) or libjwtk (libjwtk.so.0), and every "definitely lost" block allocated through
them, is a failure printed with its stack; Envoy's own reports are counted and listed by kind, not failed on.

Envoy's malloc is its own tcmalloc, exported from the binary, so the module's and libjwtk's malloc calls resolve
to it; --soname-synonyms=somalloc=NONE points memcheck's replacement at the binary's malloc family, so every
heap block (Envoy's included) is memcheck's and the module's and libjwtk's leaks and overruns are seen.
Ends with one line: memcheck: N passed, M failed
"""
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import envoy_test  # noqa: E402  (puts IntegrationTests on sys.path)
from envoy_process import Envoy  # noqa: E402
from support.processes import stop  # noqa: E402
from support.waiting import wait_for  # noqa: E402

# A frame is ours when it names our objects (frames without debug information: "(in .../libjwtk.so.0)") or our
# sources (with it, the object is not named; --fullpath-after= gives the whole source path): the module's C
# (gateways/envoy/) and libjwtk's Swift and C (Sources/).
OURS = ("libjwtk_envoy.so", "libjwtk.so", "/gateways/envoy/", "/Sources/")
VALGRIND_LOG = "valgrind.log"
STARTED = {}


class MemcheckEnvoy(Envoy):
    def __init__(self, envoy_bin, module_dir, bootstrap, conf_path, log_path, args, indent=None, wrapper=()):
        work = os.path.dirname(conf_path)
        STARTED["log"] = os.path.join(work, VALGRIND_LOG)
        t0 = time.time()
        super().__init__(envoy_bin, module_dir, bootstrap, conf_path, log_path, args, indent,
                         wrapper=["valgrind", "--tool=memcheck", "--track-origins=no", "--error-exitcode=99",
                                  "--soname-synonyms=somalloc=NONE", "--leak-check=full",
                                  "--show-leak-kinds=definite", "--errors-for-leak-kinds=definite",
                                  "--num-callers=40", "--fullpath-after=", f"--suppressions={os.path.join(HERE, 'memcheck.supp')}",
                                  f"--log-file={STARTED['log']}"])
        port = bootstrap["admin"]["address"]["socket_address"]["port_value"]
        up = wait_for(lambda: envoy_test.admin_get(port, "/ready")[0] == 200 or self.poll() is not None, 240, 1)
        STARTED["seconds"] = time.time() - t0
        print(f"envoy under memcheck: admin {'up' if up and self.poll() is None else 'NOT up'} in "
              f"{STARTED['seconds']:.0f} s")

    def stop(self):
        """SIGTERM, then up to 5 minutes for Envoy's exit and valgrind's leak check."""
        t0 = time.time()
        stop(self.proc, timeout=300)
        STARTED["stop_seconds"] = time.time() - t0
        self.log.close()
        return self.proc.returncode


def blocks(text):
    """The valgrind log's reports: lists of lines (the "==PID== " prefix removed), split at the blank ones."""
    out, cur = [], []
    for line in text.splitlines():
        body = re.sub(r"^==\d+== ?", "", line)
        if body.strip():
            cur.append(body)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


FRAME = re.compile(r"^\s+(at|by) 0x")
HEADER_NOT_ERROR = ("Memcheck,", "Copyright", "Using Valgrind", "Command:", "HEAP SUMMARY", "LEAK SUMMARY",
                    "ERROR SUMMARY", "For lists", "Rerun with", "Process terminating", "Parent PID",
                    "Warning:", "All heap blocks", "To see them", "in use at exit", "total heap usage",
                    "For counts", "definitely lost:", "indirectly lost:", "possibly lost:", "still reachable:",
                    "suppressed:")


def reports(text):
    """(kind, lines) for every error report and definitely-lost record in the log."""
    found = []
    for b in blocks(text):
        if not any(FRAME.match(l) for l in b):
            continue
        if re.match(r"Thread \d+:", b[0].strip()):
            b = b[1:]   # (which thread, printed before a report when it changed)
        head = b[0].strip()
        if "lost in loss record" in head or "still reachable in loss record" in head:
            if "definitely lost in loss record" not in head:
                continue   # (only with --show-leak-kinds beyond definite: possibly/indirectly lost, reachable)
        elif head.startswith(HEADER_NOT_ERROR):
            continue
        kind = re.sub(r"\d[\d,]*", "N", head.split(" at 0x")[0])
        found.append((kind, b))
    return found


def main():
    t0 = time.time()
    envoy_test.Envoy = MemcheckEnvoy
    tally_line = envoy_test.TALLY.line
    # envoy_test's own closing line reworded, so that only run.sh's summary reads "envoy: N passed".
    envoy_test.TALLY.line = lambda label: "under memcheck, " + tally_line(label)
    envoy_test.main()
    check = envoy_test.check
    path = STARTED.get("log")
    text = ""
    if path and os.path.exists(path):
        with open(path) as f:
            text = f.read()
    check("memcheck: valgrind ran and wrote its summary", "ERROR SUMMARY" in text, path)
    found = reports(text)
    ours = [(k, b) for k, b in found if any(o in l for l in b for o in OURS)]
    for kind, b in ours:
        print("--- valgrind report through the module or libjwtk:\n" + "\n".join(b))
    check("memcheck: no error and no definitely lost block through the module or libjwtk", not ours,
          f"{len(ours)} reports")
    kinds = {}
    for k, _ in found:
        kinds[k] = kinds.get(k, 0) + 1
    summary = re.findall(r"ERROR SUMMARY: .*", text)
    print(f"memcheck: {len(found)} reports in all, {len(ours)} through the module or libjwtk; "
          f"{summary[-1] if summary else 'no summary'}")
    for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {n} x {k}")
    print(f"memcheck times: envoy start {STARTED.get('seconds', 0):.0f} s, stop with leak check "
          f"{STARTED.get('stop_seconds', 0):.0f} s, whole pass {time.time() - t0:.0f} s")
    print(tally_line("memcheck"))


if __name__ == "__main__":
    main()
    sys.exit(1 if envoy_test.TALLY.failed else 0)
