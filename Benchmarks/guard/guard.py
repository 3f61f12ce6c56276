#!/usr/bin/env python3
"""The cost guard: instructions and heap allocations per verification, measured with callgrind, against the
committed thresholds in Benchmarks/thresholds.json. Run by Benchmarks/guard/run.sh, which builds what it measures.

    guard.py check  --bin DIR [--cells REGEX]    measure, compare, exit 1 if a cell is over its threshold
    guard.py update --bin DIR [--cells REGEX]    measure, rewrite the thresholds of the cells measured
    guard.py measure --bin DIR [--cells REGEX]   measure and print only
    guard.py self-test                           the checker on made-up measures (each excess must fail)

Cells (one per line of thresholds.json), every algorithm of the fixtures:
  swift/ALG/single|cached|required   the Swift API (JWTVerifier.verify(bytes) { view in }), as jwtk-compare's
                                     jwt-kernel cells (Benchmarks/instructions/main.swift)
  c/ALG/single|cached                jwtk_verify on the shipped libjwtk.so.0, the jwtk-c cells' C loop
                                     (Benchmarks/guard/jwtk_c.c around CBenchPeers/jwtk_c_driver.c)
  nginx/ALG/single                   ngx_http_jwtk_access_handler in the real nginx serving requests
                                     (Benchmarks/guard/nginx_cell.py)

Each figure is the difference of two runs, (cost(b verifications) - cost(a)) / (b - a), so start-up, key loading
and the first (cache-filling, memo-filling) verifications cancel out: what remains is the steady state. Instruction
counts under callgrind do not depend on load or on timing, so a handful of verifications are enough.

Measures per cell: `instructions`; `allocs`, calls of the C allocator not made by OpenSSL (jwt-kernel's own, the
module's, nginx's); `openssl_allocs`, those made inside OpenSSL (CRYPTO_malloc and friends: OpenSSL's cost, the
same for any caller of EVP_DigestVerify). A cell fails when instructions exceed threshold x (1 + tolerance), or
either allocation count exceeds its threshold (no tolerance: they are whole numbers). Tolerance: 2 % of the
threshold, at least 80 instructions (tolerance in thresholds.json).
"""

import argparse
import concurrent.futures
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import callgrind  # noqa: E402

THRESHOLDS = os.path.join(ROOT, "Benchmarks", "thresholds.json")
README = os.path.join(ROOT, "README.md")
FIXTURES = os.path.join(ROOT, "Benchmarks", "Fixtures")
ALGS = ["HS256", "RS256", "PS256", "ES256", "EdDSA"]
# (a, b) verifications per pair of runs: more for the cheap ones, where a cache hit or an HMAC costs little.
RUNS = {"HS256": (100, 600), "RS256": (20, 120), "PS256": (20, 120), "ES256": (10, 50), "EdDSA": (10, 50)}
CACHED = (100, 600)
COMMENT = ("Cost thresholds per verification, checked by Benchmarks/guard/run.sh in .ci/run; rewritten by "
           "`make thresholds-update` (docs/PERFORMANCE.md, Cost thresholds).")


def valgrind(out, argv, extra=()):
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *extra, *argv]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {p.returncode}\n{p.stdout}{p.stderr[-3000:]}")
    return callgrind.read(out)


def per_verification(pa, pb, a, b):
    n = b - a
    return {"instructions": round((pb.instructions - pa.instructions) / n),
            "allocs": round((pb.allocs - pa.allocs) / n, 2),
            "openssl_allocs": round((pb.openssl_allocs - pa.openssl_allocs) / n, 2)}


def swift_cell(bins, alg, mode, tmp):
    a, b = CACHED if mode == "cached" else RUNS[alg]
    exe = os.path.join(bins, "jwtk-instructions")
    prof = [valgrind(f"{tmp}/cg.{n}", [exe, alg, mode, str(n), FIXTURES]) for n in (a, b)]
    return per_verification(*prof, a, b)


def secret_jwks():
    import base64
    k = base64.urlsafe_b64encode(open(os.path.join(FIXTURES, "hs256.key"), "rb").read()).rstrip(b"=").decode()
    return json.dumps({"keys": [{"kty": "oct", "kid": "hs256-1", "alg": "HS256", "k": k}]})


def c_cell(bins, alg, mode, tmp):
    a, b = CACHED if mode == "cached" else RUNS[alg]
    meta = json.load(open(os.path.join(FIXTURES, "meta.json")))
    jwks = os.path.join(FIXTURES, "jwks.json")
    if alg == "HS256":  # as the jwtk-c cells: the service's secret as an oct JWK
        jwks = f"{tmp}/secret.json"
        with open(jwks, "w") as f:
            f.write(secret_jwks())
    config = json.dumps({"issuers": [meta["iss"]], "audiences": [meta["aud"]], "cache": mode == "cached"})
    token = os.path.join(FIXTURES, f"{alg.lower()}.jwt")
    exe = os.path.join(bins, "jwtk_c")
    lib = os.path.join(bins, "lib", "libjwtk.so.0")
    prof = [valgrind(f"{tmp}/cg.{n}", [exe, lib, jwks, config, token, str(meta["now"]), str(n)]) for n in (a, b)]
    return per_verification(*prof, a, b)


