"""Prints the machine's Debian 12 archive entries as one-line sources ("deb URI SUITE COMPONENTS"), read from
/etc/apt/sources.list and sources.list.d (both the one-line and the deb822 .sources format), so the clean
system gets its packages from the same mirror and suites (bookworm, -updates, -security) as this machine.
Other archives (vendors' repositories) are left out: the test is about what Debian alone provides."""
import glob
import re


def entries():
    for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
        try:
            lines = open(path).read().splitlines()
        except OSError:
            continue
        for line in lines:
            line = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
            if len(line) >= 4 and line[0] == "deb":
                yield line[1], line[2], line[3:]
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        for stanza in re.split(r"\n\s*\n", open(path).read()):
            fields = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line or line[0].isspace():
                    continue
                key, value = line.split(":", 1)
                fields[key.strip().lower()] = value.split()
            if "deb" not in fields.get("types", []) or fields.get("enabled", ["yes"])[0] == "no":
                continue
            for uri in fields.get("uris", []):
                for suite in fields.get("suites", []):
                    yield uri, suite, fields.get("components", ["main"])


seen = set()
for uri, suite, components in entries():
    if re.fullmatch(r"bookworm(-updates|-security|/updates)?", suite) and (uri, suite) not in seen:
        seen.add((uri, suite))
        print("deb", uri, suite, " ".join(c for c in components if c in ("main", "contrib", "non-free", "non-free-firmware")) or "main")
