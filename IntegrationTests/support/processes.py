"""A gateway's processes: what /proc and ps say of them (its workers, its threads' names), for the checks that a
library started no thread before a fork or that a worker survived; and stopping one the way it asks to be stopped."""
import os
import signal
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


def stop(proc, sig=signal.SIGTERM, timeout=10):
    """Sends sig to a subprocess.Popen still running (SIGTERM; nginx stops gracefully on SIGQUIT, HAProxy softly on
    SIGUSR1) and waits up to timeout seconds: its exit status, or None when it had to be killed (SIGKILL, reaped)."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
