"""The run's output: a per-class summary, the failing cases in full, and the
closing line CI reads (`differential: N passed, M failed`)."""
import collections
import shlex

from .classifier import RULES, UNEXPLAINED, UNEXPLAINED_JWTK_ONLY, Outcome

_RULE_KIND = {r.id: r.kind for r in RULES}


def pattern(o: Outcome) -> str:
    return "/".join("A" if v.valid else "R" for v in (o.jwtk, o.pyjwt, o.joserfc))


class Report:
    def __init__(self):
        self.by_label = collections.Counter()
        self.patterns = collections.defaultdict(collections.Counter)
        self.by_mutation = collections.Counter()
        self.reason_mismatch = collections.Counter()
        self.failures: list[tuple[str, object, Outcome]] = []
        self.passed = self.failed = 0

    def add(self, case, o: Outcome, label: str | None, failed: bool) -> None:
        key = label or "agree"
        self.by_label[key] += 1
        self.patterns[key][pattern(o)] += 1
        self.by_mutation[case.mutation] += 1
        if label is None and not o.jwtk.valid:
            reasons = {o.jwtk.reason, o.pyjwt.reason, o.joserfc.reason}
            if len(reasons) > 1:
                self.reason_mismatch[f"{o.jwtk.error} / {o.pyjwt.error} / {o.joserfc.error}"] += 1
        if failed:
            self.failed += 1
            self.failures.append((key, case, o))
        else:
            self.passed += 1

    def print(self, show: int, jwtk_path: str) -> None:
        print("\nper-class summary (verdict patterns are jwtk/PyJWT/joserfc, A = accept, R = reject):")
        for label, count in sorted(self.by_label.items(), key=lambda kv: (kv[0] != "agree", kv[0])):
            kind = _RULE_KIND.get(label, "" if label == "agree" else "FAIL")
            pats = ", ".join(f"{p} x{n}" for p, n in self.patterns[label].most_common())
            print(f"  {label:42s} {count:7d}  {kind:16s} {pats}")
        if self.reason_mismatch:
            total = sum(self.reason_mismatch.values())
            print(f"\nall three reject but for different reasons (informational, {total} tokens); most common:")
            for k, n in self.reason_mismatch.most_common(8):
                print(f"  {n:6d}  {k}")
        if self.failures:
            print(f"\nfailures ({len(self.failures)}; up to {show} per class shown; --save-failures DIR writes each "
                  f"with its key set, policy and a replay command):")
            shown = collections.Counter()
            for label, case, o in self.failures:
                if shown[label] >= show:
                    continue
                shown[label] += 1
                what = ("jwtk accepts, PyJWT and joserfc reject" if o.jwtk_only_accept
                        else "disagreement no rule explains")
                print(f"- [{label}] {what}: case {case.id} ({case.mutation}: {case.detail}, "
                      f"{'re-signed' if case.resigned else 'original signature'})")
                print(f"    jwtk:    {o.jwtk.short()}\n    PyJWT:   {o.pyjwt.short()}\n    joserfc: {o.joserfc.short()}")
                print(f"    policy:  {case.policy.describe()}")
                print(f"    token:   {case.token}")
                print(f"    replay:  printf '%s\\n' {shlex.quote(case.token)} | {jwtk_path} "
                      f"{' '.join(shlex.quote(a) for a in case.policy.jwtk_args('KEYS'))}   "
                      f"(KEYS: the policy's key set, written by --save-failures)")
        counts = {l: n for l, n in self.by_label.items() if l in (UNEXPLAINED, UNEXPLAINED_JWTK_ONLY)}
        if counts:
            print(f"\nunexplained: {counts}")
