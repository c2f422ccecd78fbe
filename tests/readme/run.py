#!/usr/bin/env python3
"""Runs README.md's command blocks in order, as a newcomer pasting them would.

The server is started the way the README's first block says (`switchboard serve` with the
shipped config.toml, in a fresh directory, on the default ports); every later ```sh block
runs in one bash session in that directory, with `cargo run [...] -- ARGS` mapped to the
already-built binary and `curl` failing on any HTTP error status. Blocks that start a
server or the test suite carry `<!-- readme-test: skip -->` on the line before; the Python
and Node snippets are checked to parse, and the webhook receiver the messaging walk-through
starts (examples/webhook_receiver.py, the README's `verify`) must have verified each delivery.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SKIP = "<!-- readme-test: skip -->"
PORTS = (8081, 8082, 8083, 8084, 8085)

PRELUDE = r"""
set -euo pipefail
# `cargo run [-q] [--release] -- ARGS` is the binary itself, already built.
cargo() {
  if [ "${1:-}" = run ]; then
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
    [ $# -gt 0 ] && shift
    "$SWITCHBOARD_BIN" "$@"
  else
    command cargo "$@"
  fi
}
# A walk-through step that gets an HTTP error fails the run (and shows the body).
curl() { command curl --fail-with-body --max-time 30 "$@"; }
"""


def blocks(text):
    """(language, body, skipped) for each fenced block, in order."""
    out = []
    pattern = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
    for m in pattern.finditer(text):
        before = text[: m.start()].rstrip().splitlines()
        skipped = bool(before) and before[-1].strip() == SKIP
        out.append((m.group(1), m.group(2), skipped))
    return out


def wait_for(port, proc, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit(f"server exited early with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"nothing listens on {port} after {seconds}s")


def main():
    binary = os.environ.get("SWITCHBOARD_BIN")
    if not binary or not os.access(binary, os.X_OK):
        sys.exit("set SWITCHBOARD_BIN to the built switchboard binary")
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    found = blocks(readme)
    shell = [b for lang, b, skipped in found if lang in ("sh", "bash") and not skipped]
    if len(shell) < 3:
        sys.exit(f"expected the README's walk-throughs, found {len(shell)} runnable blocks")

    for lang, body, _ in found:
        if lang == "python":
            compile(body, "README.md", "exec")
        elif lang == "js":
            subprocess.run(["node", "--check", "-"], input=body, text=True, check=True)

    work = tempfile.mkdtemp(prefix="readme-")
    # A fresh clone's files, with data/ starting empty.
    shutil.copy(os.path.join(REPO, "config.toml"), work)
    shutil.copytree(os.path.join(REPO, "examples"), os.path.join(work, "examples"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWITCHBOARD__")}
    env["SWITCHBOARD_BIN"] = os.path.abspath(binary)
    log = open(os.path.join(work, "server.log"), "w")
    server = subprocess.Popen([env["SWITCHBOARD_BIN"], "serve"], cwd=work, env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        for port in PORTS:
            wait_for(port, server)
        script = PRELUDE + "\n".join(
            f"echo '== README block {i + 1}' >&2\n{b}" for i, b in enumerate(shell))
        walk = subprocess.Popen(["bash", "-c", script], cwd=work, env=env,
                                stdout=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, _ = walk.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            # Show where it stood: the walk's output so far and the server's last lines.
            os.killpg(walk.pid, signal.SIGKILL)
            out, _ = walk.communicate()
            sys.stdout.write(out[-4000:])
            log.flush()
            with open(os.path.join(work, "server.log"), encoding="utf-8") as f:
                sys.stderr.write(f.read()[-6000:])
            sys.exit("the README walk-through took longer than 300 s; see above")
        finally:
            # Anything the blocks left running in the background (the webhook receiver).
            try:
                os.killpg(walk.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        sys.stdout.write(out)
        if walk.returncode != 0:
            log.flush()
            with open(os.path.join(work, "server.log"), encoding="utf-8") as f:
                sys.stderr.write(f.read()[-4000:])
            sys.exit(f"a README block failed (exit {walk.returncode}); see above")
        verified = out.count("verified message.delivered")
        if verified != 4 or "refused" in out:
            sys.exit(f"the README's webhook receiver verified {verified} of 4 deliveries")
        print(f"README: {len(shell)} shell blocks ran in order")
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
