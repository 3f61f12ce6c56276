#!/usr/bin/env python3
"""bench/results.json -> bench/results.png: grouped bars per algorithm, log scale."""
import json, pathlib, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

root = pathlib.Path(__file__).resolve().parent.parent
src = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "bench/results.json"
dst = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else src.with_suffix(".png")
data = json.loads(src.read_text())

algs = ["HS256", "RS256", "PS256", "ES256", "EdDSA"]
series = [  # (impl, mode); a series with no results at all is dropped
    ("openssl-floor", "single"), ("openssl-raw", "single"), ("jwt-kernel", "single"), ("jwt-kernel", "cached"),
    ("jwt-kit", "single"), ("libjwt", "single"),
    ("openssl-raw", "batch"), ("jwt-kernel", "batch"),
]
ops = {(r["impl"], r["mode"], r["alg"]): r for r in data["results"]}
series = [s for s in series if any((*s, a) in ops for a in algs)]

fig, ax = plt.subplots(figsize=(12, 6))
width = 0.8 / len(series)
for i, (impl, mode) in enumerate(series):
    xs, ys = [], []
    for j, alg in enumerate(algs):
        r = ops.get((impl, mode, alg))
        if r:
            xs.append(j + (i - (len(series) - 1) / 2) * width)
            ys.append(r["ops_per_s"])
    label = f"{impl} {mode}" + (f" ({ops[(impl, mode, next(a for a in algs if (impl, mode, a) in ops))]['threads']} thr)"
                                 if mode == "batch" else "")
    bars = ax.bar(xs, ys, width, label=label, hatch="//" if mode == "batch" else None)
    ax.bar_label(bars, labels=[f"{y/1000:.0f}k" if y >= 1000 else f"{y:.0f}" for y in ys],
                 fontsize=6, rotation=90, padding=2)

ax.set_yscale("log")
top = max(r["ops_per_s"] for r in data["results"])
ax.set_ylim(top=top * 12)  # headroom for the legend above the tallest bar
ax.set_xticks(range(len(algs)), algs)
ax.set_ylabel("verifications / s (log)")
m = data["machine"]
ax.set_title(f"JWT verification, ~850-byte claims — {m['cpu']}, {m['cores']} cores")
ax.legend(fontsize=8, ncols=4, loc="upper center")
ax.grid(axis="y", which="both", alpha=0.3)
fig.tight_layout()
fig.savefig(dst, dpi=120)
print(f"wrote {dst}")
