#!/usr/bin/env python3
"""Generates a paper-scale RepoReuse workload, deterministically (scripts/bench/paper-scale).

The dataset: CHAINS copies of the shipped dataset's four real chains
(datasets/reporeuse-networkx: their turns, targets, references and tests, each copy under
its own package, solutions/<chain>_<k>), five turns each, on networkx 3.4.2 from the wheel
cache. The run bundle (a directory): each turn's submission is a real module of networkx
itself (its non-test modules, cycled with a stride), and a share of the turns, spread
evenly, carry a real mini-SWE-agent trajectory (the 70 of ../shared/data/real when given,
else the 12 vendored in core/tests/fixtures/real/, cycled).

With --trajectory-share auto, the share is the largest that keeps the bundle within the
command line's bundle limits (LIMIT_BYTES and LIMIT_ENTRIES below, docs/formats.md), or with
--limits upload within an upload's (what the browser's /submit page reads). With
--bundle-turns N the bundle holds only the dataset's first N turns (a partial run: the rest
are scored as missing submissions). Prints one line of JSON describing what was written.
"""

import argparse
import glob
import gzip
import json
import math
import os
import shutil
import sys
import zipfile

# The command line's bundle limits (core::bundle::COMMAND_LINE_LIMITS, docs/formats.md).
LIMIT_BYTES = 1024 << 20
LIMIT_ENTRIES = 200_000
# An upload's, which the browser's /submit page checks before scoring: what a stored run
# may hold (core::bundle::STORED_TEXT_BYTES, the files and trajectories as submitted; the
# page reads up to 256 MiB, core::bundle::LIMITS, but scores only what the server stores).
UPLOAD_LIMIT_BYTES = 128 << 20
UPLOAD_LIMIT_ENTRIES = 20_000
# Room for metadata.json and rounding.
SLACK_BYTES = 1 << 20


def chain_turns(dataset, chain):
    turns, t = [], 1
    while os.path.isdir(f"{dataset}/chains/{chain}/turn-{t}"):
        turns.append(f"{dataset}/chains/{chain}/turn-{t}")
        t += 1
    return turns


def rename(text, old_pkg, new_pkg):
    """The base chain's package, in paths and dotted names, to the copy's."""
    return text.replace(old_pkg, new_pkg).replace(old_pkg.replace("/", "."), new_pkg.replace("/", "."))


def write_dataset(source, out, chains):
    meta = json.load(open(f"{source}/dataset.json"))
    bases = meta["chains"]
    ids = []
    turns = []  # (chain id, t, module_path) in dataset order
    os.makedirs(f"{out}/chains")
    for k in range(chains):
        base = bases[k % len(bases)]
        cid = f"{base}-{k:04d}"
        ids.append(cid)
        bchain = json.load(open(f"{source}/chains/{base}/chain.json"))
        old_pkg = bchain["package"]
        new_pkg = f"{old_pkg}_{k:04d}"
        cdir = f"{out}/chains/{cid}"
        os.makedirs(cdir)
        chain_json = dict(bchain, id=cid, package=new_pkg)
        json.dump(chain_json, open(f"{cdir}/chain.json", "w"), indent=1)
        for tdir in chain_turns(source, base):
            t = int(tdir.rsplit("-", 1)[1])
            for root, _, names in os.walk(tdir):
                for name in sorted(names):
                    if name.endswith(".pyc"):
                        continue
                    rel = os.path.relpath(os.path.join(root, name), tdir)
                    dst = f"{cdir}/turn-{t}/{rel}"
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    text = open(os.path.join(root, name), encoding="utf-8").read()
                    open(dst, "w", encoding="utf-8").write(rename(text, old_pkg, new_pkg))
            turn = json.load(open(f"{cdir}/turn-{t}/turn.json"))
            turns.append((cid, t, turn["module_path"]))
    shutil.copytree(f"{source}/tools", f"{out}/tools")
    manifest = dict(meta, name="paper-scale-networkx", version="1", chains=ids)
    json.dump(manifest, open(f"{out}/dataset.json", "w"), indent=1)
    return manifest, turns


def networkx_modules(wheel):
    """The wheel's non-test modules of at least 1 KB: (path, text), sorted by path."""
    with zipfile.ZipFile(wheel) as z:
        out = []
        for info in sorted(z.infolist(), key=lambda i: i.filename):
            name = info.filename
            if name.endswith(".py") and "/tests/" not in name and info.file_size >= 1024:
                out.append((name, z.read(info).decode("utf-8")))
    return out


