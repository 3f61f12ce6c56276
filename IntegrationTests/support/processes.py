"""What /proc and ps say of a gateway's processes: its workers (children) and its threads' names, for the checks
that a library started no thread before a fork, or that a worker survived."""
import os
import subprocess


def children(pid):
    """The pids of pid's child processes (a master's workers), in ascending order."""
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return sorted(int(x) for x in out.split())


def threads_of(pid):
    """The names (comm) of pid's threads; a process gone while they are read gives those read so far."""
    names = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/comm") as f:
                names.append(f.read().strip())
    except FileNotFoundError:
        pass
    return names
