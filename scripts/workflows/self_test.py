#!/usr/bin/python3
"""scripts/workflow-check.sh --self-test: the check must fail on broken workflows. Each case copies
.github/workflows to a temporary directory, breaks one thing, and runs `workflow-check.sh --dir` on the copy;
a case passes when the check fails and names the fault. A last case runs the shellcheck step's command on a script
with a warning. Ends with `workflow self-test: N passed, M failed`."""

import os
import shutil
import subprocess
import sys
import tempfile

root = sys.argv[1]
src = os.path.join(root, ".github", "workflows")

# (what is broken, file, text replaced, replacement, what the output must contain)
CASES = [
    ("YAML syntax", "ci.yml", "    name: docs (DocC)", "    name: docs: DocC", "could not parse as YAML"),
    ("needs names no job", "nightly.yml", "needs: [fuzz, differential, soak, bench]",
     "needs: [fuzz, differential, soak, benchmark]", "benchmark"),
    ("unbalanced expression", "nightly.yml", "FUZZ_HARNESSES: ${{ matrix.harness }}",
     "FUZZ_HARNESSES: ${{ matrix.harness }", "expression"),
    ("unknown key in a job", "ci.yml", "    timeout-minutes: 20\n", "    timeout-minute: 20\n", "timeout-minute"),
    ("job without runs-on", "ci.yml", "    name: docs (DocC)\n    runs-on: ubuntu-24.04\n",
     "    name: docs (DocC)\n", "runs-on"),
    ("shell error in a run block", "nightly.yml", 'run: IntegrationTests/nginx/module.sh --parts soak --soak 600',
     'run: IntegrationTests/nginx/module.sh --parts soak --soak $(( 600', "shellcheck"),
    ("action not pinned to a SHA", "ci.yml", "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1",
     "actions/checkout@v7", "not pinned"),
    ("script that does not exist", "nightly.yml", "run: scripts/nightly/minimize-crashes.sh",
     "run: scripts/nightly/minimise-crashes.sh", "does not exist"),
    (".ci/run stage that does not exist", "ci.yml", "run: .ci/run sanitizers", "run: .ci/run sanitiser",
     "no stage sanitiser"),
    (".ci/run stage without a job", "ci.yml", "      - run: .ci/run docs\n", "      - run: echo no docs\n",
     "no job runs the .ci/run stage docs"),
    ("make target that does not exist", "nightly.yml", "run: make bench", "run: make benchmark",
     "no target benchmark"),
    ("fuzz matrix missing a harness", "nightly.yml", "FuzzJSON, ", "", "is not Fuzz/harnesses"),
]

passed = failed = 0
# The workflows as they are must pass, or every case below would "fail" for a reason of its own.
p = subprocess.run([os.path.join(root, "scripts", "workflow-check.sh"), "--dir", src], capture_output=True, text=True)
if p.returncode == 0:
    passed += 1
    print("ok    the workflows as they are: pass")
else:
    failed += 1
    print(f"FAIL  the workflows as they are do not pass:\n{p.stdout}{p.stderr}")
for what, f, old, new, expect in CASES:
    with tempfile.TemporaryDirectory(prefix="jwtk-wf-") as tmp:
        for g in os.listdir(src):
            shutil.copy(os.path.join(src, g), tmp)
        text = open(os.path.join(tmp, f)).read()
        if old not in text:
            print(f"FAIL  {what}: the self-test's anchor is gone from {f}: {old!r}")
            failed += 1
            continue
        with open(os.path.join(tmp, f), "w") as h:
            h.write(text.replace(old, new, 1))
        p = subprocess.run([os.path.join(root, "scripts", "workflow-check.sh"), "--dir", tmp],
                           capture_output=True, text=True)
        out = p.stdout + p.stderr
        if p.returncode != 0 and expect in out:
            passed += 1
            print(f"ok    {what}: caught")
        else:
            failed += 1
            print(f"FAIL  {what}: exit {p.returncode}, {'named' if expect in out else 'did not name'} {expect!r}\n{out}")

# The called-script step: shellcheck at warning level on a script with an unused variable (SC2034).
with tempfile.TemporaryDirectory(prefix="jwtk-wf-") as tmp:
    bad = os.path.join(tmp, "bad.sh")
    with open(bad, "w") as h:
        h.write("#!/usr/bin/env bash\nunused=1\necho hi\n")
    p = subprocess.run(["shellcheck", "-S", "warning", bad], capture_output=True, text=True)
    if p.returncode != 0 and "SC2034" in p.stdout:
        passed += 1
        print("ok    a called script with a shellcheck warning: caught")
    else:
        failed += 1
        print(f"FAIL  a called script with a shellcheck warning: exit {p.returncode}\n{p.stdout}")

print(f"workflow self-test: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