def trajectories(repo, shared):
    """The real trajectories' texts, sorted by path: the full set if given, else the vendored."""
    if shared and os.path.isdir(shared):
        paths = sorted(glob.glob(f"{shared}/swebench-bash-only-gemini-3-pro/**/*.traj.json", recursive=True))
        if paths:
            return "shared", [open(p, encoding="utf-8").read() for p in paths]
    paths = sorted(glob.glob(f"{repo}/core/tests/fixtures/real/gemini-3-pro/*.traj.json.gz"))
    return "vendored", [gzip.open(p, "rt", encoding="utf-8").read() for p in paths]


def stride_for(n):
    """A stride coprime with n, so cycling visits every module (and mixes their sizes)."""
    s = 37
    while math.gcd(s, n) != 1:
        s += 1
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, help="the Wheelwright checkout")
    ap.add_argument("--wheel", required=True, help="networkx-3.4.2-py3-none-any.whl")
    ap.add_argument("--shared", help="../shared/data/real (the 70 real trajectories), if present")
    ap.add_argument("--turns", type=int, required=True, help="a multiple of 5")
    ap.add_argument("--trajectory-share", default="auto", help="0..1, or auto (what fits the limits)")
    ap.add_argument("--out", required=True, help="a new directory: dataset/ and bundle/ go in it")
    ap.add_argument("--bundle-turns", type=int, help="the bundle's turns: the dataset's first N (default all)")
    ap.add_argument("--limits", choices=["command-line", "upload"], default="command-line",
                    help="the limits --trajectory-share auto fits (default command-line)")
    args = ap.parse_args()
    if args.turns % 5:
        sys.exit("--turns must be a multiple of 5 (chains of five turns)")
    limit_bytes, limit_entries = ((UPLOAD_LIMIT_BYTES, UPLOAD_LIMIT_ENTRIES) if args.limits == "upload"
                                  else (LIMIT_BYTES, LIMIT_ENTRIES))
    source = f"{args.repo}/datasets/reporeuse-networkx"
    manifest, turns = write_dataset(source, f"{args.out}/dataset", args.turns // 5)
    if args.bundle_turns is not None:
        turns = turns[:args.bundle_turns]
    modules = networkx_modules(args.wheel)
    stride = stride_for(len(modules))
    kind, trajs = trajectories(args.repo, args.shared)
    submissions = [modules[(n * stride) % len(modules)][1] for n in range(len(turns))]
    sub_bytes = sum(len(s.encode()) for s in submissions)
    if args.trajectory_share == "auto":
        # Trajectory k is the (k mod len)th: the bytes of the first m are known exactly.
        sizes = [len(trajs[k % len(trajs)].encode()) for k in range(len(turns))]
        budget = limit_bytes - SLACK_BYTES - sub_bytes
        entries = limit_entries - 1 - len(turns)
        m, used = 0, 0
        while m < len(turns) and m < entries and used + sizes[m] <= budget:
            used += sizes[m]
            m += 1
        share = m / len(turns)
    else:
        share = float(args.trajectory_share)
    bundle = f"{args.out}/bundle"
    os.makedirs(bundle)
    json.dump({"model": "paper-scale", "harness": "mini-SWE-agent", "memory": "none",
               "date": "2026-12-01", "dataset": {"name": manifest["name"], "version": manifest["version"]}},
              open(f"{bundle}/metadata.json", "w"))
    with_traj, traj_bytes = 0, 0
    for n, (cid, t, module_path) in enumerate(turns):
        tdir = f"{bundle}/chains/{cid}/turn-{t}"
        path = f"{tdir}/files/{module_path}"
        os.makedirs(os.path.dirname(path))
        open(path, "w", encoding="utf-8").write(submissions[n])
        # Evenly spread: turn n has one when floor((n+1)*share) passes an integer.
        if math.floor((n + 1) * share + 1e-9) > math.floor(n * share + 1e-9):
            text = trajs[with_traj % len(trajs)]
            open(f"{tdir}/trajectory.json", "w", encoding="utf-8").write(text)
            with_traj += 1
            traj_bytes += len(text.encode())
    print(json.dumps({
        "turns": len(turns), "dataset_turns": args.turns, "chains": len(turns) // 5, "modules": len(modules), "stride": stride,
        "submission_bytes": sub_bytes, "trajectories": with_traj, "trajectory_source": kind,
        "trajectory_share": round(with_traj / len(turns), 4), "trajectory_bytes": traj_bytes,
        "bundle_bytes": sub_bytes + traj_bytes, "entries": len(turns) + with_traj + 1,
    }))


if __name__ == "__main__":
    main()
