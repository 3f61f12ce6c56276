#!/usr/bin/python3
"""What actionlint cannot know about this project's workflows (.github/workflows/*.yml), checked by
scripts/workflow-check.sh after actionlint:

- every `uses:` of another repository is pinned to a full commit SHA (a tag can be moved to other code);
- every script a `run:` names (a path in this repository) exists and is executable; the paths are printed for
  shellcheck; every `make TARGET` names a target of the Makefile;
- every `.ci/run KEY...` names stages .ci/run has, and ci.yml runs every stage of .ci/run (a new stage without a
  job fails here);
- the nightly fuzz matrix is exactly Fuzz/harnesses.

    project_rules.py ROOT [WORKFLOW-DIR]     exit 1 on any finding; prints `script: PATH` for each script found
Uses Debian's python3-yaml (the system Python).
"""

import os
import re
import sys

import yaml

PINNED = re.compile(r"^[^@\s]+@[0-9a-f]{40}$")
# a repository path as a command word: starts with a known top-level directory or .ci/, ends a word
SCRIPT = re.compile(r"(?:^|[\s;&|(])(?:\./)?((?:\.ci|\.clusterfuzzlite|scripts|Fuzz|Benchmarks|IntegrationTests|gateways)"
                    r"/[A-Za-z0-9_./-]+)")
MAKE = re.compile(r"(?:^|[\s;&|(])make\s+((?:[a-z][a-z0-9-]*\s*)+)")
CI_RUN = re.compile(r"\.ci/run((?:[ \t]+[a-z0-9${}.-]+)*)")


def stage_keys(root):
    return set(re.findall(r"^if stage ([a-z0-9-]+) ", open(os.path.join(root, ".ci/run")).read(), re.M))


def steps(doc):
    for name, job in (doc.get("jobs") or {}).items():
        for step in (job or {}).get("steps") or []:
            yield name, job, step


def matrix_words(job, text):
    """`${{ matrix.x }}` in a run line expanded over the job's matrix values (each value may hold several words)."""
    m = re.search(r"\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}", text)
    if not m:
        return [text]
    values = (((job.get("strategy") or {}).get("matrix") or {}).get(m.group(1))) or []
    return [text.replace(m.group(0), str(v)) for v in values]


def check(root, wdir):
    problems, scripts, ci_keys_used = [], set(), set()
    keys = stage_keys(root)
    makefile = open(os.path.join(root, "Makefile")).read()
    docs = {}
    for f in sorted(os.listdir(wdir)):
        if not f.endswith((".yml", ".yaml")):
            continue
        path = os.path.join(wdir, f)
        try:
            docs[f] = yaml.safe_load(open(path)) or {}
        except yaml.YAMLError as e:
            problems.append(f"{f}: not YAML: {e}")
    for f, doc in docs.items():
        for job_name, job, step in steps(doc):
            where = f"{f}: job {job_name}"
            uses = step.get("uses")
            if uses and not uses.startswith(("./", "docker://")) and not PINNED.match(uses):
                problems.append(f"{where}: `uses: {uses}` is not pinned to a full commit SHA")
            run = step.get("run")
            if not run:
                continue
            for text in matrix_words(job, run):
                for p in SCRIPT.findall(text):
                    full = os.path.join(root, p)
                    if not os.path.isfile(full):
                        problems.append(f"{where}: runs {p}, which does not exist")
                    elif not os.access(full, os.X_OK):
                        problems.append(f"{where}: runs {p}, which is not executable")
                    else:
                        scripts.add(p)
                for m in MAKE.finditer(text):
                    for t in m.group(1).split():
                        if not re.search(rf"^{re.escape(t)}:", makefile, re.M):
                            problems.append(f"{where}: `make {t}`: the Makefile has no target {t}")
                for m in CI_RUN.finditer(text):
                    for k in m.group(1).split():
                        if k not in keys:
                            problems.append(f"{where}: `.ci/run {k}`: .ci/run has no stage {k}")
                        elif f == "ci.yml":
                            ci_keys_used.add(k)
    if "ci.yml" in docs:
        for k in sorted(keys - ci_keys_used):
            problems.append(f"ci.yml: no job runs the .ci/run stage {k}")
    else:
        problems.append("ci.yml: missing")
    nightly = docs.get("nightly.yml")
    if nightly is not None:
        harnesses = open(os.path.join(root, "Fuzz/harnesses")).read().split()
        fuzz = (nightly.get("jobs") or {}).get("fuzz") or {}
        listed = (((fuzz.get("strategy") or {}).get("matrix") or {}).get("harness")) or []
        if sorted(listed) != sorted(harnesses):
            problems.append(f"nightly.yml: the fuzz matrix {listed} is not Fuzz/harnesses {harnesses}")
    if os.path.exists(os.path.join(root, ".clusterfuzzlite/build.sh")):
        scripts.add(".clusterfuzzlite/build.sh")
    return problems, scripts


def main():
    root = sys.argv[1]
    wdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, ".github/workflows")
    problems, scripts = check(root, wdir)
    for s in sorted(scripts):
        print(f"script: {s}")
    for p in problems:
        print(f"FAIL {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
