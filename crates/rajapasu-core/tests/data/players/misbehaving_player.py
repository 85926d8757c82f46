#!/usr/bin/env python3
"""External players that misbehave in one way each, for the tests of src/agents/external.rs.

    python3 misbehaving_player.py MODE [PIDFILE]

Each plays the leftmost legal pit (protocol: docs/external-players.md) unless its mode says
otherwise. Standard library only.

  fork PIDFILE      starts two `sleep 300` grandchildren per match (appends their pids and its
                    own to PIDFILE), then plays normally and never waits for them
  slow PIDFILE      like fork, and answers each request only after 0.2 s
  late              answers its first request of a match after 1 s, the others at once
  binary-stderr     writes bytes that are not UTF-8 to stderr before every answer
  huge-stderr       writes one 20 MB line to stderr, then exits with status 3
  long-line         writes 10 MB without a newline
  twice             writes every answer twice
  list              answers [pit] instead of {"pit": pit}
"""

import json
import os
import subprocess
import sys
import time


def record(pidfile, pids):
    with open(pidfile, "a") as f:
        for pid in pids:
            f.write(f"{pid}\n")


def main():
    mode = sys.argv[1]
    pidfile = sys.argv[2] if len(sys.argv) > 2 else None
    if mode in ("fork", "slow"):
        sleepers = [subprocess.Popen(["sleep", "300"]) for _ in range(2)]
        record(pidfile, [p.pid for p in sleepers] + [os.getpid()])
    first = True
    for line in sys.stdin:
        request = json.loads(line)
        pit = min(request["legal"])
        out = sys.stdout.buffer
        if mode == "slow":
            time.sleep(0.2)
        if mode == "late" and first:
            time.sleep(1)
        first = False
        if mode == "binary-stderr":
            sys.stderr.buffer.write(b"thinking \xff\xfe\x80 hard\n")
            sys.stderr.buffer.flush()
        if mode == "huge-stderr":
            sys.stderr.buffer.write(b"e" * (20 << 20) + b" the end of a huge line\n")
            sys.stderr.buffer.flush()
            return 3
        if mode == "long-line":
            for _ in range(10):
                out.write(b"x" * (1 << 20))
                out.flush()
            time.sleep(30)
            return 0
        answer = json.dumps([pit] if mode == "list" else {"pit": pit}).encode() + b"\n"
        out.write(answer * (2 if mode == "twice" else 1))
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
