#!/usr/bin/env python3
"""bench/results.json -> bench/results.png (grouped bars per algorithm, log scale, ratios to openssl-floor),
bench/sweep.png (ns per token byte against claims size) and bench/stages.png (where a token's time goes)."""
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
    ("jwtk-c", "single"),
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
    floors = [ops.get(("openssl-floor", "single", alg)) for alg in algs]
    def tag(alg_index, y):
        f = floors[alg_index]
        rate = f"{y/1000:.0f}k" if y >= 1000 else f"{y:.0f}"
        return f"{rate} ({y / f['ops_per_s']:.2f}x)" if f and impl != "openssl-floor" else rate
    js = [j for j, alg in enumerate(algs) if ops.get((impl, mode, alg))]
    ax.bar_label(bars, labels=[tag(j, y) for j, y in zip(js, ys)], fontsize=6, rotation=90, padding=2)

ax.set_yscale("log")
top = max(r["ops_per_s"] for r in data["results"])
ax.set_ylim(top=top * 12)  # headroom for the legend above the tallest bar
ax.set_xticks(range(len(algs)), algs)
ax.set_ylabel("verifications / s (log)")
m = data["machine"]
ax.set_title(f"JWT verification, ~850-byte claims (ratio to openssl-floor) — {m['cpu']}, {m['cores']} cores")
ax.legend(fontsize=8, ncols=4, loc="upper center")
ax.grid(axis="y", which="both", alpha=0.3)
fig.tight_layout()
fig.savefig(dst, dpi=120)
print(f"wrote {dst}")

if data.get("sweep"):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    xs = [p["claims_bytes"] / 1024 for p in data["sweep"]]
    ax.plot(xs, [p["kernel_ns_per_byte"] for p in data["sweep"]], marker="o", label="jwt-kernel")
    if all(p["floor_ns_per_byte"] is not None for p in data["sweep"]):
        ax.plot(xs, [p["floor_ns_per_byte"] for p in data["sweep"]], marker="s", label="openssl-floor")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("claims size (KiB)")
    ax.set_ylabel("ns per token byte (HS256)")
    ax.set_ylim(bottom=0)
    ax.set_title("Cost against token size")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(dst.with_name("sweep.png"), dpi=120)
    print(f"wrote {dst.with_name('sweep.png')}")

if data.get("stages"):
    stage_algs = sorted({r["alg"] for r in data["stages"]}, key=algs.index)
    names = [r["stage"] for r in data["stages"] if r["alg"] == stage_algs[0] and r["stage"] != "full verification"]
    fig, axes = plt.subplots(1, len(stage_algs), figsize=(6 * len(stage_algs), 4.5), squeeze=False)
    for ax, alg in zip(axes[0], stage_algs):
        rows = {r["stage"]: r["ns"] for r in data["stages"] if r["alg"] == alg}
        bottom = 0.0
        for name in names:
            ax.bar([0], [rows[name]], bottom=bottom, label=f"{name} {rows[name]:.0f} ns")
            bottom += rows[name]
        ax.bar([1], [rows["full verification"]], color="black", label=f"full verification {rows['full verification']:.0f} ns")
        ax.set_xticks([0, 1], ["sum of stages", "full"])
        ax.set_ylabel("ns per token")
        ax.set_title(f"{alg}: where a token's time goes")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(dst.with_name("stages.png"), dpi=120)
    print(f"wrote {dst.with_name('stages.png')}")
