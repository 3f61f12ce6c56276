"""A test program's pass/fail counts: every check counted once, every failure printed with its detail.

nginx/driver.py keeps one module-level Tally whose check() module_test.py, plus_configs.py and forward-auth/ share:
they read driver.passed/failed.
"""
import sys


class Tally:
    """ok_line / fail_line: format strings over {name} and {detail}; ok_line None prints nothing for a pass.
    detail_sep goes before a non-empty detail (so "name: detail" or "name detail")."""

    def __init__(self, ok_line=None, fail_line="FAIL {name}{detail}", detail_sep=" ", always_sep=True):
        self.passed = self.failed = 0
        self.ok_line, self.fail_line = ok_line, fail_line
        self.detail_sep, self.always_sep = detail_sep, always_sep

    def check(self, ok, name, detail=""):
        """Counts ok; prints the failure (and the pass when ok_line is set). Returns ok."""
        if ok:
            self.passed += 1
            if self.ok_line is not None:
                print(self.ok_line.format(name=name))
        else:
            self.failed += 1
            sep = self.detail_sep if (detail or self.always_sep) else ""
            print(self.fail_line.format(name=name, detail=f"{sep}{detail}"))
        sys.stdout.flush()
        return ok

    def named(self, name, ok, detail=""):
        """check() with the name first, the argument order of the envoy/ programs."""
        return self.check(ok, name, detail)

    def line(self, label):
        """The closing line run.sh scripts and CI read: LABEL: N passed, M failed."""
        return f"{label}: {self.passed} passed, {self.failed} failed"
