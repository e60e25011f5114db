#!/usr/bin/env python3
"""The MPI tests of a build as scripts/gpu-check.sh runs them without ctest.

    scripts/mpi-tests.py BUILD_DIR [MAX_RANKS]

Prints one line per test that ctest runs through mpiexec with at most
MAX_RANKS ranks (default 2), tab-separated: name, ranks, timeout in seconds,
labels (comma-separated), environment (space-separated NAME=VALUE) and the
executable's path relative to BUILD_DIR. A GPU node may have neither ctest
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
        if len(command) < 4 or os.path.basename(command[0]) not in ("mpiexec", "mpirun", "orterun"):
            continue
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        ranks = int(command[command.index("-n") + 1]) if "-n" in command else int(command[2])
        if ranks > max_ranks:
            continue
        executable = os.path.relpath(command[-1], build_dir)
        yield "\t".join([test["name"], str(ranks), str(int(float(properties.get("TIMEOUT", 600)))),
                         ",".join(properties.get("LABELS", [])), " ".join(properties.get("ENVIRONMENT", [])),
                         executable])


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    for line in tests(os.path.abspath(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) == 3 else 2):
        print(line)


if __name__ == "__main__":
    main()
