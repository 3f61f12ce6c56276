#!/usr/bin/env python3
"""The Envoy module's lifecycle in the real Envoy 1.40: configuration updates, drains and a hot restart leave no
refresher thread behind. Driven by run.sh:

    lifecycle_test.py --envoy BIN --module-dir DIR --work DIR

Each filter configuration in pull mode owns a keystore whose refresher thread is started in
on_http_filter_config_new and joined in on_http_filter_config_destroy (docs/ENVOY.md). Envoy takes its listener
from a file (LDS, path_config_source) so the test can replace the filter configuration while Envoy runs:
  1. start (one worker), wait for 200 with a token, count the process's threads (/proc/PID/task): the baseline;
  2. three times, replace the listener with a new module configuration (another realm), wait until the new
     realm answers, then until the old listener has drained (--drain-time-s 1) and its configuration is gone:
     the thread count must come back to the baseline (a leaked refresher would add one per round);
  3. hot restart: a second Envoy with --restart-epoch 1 on the same base id takes the listener over, the first
     drains and exits cleanly (status 0, no backtrace); the new one answers and has the baseline's thread count.
Ends with one line: lifecycle: N passed, M failed
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envoy_test import Keys, raw_request, hget, ISSUER, AUDIENCE  # noqa: E402
import envoy_config  # noqa: E402
from envoy_process import Envoy  # noqa: E402
from support.checks import Tally  # noqa: E402  (envoy_test put IntegrationTests on sys.path)
from support.loopback_server import free_port, json_answer, serve  # noqa: E402
from support.waiting import wait_for  # noqa: E402

TALLY = Tally()
check = TALLY.named


def threads(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return -1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--envoy", required=True)
    ap.add_argument("--module-dir", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    t0 = time.time()
    keys = Keys()

    jwks_srv = serve(lambda req: json_answer(json.dumps(keys.jwks).encode()))
    up_srv = serve(lambda req: (200, {}, b"ok"))
    port, admin1, admin2 = free_port(), free_port(), free_port()
    lds = os.path.join(a.work, "lds.yaml")

    def write_lds(realm):
        cfg = {"issuers": [ISSUER], "audiences": [AUDIENCE], "algorithms": ["ES256"], "realm": realm,
               "jwks_url": f"http://127.0.0.1:{jwks_srv.server_address[1]}/jwks"}
        listener = dict(envoy_config.listener("main", port, [envoy_config.jwtk_filter(cfg)]),
                        **{"@type": "type.googleapis.com/envoy.config.listener.v3.Listener"})
        tmp = lds + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"version_info": realm, "resources": [listener]}, f)
        os.rename(tmp, lds)   # Envoy watches the file's directory for a move onto the path

    def bootstrap(admin_port):
        return {
            "node": {"id": "lifecycle", "cluster": "test"},
            "admin": envoy_config.admin(admin_port),
            "dynamic_resources": {"lds_config": {"path_config_source": {"path": lds},
                                                 "resource_api_version": "V3"}},
            "static_resources": {"clusters": [envoy_config.cluster("upstream", up_srv.server_address[1])]},
        }

    base_id = str(os.getpid() % 60000 + 61000)
    procs = []

    def start(epoch, admin_port):
        p = Envoy(a.envoy, a.module_dir, bootstrap(admin_port), os.path.join(a.work, f"lifecycle{epoch}.json"),
                  os.path.join(a.work, f"lifecycle{epoch}.log"),
                  ["--concurrency", "1", "--base-id", base_id, "--restart-epoch", str(epoch), "--drain-time-s", "1",
                   "--parent-shutdown-time-s", "2", "--drain-strategy", "immediate"])
        procs.append(p)
        return p

    good = keys.token().encode()

    def realm_of_401():
        st, h, _ = raw_request(port, [], timeout=1)
        return hget(h, "www-authenticate") if st == 401 else None

    def ok_200():
        return raw_request(port, [b"Authorization: Bearer " + good], timeout=1)[0] == 200

    def draining(admin_port):
        st, _, body = raw_request(admin_port, [], "/stats?filter=listener_manager.total_listeners_draining")
        text = body.decode("utf-8", "replace")
        return st == 200 and text.strip().endswith(": 0")

    try:
        write_lds("r0")
        e1 = start(0, admin1)
        check("envoy started, keys loaded: 200", wait_for(ok_200, 20), "")
        base = wait_for(lambda: threads(e1.pid) if threads(e1.pid) > 0 else 0, 2)
        # Let the thread count settle (Envoy starts some threads lazily), then take the baseline.
        time.sleep(0.5)
        base = threads(e1.pid)
        print(f"baseline: {base} threads")
        for i in range(1, 4):
            realm = f"r{i}"
            write_lds(realm)
            got = wait_for(lambda: realm_of_401() == f'Bearer realm="{realm}"', 10)
            check(f"update {i}: the new configuration answers", got, realm_of_401())
            check(f"update {i}: tokens still pass (keys loaded by the new refresher)", wait_for(ok_200, 10))
            wait_for(lambda: draining(admin1), 10)
            settled = wait_for(lambda: threads(e1.pid) == base, 10)
            check(f"update {i}: the old configuration drained and its refresher joined ({base} threads)",
                  settled, f"{threads(e1.pid)} threads, baseline {base}")
        # Hot restart: epoch 1 takes over; epoch 0 drains and exits.
        e2 = start(1, admin2)
        exited = wait_for(lambda: e1.poll() is not None, 20)
        check("hot restart: the old Envoy exited", exited, "")
        code = e1.poll()
        text = procs[0].log_text()
        check("hot restart: the old Envoy exited cleanly (status 0, no backtrace)",
              code == 0 and "Backtrace" not in text and "Caught" not in text, f"exit {code}")
        check("hot restart: the new Envoy answers 200", wait_for(ok_200, 10))
        check("hot restart: the new Envoy answers the current configuration",
              realm_of_401() == 'Bearer realm="r3"', realm_of_401())
        time.sleep(0.5)
        n2 = threads(e2.pid)
        check(f"hot restart: the new Envoy has the baseline's thread count ({base})", n2 == base, n2)
        print(f"lifecycle checks in {time.time() - t0:.1f} s")
    finally:
        for p in procs:
            p.stop()
        if TALLY.failed:
            for p in procs:
                sys.stdout.write(p.tail(20))
        jwks_srv.shutdown()
        up_srv.shutdown()
    print(TALLY.line("lifecycle"))


if __name__ == "__main__":
    main()
    sys.exit(1 if TALLY.failed else 0)
