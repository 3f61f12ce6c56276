"""Polling for a state the harness cannot be told about (a server up, keys loaded, a process gone)."""
import time


def wait_for(pred, timeout, step=0.1):
    """True once pred() is true, False after timeout seconds; an exception from pred counts as not yet."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            if pred():
                return True
        except Exception:
            pass
        time.sleep(step)
    return False
