#!/usr/bin/env python3
"""Generate (and optionally submit) a weak or strong scaling study of Strata.

  jobs/study.py weak   --deck inputs/heat.yaml --ranks 1 2 4 8 --cells 64 64 64 \
                       --cpu-shares 0 0.25 --out studies/weak [--submit [--wait]]
  jobs/study.py strong --deck inputs/heat.yaml --ranks 1 2 4 8 --cells 256 256 256 ...

Weak scaling keeps each rank's box at --cells (the global grid grows with the
rank grid); strong scaling keeps the global grid at --cells. Each point is
one job of jobs/strata-run.sbatch with its deck overrides; every run writes a
JSON report into --out, which jobs/collect.py turns into tables and plots.
Every point is checked first with `strata --check` (its deck, overrides,
ranks and ranks per node): the first point that fails stops the study with
its message, before anything is written or submitted. The job set is then
written to OUT/study.json and OUT/submit.sh before anything is submitted.
The strata binary is --strata, else $STRATA_BIN, else build/apps/strata;
the jobs run the same binary. --cpu-shares takes numbers in [0, 1] and
`auto`; where a share rounds to another split of a point's largest box (a
share of a few planes), the split --check gives is printed. An --out that
holds an earlier study is refused: collect.py would mix the two.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def rank_grid(ranks):
    """Three factors of `ranks`, as equal as possible (like MPI_Dims_create)."""
    best = None
    for px in range(1, ranks + 1):
        if ranks % px:
            continue
        for py in range(1, ranks // px + 1):
            if (ranks // px) % py:
                continue
            pz = ranks // px // py
            dims = sorted((px, py, pz), reverse=True)
            spread = dims[0] - dims[2]
            if best is None or spread < best[0]:
                best = (spread, dims)
    return best[1]


def share_text(share):
    return share if share == "auto" else "%g" % share


# Keys every point sets itself: a --set of one would make the points alike.
STUDY_KEYS = ("grid.cells", "decomposition.dims", "hybrid.cpu_share", "report.json", "report.csv")


def points(args):
    for ranks in args.ranks:
        for share in args.cpu_shares:
            if args.kind == "weak":
                dims = rank_grid(ranks)
                cells = [c * d for c, d in zip(args.cells, dims)]
                overrides = ["decomposition.dims=[%d,%d,%d]" % tuple(dims)]
            else:
                cells = list(args.cells)
                overrides = []
            name = "%s_np%03d_share%s" % (args.kind, ranks, share_text(share))
            report = os.path.join(args.out, name + ".json")
            overrides += [
                "grid.cells=[%d,%d,%d]" % tuple(cells),
                "hybrid.cpu_share=%s" % share_text(share),
                "output.write_every=0",
                "checkpoint.every=0",
                "report.json=" + report,
                "report.csv=" + os.path.join(args.out, "results.csv"),
            ] + args.set
            yield {"name": name, "ranks": ranks, "cpu_share": share, "cells": cells,
                   "overrides": overrides, "report": report}


def sbatch_command(args, point, wait=False):
    per_node = min(point["ranks"], args.ranks_per_node)
    nodes = -(-point["ranks"] // args.ranks_per_node)
    command = ["sbatch", "--parsable", "--nodes=%d" % nodes, "--ntasks=%d" % point["ranks"],
               "--ntasks-per-node=%d" % per_node,
               "--cpus-per-task=%d" % args.cpus_per_task, "--job-name=" + point["name"],
               "--output=" + os.path.join(args.out, point["name"] + ".out"),
               "--export=ALL,STRATA_BIN=" + args.strata]
    if wait:
        command.append("--wait")
    command += args.sbatch_arg + [os.path.join(HERE, "strata-run.sbatch"), args.deck]
    for o in point["overrides"]:
        command += ["--set", o]
    return command


def check_point(args, point):
    """strata --check on a point: (error or None, the split of its largest box or None)."""
    command = [args.strata, "--check", args.deck, "--ranks", str(point["ranks"]),
               "--ranks-per-node", str(min(point["ranks"], args.ranks_per_node))]
    for o in point["overrides"]:
        command += ["--set", o]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return (done.stderr or done.stdout).strip(), None
    split = re.search(r"^  split of the largest box: cpu_share [^:]*: (\d+) host planes, (\d+) device planes",
                      done.stdout, re.M)
    return None, split and (int(split.group(1)), int(split.group(1)) + int(split.group(2)))


def cpu_share(text):
    if text == "auto":
        return text
    try:
        share = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is neither a number nor auto" % text)
    if not 0.0 <= share <= 1.0:
        raise argparse.ArgumentTypeError("%g lies outside [0, 1]" % share)
    return share


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["weak", "strong"])
    parser.add_argument("--deck", required=True, help="base deck")
    parser.add_argument("--ranks", type=int, nargs="+", required=True, help="rank ladder")
    parser.add_argument("--cells", type=int, nargs=3, required=True,
                        help="cells per rank (weak) or in total (strong)")
    parser.add_argument("--cpu-shares", type=cpu_share, nargs="+", default=[0.0],
                        help="CPU shares, numbers in [0, 1] or auto (one series each)")
    parser.add_argument("--cpus-per-task", type=int, default=1, help="OpenMP threads per rank")
    parser.add_argument("--ranks-per-node", type=int, default=4, help="ranks (GPUs) per node")
    parser.add_argument("--out", required=True, help="directory for the job set and reports")
    parser.add_argument("--set", action="append", default=[], help="extra deck override (repeatable)")
    parser.add_argument("--sbatch-arg", action="append", default=[], help="extra sbatch option (repeatable)")
    parser.add_argument("--submit", action="store_true", help="submit the jobs now")
    parser.add_argument("--wait", action="store_true", help="with --submit: wait for all jobs (sbatch --wait)")
    parser.add_argument("--strata", default=os.environ.get("STRATA_BIN") or
                        os.path.join(os.path.dirname(HERE), "build", "apps", "strata"),
                        help="the strata binary that checks and runs every point")
    args = parser.parse_args()
    if any(r < 1 for r in args.ranks) or any(c < 1 for c in args.cells):
        parser.error("--ranks and --cells must be positive")
    if args.cpus_per_task < 1 or args.ranks_per_node < 1:
        parser.error("--cpus-per-task and --ranks-per-node must be positive")
    for values, option in ((args.ranks, "--ranks"), (list(map(share_text, args.cpu_shares)), "--cpu-shares")):
        if len(set(values)) != len(values):
            parser.error("%s repeats a value: each point would be run twice under one name" % option)
    for override in args.set:
        if override.split("=", 1)[0].strip() in STUDY_KEYS:
            parser.error("--set %s: the study sets %s for each point" % (override, ", ".join(STUDY_KEYS)))
    if not os.access(args.strata, os.X_OK):
        parser.error("no strata binary at %s (give --strata or set STRATA_BIN)" % args.strata)
    args.strata = os.path.abspath(args.strata)
    if "," in args.strata:
        parser.error("the strata binary's path %s holds a comma, which sbatch --export cannot pass" % args.strata)
    args.out = os.path.abspath(args.out)
    args.deck = os.path.abspath(args.deck)
    earlier = [f for f in ("study.json", "results.csv") if os.path.exists(os.path.join(args.out, f))]
    if earlier:
        parser.error("%s holds an earlier study (%s): its reports would be collected with this one's; "
                     "give another --out or remove it" % (args.out, ", ".join(earlier)))

    study = {"kind": args.kind, "deck": args.deck, "cells": args.cells, "points": list(points(args))}
    for point in study["points"]:
        error, split = check_point(args, point)
        if error:
            print("study: point %s (%d ranks, cpu_share %s) fails strata --check; nothing written or submitted:\n%s"
                  % (point["name"], point["ranks"], share_text(point["cpu_share"]), error), file=sys.stderr)
            return 1
        if split and point["cpu_share"] != "auto" and abs(split[0] / split[1] - point["cpu_share"]) > 0.005:
            print("study: point %s: cpu_share %g puts %d of %d planes of the largest box on the CPU (%.3f)"
                  % (point["name"], point["cpu_share"], split[0], split[1], split[0] / split[1]))
    print("study: %d points pass strata --check" % len(study["points"]))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "study.json"), "w") as f:
        json.dump(study, f, indent=2)
    commands = [sbatch_command(args, p) for p in study["points"]]
    with open(os.path.join(args.out, "submit.sh"), "w") as f:
        f.write("#!/bin/sh\n# %s study generated by jobs/study.py\n" % args.kind)
        for c in commands:
            f.write(" ".join(shlex.quote(x) for x in c) + "\n")
    print("study: %d jobs written to %s" % (len(commands), os.path.join(args.out, "submit.sh")))
    if not args.submit:
        return 0
    if not shutil.which("sbatch"):
        print("study: no sbatch on PATH: submit %s on a Slurm login node" % os.path.join(args.out, "submit.sh"),
              file=sys.stderr)
        return 1
    commands = [sbatch_command(args, p, wait=args.wait) for p in study["points"]]
    # With --wait each sbatch blocks until its job ends: run them side by side.
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, text=True) for c in commands]
    failed = 0
    for p, point in zip(procs, study["points"]):
        out, _ = p.communicate()
        status = "ok" if p.returncode == 0 else "FAILED (%d)" % p.returncode
        failed += p.returncode != 0
        print("  %-28s job %-8s %s" % (point["name"], out.strip().split(";")[0], status))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