def nginx_cell(bins, alg, mode, tmp):
    import nginx_cell as ngx
    a, b = RUNS[alg]
    prof = [ngx.run(bins, alg, n, f"{tmp}/n{n}", secret_jwks()) for n in (a, b)]
    return per_verification(*prof, a, b)


def cells():
    out = {}
    for alg in ALGS:
        for mode in ("single", "cached", "required"):
            out[f"swift/{alg}/{mode}"] = (swift_cell, alg, mode)
    for alg in ALGS:
        for mode in ("single", "cached"):
            out[f"c/{alg}/{mode}"] = (c_cell, alg, mode)
    for alg in ALGS:
        out[f"nginx/{alg}/single"] = (nginx_cell, alg, "single")
    return out


def measure(bins, pattern, jobs):
    chosen = {k: v for k, v in cells().items() if re.search(pattern, k)}
    if not chosen:
        sys.exit(f"guard: no cell matches {pattern!r}")

    def one(item):
        name, (fn, alg, mode) = item
        with tempfile.TemporaryDirectory(prefix="jwtk-guard.") as tmp:
            os.chmod(tmp, 0o755)  # nginx reads its files under it
            return name, fn(bins, alg, mode, tmp)

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = dict(pool.map(one, chosen.items()))
    return {k: results[k] for k in chosen}


def host():
    """What the counts depend on besides the code: valgrind's emulated CPU and the OpenSSL build."""
    ssl = subprocess.run(["openssl", "version"], capture_output=True, text=True).stdout.strip()
    vg = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()
    return f"{platform.machine()}, {vg}, {ssl}"


def check(measured, doc):
    tol = doc["tolerance"]["instructions"]
    # A cache hit costs ~800 instructions and moves by up to ~45 between processes (796-841 seen for one cell: state
    # each process draws at random, not the loop), so a floor in instructions keeps the small cells from failing on
    # noise while 2 % of a big one stays tight.
    slack_min = doc["tolerance"].get("instructions_min", 0)
    failed = improved = 0
    print(f"{'cell':<22} {'instructions (measured / threshold)':>36} {'allocs':>9} {'OpenSSL allocs':>16}")
    for name, m in measured.items():
        t = doc["cells"].get(name)
        if t is None:
            print(f"{name:<22} {m['instructions']:>13,} (no threshold) {m['allocs']:>6} {m['openssl_allocs']:>8}")
            print(f"FAIL {name}: no threshold in {os.path.relpath(THRESHOLDS, ROOT)} (guard.py update)")
            failed += 1
            continue
        slack = max(t["instructions"] * tol, slack_min)
        limit = t["instructions"] + slack
        over = []
        if m["instructions"] > limit:
            over.append(f"instructions {m['instructions']:,} > threshold {t['instructions']:,} "
                        f"+ {int(slack):,} = {int(limit):,} (+{m['instructions'] / t['instructions'] - 1:.1%})")
        for k in ("allocs", "openssl_allocs"):
            if m[k] > t[k]:
                over.append(f"{k} {m[k]:g} > threshold {t[k]:g}")
        ratio = m["instructions"] / t["instructions"] - 1
        print(f"{name:<22} {m['instructions']:>10,} / {t['instructions']:>9,} {ratio:>+5.1%} "
              f"{m['allocs']:>6g} / {t['allocs']:<5g} {m['openssl_allocs']:>7g} / {t['openssl_allocs']:<6g}")
        for o in over:
            print(f"FAIL {name}: {o}")
        failed += bool(over)
        if not over and m["instructions"] < t["instructions"] - slack:
            improved += 1
    print(f"thresholds: {os.path.relpath(THRESHOLDS, ROOT)}, instructions tolerance {tol:.0%}, at least {slack_min}; "
          f"recorded on {doc.get('host', '?')}; here {host()}")
    if improved:
        print(f"guard: {improved} cell(s) more than {tol:.0%} under their threshold: lock the gain in with "
              "`make thresholds-update` and commit Benchmarks/thresholds.json")
    readme = 0
    if doc.get("host") != "self-test":
        stale = sync_readme(doc, write=False)
        readme = int(bool(stale))
        if stale:  # the README shows the thresholds; a threshold changed by hand leaves it behind
            print(f"FAIL README.md: the performance table's threshold columns differ from {os.path.relpath(THRESHOLDS, ROOT)} "
                  f"for {', '.join(stale)} (make thresholds-update rewrites both)")
    print(f"guard: {len(measured) - failed} passed, {failed + readme} failed")
    return failed + readme


