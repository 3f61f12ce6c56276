"""wrk runs against a server process: requests/s, p99 and the server's CPU time per request."""
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
