#!/usr/bin/env python3
"""Times ReCUBE uploads to a running server: a bundle of every shipped instance, each with
its original file and a real agent trajectory, posted to /api/v1/recube/runs.

Usage: scripts/bench-recube-upload.py URL TRAJECTORY_DIR [ROUNDS]
  URL             the server, e.g. http://127.0.0.1:8080
  TRAJECTORY_DIR  a folder of mini-SWE-agent *.traj.json files (one per instance is used,
                  largest first, cycled when there are fewer)
Each round changes the bundle's notes, so no upload is refused as a duplicate. Prints each
upload's wall time and the bundle's size (docs/performance.md, "ReCUBE uploads").
"""

import json
import pathlib
import sys
import time
import urllib.request


def get(url):
    with urllib.request.urlopen(url) as reply:
        return json.load(reply)


def main():
    base, trajectories = sys.argv[1], pathlib.Path(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    dataset = get(f"{base}/api/v1/recube/datasets/recube-pypi/1")
    files = sorted(trajectories.rglob("*.traj.json"), key=lambda p: -p.stat().st_size)
    if not files:
        sys.exit(f"no *.traj.json under {trajectories}")
    lines = []
    for i, summary in enumerate(dataset["instances"]):
        page = get(f"{base}/api/v1/recube/datasets/recube-pypi/1/instances/{summary['id']}")
        trajectory = json.loads(files[i % len(files)].read_text())
        lines.append(
            {
                "instance_id": summary["id"],
                "files": {page["target"]: page["original"]},
                "trajectory": trajectory,
            }
        )
    for r in range(rounds):
        metadata = {
            "model": "bench",
            "harness": "mini-SWE-agent",
            "memory": "none",
            "date": "2026-12-03",
            "dataset": {"name": "recube-pypi", "version": "1"},
            "notes": f"upload benchmark round {r} at {time.time()}",
        }
        body = "\n".join(json.dumps(x) for x in [{"metadata": metadata}, *lines]).encode()
        request = urllib.request.Request(
            f"{base}/api/v1/recube/runs",
            data=body,
            headers={"Content-Type": "application/x-ndjson"},
        )
        start = time.perf_counter()
        with urllib.request.urlopen(request) as reply:
            reply.read()
            status = reply.status
        took = time.perf_counter() - start
        print(f"round {r}: {status} in {took * 1000:.0f} ms, {len(body) / 1e6:.2f} MB, {len(lines)} instances")


if __name__ == "__main__":
    main()
