"""jwtk under a policy: one process per policy, tokens on stdin one per line,
one JSON result line back per token (the CLI contract in README.md)."""
import json
import os
import subprocess
import tempfile

from .keys import key_file
from .policies import Policy
from .verdict import JWTK_REASONS, OTHER, Verdict


def verify_batch(jwtk: str, policy: Policy, tokens: list[str]) -> list[Verdict]:
    for t in tokens:
        # The contract is one token per line; an empty or space-holding token
        # would test line handling, which is changing, not verification.
        assert t and not any(c.isspace() for c in t), "token unfit for a line-based batch"
    with tempfile.TemporaryDirectory(prefix="jwtk-diff-") as tmp:
        path = os.path.join(tmp, "keys.pem" if policy.key_format == "pem" else "keys.json")
        with open(path, "w") as f:
            f.write(key_file(policy.keys, policy.key_format))
        proc = subprocess.run([jwtk, *policy.jwtk_args(path)], input="\n".join(tokens) + "\n",
                              capture_output=True, text=True, timeout=600)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"jwtk exited {proc.returncode} for policy {policy.name}: {proc.stderr.strip()}")
    lines = proc.stdout.splitlines()
    if len(lines) != len(tokens):
        raise RuntimeError(f"jwtk gave {len(lines)} result lines for {len(tokens)} tokens (policy {policy.name})")
    verdicts = []
    for line in lines:
        result = json.loads(line)
        if result["valid"]:
            verdicts.append(Verdict(True))
        else:
            verdicts.append(Verdict(False, result["error"], JWTK_REASONS.get(result["error"], OTHER), result.get("message", "")))
    return verdicts