def self_test():
    """The checker on made-up measures: each kind of excess must fail, a cell within its tolerance must pass."""
    doc = {"tolerance": {"instructions": 0.02, "instructions_min": 80}, "host": "self-test",
           "cells": {"a": {"instructions": 10000, "allocs": 0, "openssl_allocs": 12},
                     "b": {"instructions": 800, "allocs": 0, "openssl_allocs": 0}}}
    cases = [  # (measures, failures expected)
        ({"a": {"instructions": 10199, "allocs": 0, "openssl_allocs": 12}}, 0),   # within 2 %
        ({"a": {"instructions": 10201, "allocs": 0, "openssl_allocs": 12}}, 1),   # over 2 %
        ({"a": {"instructions": 9000, "allocs": 1, "openssl_allocs": 12}}, 1),    # one allocation of ours
        ({"a": {"instructions": 9000, "allocs": 0, "openssl_allocs": 13}}, 1),    # one more in OpenSSL
        ({"b": {"instructions": 880, "allocs": 0, "openssl_allocs": 0}}, 0),      # the 80-instruction floor
        ({"b": {"instructions": 881, "allocs": 0, "openssl_allocs": 0}}, 1),
        ({"c": {"instructions": 1, "allocs": 0, "openssl_allocs": 0}}, 1),        # a cell with no threshold
    ]
    bad = 0
    for measures, want in cases:
        got = check(measures, doc)
        if got != want:
            print(f"SELF-TEST FAILED: {measures}: {got} failure(s), expected {want}")
            bad += 1
    print(f"guard self-test: {len(cases) - bad} passed, {bad} failed")
    return bad


def update(measured, doc):
    for name, m in measured.items():
        doc["cells"][name] = m
    doc["cells"] = dict(sorted(doc["cells"].items(), key=lambda kv: order(kv[0])))
    doc["host"] = host()
    write(doc)
    stale = sync_readme(doc, write=True)
    if stale:
        print(f"guard: rewrote README.md's performance rows for {', '.join(stale)}")
    print(f"guard: wrote {len(measured)} cell(s) to {os.path.relpath(THRESHOLDS, ROOT)}")


def readme_rows(doc):
    """README.md's performance table, its threshold columns as the file says: {alg: [Swift, cache hit, C, nginx,
    allocations]}."""
    c = doc["cells"]
    rows = {}
    for alg in ALGS:
        try:
            rows[alg] = [f"{c[f'swift/{alg}/single']['instructions']:,}", f"{c[f'swift/{alg}/cached']['instructions']:,}",
                         f"{c[f'c/{alg}/single']['instructions']:,}", f"{c[f'nginx/{alg}/single']['instructions']:,}",
                         f"{whole(c[f'swift/{alg}/single']['allocs'])} / {whole(c[f'swift/{alg}/single']['openssl_allocs'])}"]
        except KeyError:
            pass
    return rows


def sync_readme(doc, write):
    """The README's table against the thresholds: rewritten (write) or the rows that differ returned."""
    lines = open(README).read().split("\n")
    stale = []
    for i, line in enumerate(lines):
        cells = line.split("|")
        if len(cells) == 9 and cells[1].strip() in readme_rows(doc):
            alg = cells[1].strip()
            want = [f" {v} " for v in readme_rows(doc)[alg]]
            if [x.strip() for x in cells[3:8]] != [x.strip() for x in want]:
                stale.append(alg)
                lines[i] = "|".join(cells[:3] + want + cells[8:])
    if write and stale:
        with open(README, "w") as f:
            f.write("\n".join(lines))
    return stale


def whole(x):
    return int(x) if float(x).is_integer() else x


def write(doc):
    """One line per cell, so a change of thresholds reads as a diff of the cells that moved."""
    lines = ["{"]
    for k in ("comment", "tolerance", "host"):
        lines.append(f" {json.dumps(k)}: {json.dumps(doc.get(k, ''))},")
    lines.append(' "cells": {')
    body = [f"  {json.dumps(name)}: {json.dumps({k: whole(v) for k, v in m.items()})}"
            for name, m in doc["cells"].items()]
    lines.append(",\n".join(body))
    lines += [" }", "}", ""]
    with open(THRESHOLDS, "w") as f:
        f.write("\n".join(lines))


def order(name):
    keys = list(cells())
    return keys.index(name) if name in keys else len(keys)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("action", choices=["check", "update", "measure", "self-test"])
    ap.add_argument("--bin", help="directory with jwtk-instructions, jwtk_c, lib/libjwtk.so.0 and the "
                    "nginx module (Benchmarks/guard/run.sh builds it)")
    ap.add_argument("--cells", default=".", help="regular expression on the cell names (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    doc = json.load(open(THRESHOLDS)) if os.path.exists(THRESHOLDS) else {
        "comment": COMMENT, "tolerance": {"instructions": 0.02, "instructions_min": 80}, "cells": {}}
    if args.action == "self-test":
        sys.exit(1 if self_test() else 0)
    if not args.bin:
        ap.error("--bin is required")
    measured = measure(os.path.abspath(args.bin), args.cells, args.jobs)
    if args.action == "update":
        update(measured, doc)
    elif args.action == "measure":
        print(json.dumps(measured, indent=1))
    else:
        sys.exit(1 if check(measured, doc) else 0)


if __name__ == "__main__":
    main()
