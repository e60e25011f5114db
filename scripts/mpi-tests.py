#!/usr/bin/env python3
"""The MPI tests of a build as scripts/gpu-check.sh runs them without ctest.

    scripts/mpi-tests.py BUILD_DIR [MAX_RANKS]

Prints one line per test that ctest runs through mpiexec with at most
MAX_RANKS ranks (default 2), and per unit test (run without mpiexec, here
on one rank), tab-separated: name, ranks, timeout in seconds, labels
(comma-separated), environment (space-separated NAME=VALUE; not the
tune cache's folder, a path of this build) and the executable's path
relative to BUILD_DIR with its arguments. A GPU node may have neither ctest
nor Python: scripts/gpu-bundle.sh writes this list where it has both.
"""
import json
import os
import subprocess
import sys


def tests(build_dir, max_ranks):
    listing = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build_dir, check=True,
                             capture_output=True, text=True).stdout
    for test in json.loads(listing)["tests"]:
        command = test.get("command", [])
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        if "unit" in properties.get("LABELS", []) and command:
            ranks, executable = 1, " ".join([os.path.relpath(command[0], build_dir)] + command[1:])
        elif len(command) >= 4 and os.path.basename(command[0]) in ("mpiexec", "mpirun", "orterun"):
            ranks = int(command[command.index("-n") + 1]) if "-n" in command else int(command[2])
            executable = os.path.relpath(command[-1], build_dir)
        else:
            continue
        if ranks > max_ranks:
            continue
        # A test's tune cache is a folder of this build's; the check gives each test one of its own.
        environment = [v for v in properties.get("ENVIRONMENT", []) if not v.startswith("XDG_CACHE_HOME=")]
        yield "\t".join([test["name"], str(ranks), str(int(float(properties.get("TIMEOUT", 600)))),
                         ",".join(properties.get("LABELS", [])), " ".join(environment), executable])


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    for line in tests(os.path.abspath(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) == 3 else 2):
        print(line)


if __name__ == "__main__":
    main()
