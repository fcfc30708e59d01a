"""Whether a `<store>.holder` file can be believed (ADR-0028).

A command that finds the file sends its whole request to the address in it: the
arguments (an ingest's `--password`, metadata, absolute paths) and it believes the
answers. Anyone who can write beside the store (a shared or world-writable folder)
could plant one, and a file left by a holder that died can name a pid and port that
someone else has since taken. So a holder is believed only when all of these hold:

- the file is a regular file (not a link), owned by this user, readable and writable by
  this user alone (mode 0600: nothing for group or others);
- its URL is exactly `http://127.0.0.1:PORT` (no other host, user info or path);
- its pid is not 1 and not another user's, and the process is alive;
- on Linux, that very process holds the socket listening on PORT (`/proc`): a stale
  file whose port another program took, or a pid reused by a program that is no
  holder, does not count. Elsewhere the first three checks are all there is.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

_HOLDER_URL = re.compile(r"http://127\.0\.0\.1:(\d{1,5})")
_LISTEN = "0A"  # the TCP state of a listening socket in /proc/net/tcp


def holder_port(url: str) -> int | None:
    """The port of a holder URL that is exactly `http://127.0.0.1:PORT`; else None."""
    found = _HOLDER_URL.fullmatch(url)
    if found is None or not 0 < int(found[1]) < 65536:
        return None
    return int(found[1])


def file_refusal(status: os.stat_result) -> str | None:
    """Why a holder file with this `fstat` is not believed, or None."""
    if not stat.S_ISREG(status.st_mode):
        return "it is not a regular file"
    if status.st_uid != os.geteuid():
        return f"it is owned by uid {status.st_uid}, not by this user ({os.geteuid()})"
    if status.st_mode & 0o077:
        return (f"its mode is {stat.S_IMODE(status.st_mode):04o}: others than its owner "
                "could read or write it (a holder writes it 0600)")
    return None


def _process_uid(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = re.search(r"^Uid:\s+(\d+)", status, re.M)
    return int(found[1]) if found else None


def process_refusal(pid: int) -> str | None:
    """Why the process `pid` cannot be a holder of this user's store, or None; "gone"
    when it is no longer running."""
    if pid <= 1:
        return f"pid {pid} is no sheaf process"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return "gone"
    except PermissionError:
        return f"process {pid} belongs to another user"
    owner = _process_uid(pid)
    if owner is not None and owner != os.geteuid():  # root may signal anyone's
        return f"process {pid} belongs to uid {owner}"
    return None


def _listening_inodes(port: int) -> set[str] | None:
    """The inodes of the sockets listening on `port` of 127.0.0.1 (or of every address),
    from /proc/net/tcp and tcp6; None where there is no /proc."""
    found: set[str] = set()
    wanted = {f"0100007F:{port:04X}", f"00000000:{port:04X}",
              f"0000000000000000FFFF00000100007F:{port:04X}",
              f"00000000000000000000000000000000:{port:04X}"}
    read_any = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        read_any = True
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == _LISTEN and fields[1].upper() in wanted:
                found.add(fields[9])
    return found if read_any else None


def listener_refusal(pid: int, port: int) -> str | None:
    """Why `pid` is not the process listening on 127.0.0.1:`port`, or None (it is, or
    this system cannot tell)."""
    inodes = _listening_inodes(port)
    if inodes is None:
        return None
    if not inodes:
        return f"nothing listens on port {port}"
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return f"the sockets of process {pid} cannot be seen"
    for descriptor in descriptors:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{descriptor}")
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            return None
    return f"process {pid} does not listen on port {port}"
