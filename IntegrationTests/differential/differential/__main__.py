"""Entry point: python -m differential [--ci | --tokens N --seed S] --jwtk PATH"""
import argparse
import json
import math
import os
import sys
import time

from . import fixtures, oracle_joserfc, oracle_jwtk, oracle_pyjwt
from .analysis import analyse
from .cases import CONTROL, Case, make_cases
from .classifier import RULES, Outcome, classify, is_failure
from .keys import KeyPool
from .mutations import load_all
from .policies import KEY_SPECS, build_policies
from .report import Report

CI_SEED, CI_TOKENS = 20261123, 3000
# Every algorithm jwt-kernel verifies (README "Algorithms").
JWTK_ALGS = {"HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
             "ES256", "ES384", "ES512", "ES256K", "EdDSA", "Ed25519", "Ed448"}
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_policy(jwtk: str, policy, cases: list[Case], report: Report, dump=None) -> None:
    tokens = [c.token for c in cases]
    verdicts = zip(oracle_jwtk.verify_batch(jwtk, policy, tokens), oracle_pyjwt.verify_batch(policy, tokens),
                   oracle_joserfc.verify_batch(policy, tokens))
    for case, (a, b, c) in zip(cases, verdicts):
        o = Outcome(analyse(case.token), policy, a, b, c)
        label = classify(o)
        report.add(case, o, label, is_failure(o, label))
        if dump:
            dump.write(json.dumps({"id": case.id, "mutation": case.mutation, "detail": case.detail,
                                   "resigned": case.resigned, "label": label, "jwtk": o.jwtk.short(),
                                   "pyjwt": o.pyjwt.short(), "joserfc": o.joserfc.short(), "token": case.token}) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="differential", description=__doc__)
    ap.add_argument("--jwtk", required=True, help="path to the jwtk binary")
    ap.add_argument("--ci", action="store_true", help=f"fixed-seed subset (seed {CI_SEED}, {CI_TOKENS} tokens)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tokens", type=int, default=CI_TOKENS)
    ap.add_argument("--show", type=int, default=5, help="failing cases printed per class")
    ap.add_argument("--save-failures", metavar="DIR", help="write each failing case as a fixture file")
    ap.add_argument("--dump", metavar="FILE", help="write every case and its verdicts as JSON lines")
    args = ap.parse_args(argv)
    seed, total = (CI_SEED, CI_TOKENS) if args.ci else (args.seed, args.tokens)

    started = time.monotonic()
    per_copy = len(KEY_SPECS) * 120
    copies = max(1, math.ceil(total / per_copy))
    pool = KeyPool(seed)
    policies = build_policies(seed, pool, copies)
    per_policy = max(1, math.ceil(total / len(policies)))
    print(f"differential: seed {seed}, {len(policies)} policies x {per_policy} tokens, jwtk {args.jwtk}", flush=True)

    report = Report()
    dump = open(args.dump, "w") if args.dump else None
    algs, mutations = set(), set()
    for policy in policies:
        cases = make_cases(seed, [policy], per_policy)
        algs.update(c.alg for c in cases)
        mutations.update(c.mutation for c in cases)
        run_policy(args.jwtk, policy, cases, report, dump)

    for doc, policy in fixtures.load(os.path.join(HERE, "fixtures")):
        case = Case(policy.name, policy, "fixture", doc["name"], True, "", doc["token"])
        run_policy(args.jwtk, policy, [case], report, dump)

    if args.save_failures:
        os.makedirs(args.save_failures, exist_ok=True)
        for i, (label, case, o) in enumerate(report.failures):
            fixtures.save(os.path.join(args.save_failures, f"{i:04d}-{label}.json"), case.id, label, case.token,
                          case.policy, {"jwtk": o.jwtk.short(), "pyjwt": o.pyjwt.short(), "joserfc": o.joserfc.short()})

    report.print(args.show, args.jwtk)
    all_mutations = {m.name for m in load_all()} | {CONTROL}
    missing = sorted((JWTK_ALGS - algs) | (all_mutations - mutations))
    print(f"\ncoverage: {len(algs & JWTK_ALGS)}/{len(JWTK_ALGS)} algorithms, "
          f"{len(mutations & all_mutations)}/{len(all_mutations)} mutation classes"
          + (f"; missing: {', '.join(missing)}" if missing else ""))
    print(f"elapsed: {time.monotonic() - started:.1f} s")
    coverage_failed = 1 if (args.ci and missing) else 0
    if coverage_failed:
        print("coverage incomplete in the CI subset: counted as one failure")
    # Every rule must be a documented row: an explanation nobody can read explains nothing.
    with open(os.path.join(HERE, "..", "..", "docs", "DIFFERENCES.md")) as f:
        documented = f.read()
    undocumented = [r.id for r in RULES if f"`{r.id}`" not in documented]
    if undocumented:
        print(f"rules without a row in docs/DIFFERENCES.md (counted as one failure): {', '.join(undocumented)}")
    failed = report.failed + coverage_failed + (1 if undocumented else 0)
    print(f"differential: {report.passed} passed, {failed} failed")
    return 1 if failed else 0


def guarded_main() -> int:
    """Even a crash (jwtk refusing its configuration, an oracle raising outside a
    verification) ends with the closing line CI reads, as one failure."""
    try:
        return main()
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001
        import traceback
        traceback.print_exc()
        print("differential: 0 passed, 1 failed")
        return 1


if __name__ == "__main__":
    sys.exit(guarded_main())
