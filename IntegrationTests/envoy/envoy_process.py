"""One Envoy process for the envoy/ harnesses: its bootstrap written to a file, the module directory in
ENVOY_DYNAMIC_MODULES_SEARCH_PATH, stdout and stderr in a log file, and a stop that always reaps it."""
import json
import os
import subprocess

from support.processes import stop  # (its importers put IntegrationTests on sys.path first)


class Envoy:
    def __init__(self, envoy_bin, module_dir, bootstrap, conf_path, log_path, args, indent=None, wrapper=()):
        """Writes bootstrap (a dict) as JSON to conf_path and starts envoy_bin -c conf_path --log-level warn ARGS,
        under the command wrapper when given (valgrind and its options: self.pid is then valgrind's, which is the
        Envoy process itself, as valgrind runs its guest in its own process)."""
        with open(conf_path, "w") as f:
            json.dump(bootstrap, f, indent=indent)
        self.log_path = log_path
        self.log = open(log_path, "w")
        env = dict(os.environ, ENVOY_DYNAMIC_MODULES_SEARCH_PATH=module_dir)
        self.proc = subprocess.Popen(list(wrapper) + [envoy_bin, "-c", conf_path, "--log-level", "warn"] + list(args),
                                     env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid

    def poll(self):
        return self.proc.poll()

    def stop(self):
        """SIGTERM if still running, SIGKILL after 10 s; closes the log. The exit status (-9 when killed)."""
        stop(self.proc)
        self.log.close()
        return self.proc.returncode

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()

    def tail(self, n):
        """The log's last n lines under a heading, for a failed run's output."""
        name = os.path.basename(self.log_path)
        return f"--- {name} (last {n} lines)\n" + "".join(self.log_text().splitlines(True)[-n:])
