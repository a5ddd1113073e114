#!/usr/bin/env python3
"""stats_pty.py - drive pyprof-stats' interactive browser through a
pseudo-terminal and print what the terminal showed.

    stats_pty.py TOOL [ARG...] < keystrokes

Keystrokes are sent one line at a time (a line may hold control
characters: Tab, the escape sequence of the Up arrow...), waiting for the
program to go quiet in between, so line editing sees them as typed.
"""
import os
import pty
import select
import sys
import time


def drain(fd, quiet=0.3, limit=10.0):
    out = b""
    end = time.time() + limit
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], quiet)
        if not r:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out


def main():
    keys = sys.stdin.buffer.read().split(b"\n")
    if keys and keys[-1] == b"":
        keys.pop()  # the newline ending the last line
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "dumb"
        os.execv(sys.argv[1], sys.argv[1:])
    out = drain(fd, 0.5)
    for k in keys:
        os.write(fd, k.replace(b"\\t", b"\t").replace(b"\\e", b"\x1b") + b"\r")
        out += drain(fd)
    out += drain(fd, 0.5)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = 0
    sys.stdout.buffer.write(out.replace(b"\r\n", b"\n"))
    sys.stdout.write("\n[exit %d]\n" % (os.waitstatus_to_exitcode(status)))


if __name__ == "__main__":
    main()
