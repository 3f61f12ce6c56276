"""Reads a callgrind output file (valgrind --tool=callgrind --callgrind-out-file=F): the instructions executed
(Ir) and the calls into the C allocator, split by who called it.

OpenSSL allocates through CRYPTO_malloc, CRYPTO_zalloc and CRYPTO_realloc (every other OPENSSL_* allocation is one
of these), so a call of malloc-family made from a function named CRYPTO_* is OpenSSL's; every other one (Swift's
swift_slowAlloc, the C library of the module, nginx's pools) is counted as ours. Counts come from callgrind's call
edges, so they are as deterministic as the instruction counts: no interposer, no hook in the library.
"""

import re

# The entry points that hand out memory; free() is not an allocation.
ALLOCATORS = {"malloc", "calloc", "realloc", "reallocarray", "posix_memalign", "aligned_alloc", "memalign",
              "valloc", "pvalloc"}

_ID = re.compile(r"^\((\d+)\)(?: (.*))?$")


class Profile:
    """Totals of one callgrind run."""

    def __init__(self, instructions, allocs, openssl_allocs, calls):
        self.instructions = instructions      # Ir of the whole run (or of the toggled functions)
        self.allocs = allocs                  # malloc-family calls not made by OpenSSL
        self.openssl_allocs = openssl_allocs  # malloc-family calls made by CRYPTO_*
        self.calls = calls                    # {function name: times called}


def _name(value, names):
    """A name field in compressed ("(12) malloc" the first time, "(12)" after) or plain form."""
    m = _ID.match(value)
    if not m:
        return value
    if m.group(2) is not None:
        names[m.group(1)] = m.group(2)
    return names.get(m.group(1), value)


def read(path, within=None):
    """The run's totals. within: count only allocations made (transitively) inside this function; callgrind counts
    calls even where --toggle-collect has collection off, so the run needs --separate-callers=N (function names
    then carry their callers, "malloc'ngx_palloc'...") with N deep enough to reach it."""
    names = {}
    fn = cfn = None
    instructions = None
    allocs = openssl = 0
    calls = {}
    pending = None  # the callee of a "calls=" line; the next line is that call's cost
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if pending is not None:
                pending = None
                continue
            if line.startswith("fn="):
                fn = _name(line[3:], names)
            elif line.startswith("cfn="):
                cfn = _name(line[4:], names)
            elif line.startswith("calls="):
                count = int(line[6:].split()[0])
                callee, chain = cfn.split("'")[0], fn.split("'")
                calls[callee] = calls.get(callee, 0) + count
                if callee in ALLOCATORS and (within is None or within in chain):
                    if chain[0].startswith("CRYPTO_"):
                        openssl += count
                    else:
                        allocs += count
                pending = cfn
            elif line.startswith("summary:") or line.startswith("totals:"):
                instructions = int(line.split(":", 1)[1].split()[0])
    if instructions is None:
        raise ValueError(f"{path}: no summary line (did callgrind finish?)")
    return Profile(instructions, allocs, openssl, calls)
