"""wrk runs against a server process: requests/s, p99 and the server's CPU time per request; rounds of them over
the rows of a comparison, and each row's medians."""
import os
import re
import subprocess

# The wrk script that sends one token of a file per request (nginx/wrk_tokens.lua: it came with nginx's load runs).
WRK_TOKENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nginx", "wrk_tokens.lua")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(url, tokens_file, seconds, server_pid, connections=32):
    """wrk's req/s and p99, and the server process's CPU time per request (user + system): on a shared
    2-core machine req/s moves with the neighbours' load, CPU per request much less."""
    cpu0 = cpu_seconds(server_pid)
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s",
                          WRK_TOKENS, url, "--", tokens_file],
                         capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    m = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
    p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
    total = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = int((re.search(r"Non-2xx or 3xx responses: (\d+)", out) or [0, 0])[1])
    errors = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    cpu_us = (cpu_seconds(server_pid) - cpu0) / max(total, 1) * 1e6
    return {"rps": rps, "p99_ms": p99, "requests": total, "non2xx": non2xx, "socket_errors": errors,
            "cpu_us_per_request": round(cpu_us, 1)}


def rounds(rows, count, seconds, warmup=1):
    """rows: (name, url, tokens file, server pid). count rounds, each running every row once in order, so a
    neighbour's burst on the shared machine falls on all rows alike rather than on one; in the first round each
    row starts with a `warmup`-second run that is not kept (connections, JIT traces, keys, OpenSSL contexts).
    {name: [wrk() of each round]}."""
    runs = {name: [] for name, _, _, _ in rows}
    for rnd in range(count):
        for name, url, tokens, pid in rows:
            if rnd == 0 and warmup:
                wrk(url, tokens, warmup, pid)
            runs[name].append(wrk(url, tokens, seconds, pid))
    return runs


def median(xs):
    """The middle value (the upper of the two middle ones for an even count)."""
    return sorted(xs)[len(xs) // 2]


def summary(runs):
    """One row's rounds (wrk() results): medians of req/s, p99 and CPU per request, the req/s range, and the
    requests, non-2xx answers and socket errors summed over the rounds."""
    return {"rps": median([x["rps"] for x in runs]), "rps_min": min(x["rps"] for x in runs),
            "rps_max": max(x["rps"] for x in runs), "p99_ms": median([x["p99_ms"] for x in runs]),
            "cpu_us_per_request": median([x["cpu_us_per_request"] for x in runs]),
            "requests": sum(x["requests"] for x in runs), "non2xx": sum(x["non2xx"] for x in runs),
            "socket_errors": sum(x["socket_errors"] for x in runs), "rounds": runs}


def write_tokens(path, tokens):
    """The token file wrk_tokens.lua sends from, one token a line; returns path."""
    with open(path, "w") as f:
        for t in tokens:
            f.write(t + "\n")
    return path


def table(heading, cpu_heading, runs, check):
    """Prints each row's summary() as a markdown table row (median req/s, range, p99, CPU per request) under a header
    naming the first and the last column, and checks it right after its row: check(name, ok, detail) as
    Tally.named, every answer 2xx and no socket error. {name: summary}, in the rows' order."""
    print(f"\n| {heading} | req/s median | range | p99 ms | {cpu_heading} |")
    print("|---|---:|---:|---:|---:|")
    out = {}
    for name, row in runs.items():
        r = out[name] = summary(row)
        print(f"| {name} | {r['rps']:.0f} | {r['rps_min']:.0f}-{r['rps_max']:.0f} | {r['p99_ms']:.2f} | "
              f"{r['cpu_us_per_request']:.1f} |")
        check(f"load {name}: every answer 200, no socket error", r["non2xx"] == 0 and r["socket_errors"] == 0,
              (r["non2xx"], r["socket_errors"]))
    return out
