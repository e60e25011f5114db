#!/usr/bin/env python3
"""Collect a scaling study's JSON run reports into a table, a CSV and plots.

  jobs/collect.py studies/weak [--csv table.csv] [--plots DIR]

Prints one row per run: ranks, global grid, time per step, cells/s, parallel
efficiency against the smallest rank count of the same CPU share (weak:
t_1 / t_P; strong: t_1 P_1 / (t_P P)), the share of halo communication hidden
behind compute, and the CPU share. Writes the table as CSV and two PNG plots
(efficiency and time per step vs ranks, one line per CPU share) with
matplotlib (Debian: python3-matplotlib).
"""
import argparse
import csv
import glob
import json
import os
import sys


def load(directory):
    study_path = os.path.join(directory, "study.json")
    kind = json.load(open(study_path))["kind"] if os.path.exists(study_path) else "strong"
    rows = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        if os.path.basename(path) == "study.json":
            continue
        try:
            report = json.load(open(path))
            rows.append({
                "ranks": report["decomposition"]["ranks"],
                "grid": "x".join(str(c) for c in report["grid"]["cells"]),
                "cells": report["grid"]["global_cells"],
                "s_per_step": report["run"]["seconds_per_step"],
                "cells_per_s": report["run"]["cells_per_second"],
                "hidden_pct": 100.0 * report["halo"]["hidden_fraction"],
                "cpu_share": report["hybrid"]["host_share_rank0"],
                "report": os.path.basename(path),
            })
        except (KeyError, ValueError) as e:
            print("collect: skipping %s: %s" % (path, e), file=sys.stderr)
    return kind, rows


def add_efficiency(kind, rows):
    by_share = {}
    for r in rows:
        by_share.setdefault(round(r["cpu_share"], 3), []).append(r)
    for group in by_share.values():
        base = min(group, key=lambda r: r["ranks"])
        for r in group:
            if kind == "weak":
                r["efficiency"] = base["s_per_step"] / r["s_per_step"]
            else:
                r["efficiency"] = base["s_per_step"] * base["ranks"] / (r["s_per_step"] * r["ranks"])
    rows.sort(key=lambda r: (r["cpu_share"], r["ranks"]))
    return by_share


def plot(kind, by_share, directory):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("collect: matplotlib is missing (Debian: apt-get install python3-matplotlib)")
    paths = []
    for key, label in (("efficiency", "parallel efficiency"), ("s_per_step", "time per step [s]")):
        fig, ax = plt.subplots(figsize=(6, 4))
        for share, group in sorted(by_share.items()):
            group = sorted(group, key=lambda r: r["ranks"])
            ax.plot([r["ranks"] for r in group], [r[key] for r in group], marker="o",
                    label="CPU share %g" % share)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("MPI ranks")
        ax.set_ylabel(label)
        ax.set_title("Strata %s scaling: %s" % (kind, label))
        ax.grid(True, alpha=0.3)
        ax.legend()
        path = os.path.join(directory, "%s_%s.png" % (kind, key))
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("--csv", help="table output (default DIR/scaling.csv)")
    parser.add_argument("--plots", help="plot directory (default DIR)")
    args = parser.parse_args()
    kind, rows = load(args.directory)
    if not rows:
        sys.exit("collect: no run reports in %s" % args.directory)
    by_share = add_efficiency(kind, rows)
    columns = ["ranks", "grid", "s_per_step", "cells_per_s", "efficiency", "hidden_pct", "cpu_share"]
    print("%s scaling, %d runs" % (kind, len(rows)))
    print("%6s %14s %12s %12s %10s %9s %9s" % ("ranks", "grid", "s/step", "cells/s", "efficiency",
                                               "hidden%", "cpu_share"))
    for r in rows:
        print("%6d %14s %12.4g %12.4g %10.3f %9.1f %9.3f" % (r["ranks"], r["grid"], r["s_per_step"],
                                                             r["cells_per_s"], r["efficiency"],
                                                             r["hidden_pct"], r["cpu_share"]))
    table = args.csv or os.path.join(args.directory, "scaling.csv")
    with open(table, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    for path in [table] + plot(kind, by_share, args.plots or args.directory):
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
