#!/usr/bin/env python3
"""An example external player for rajapasu (protocol: docs/external-players.md).

It reads one JSON object per line on stdin, one per decision, and answers each with one JSON
line {"pit": LOCAL_PIT} on stdout. Python standard library only.

    rajapasu simulate --south "external:python3 scripts/example_player.py" --north greedy ...
    rajapasu simulate --south "external:python3 scripts/example_player.py --strategy first" ...

Strategies: random (the default: uniform over the legal pits, drawn from the decision's
seed, so the same dataset is made again from the same seed), first (the leftmost legal pit),
last (the rightmost).
"""

import argparse
import json
import random
import sys


def choose(request, strategy):
    legal = request["legal"]
    if strategy == "first":
        return min(legal)
    if strategy == "last":
        return max(legal)
    # The seed makes the choice reproducible: never draw from an unseeded generator.
    return random.Random(request["seed"]).choice(legal)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", choices=["random", "first", "last"], default="random")
    args = parser.parse_args()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("protocol") != 1:
            print(f"unsupported protocol {request.get('protocol')}", file=sys.stderr)
            return 1
        # Answer on one line and flush: rajapasu waits for this line.
        print(json.dumps({"pit": choose(request, args.strategy)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
