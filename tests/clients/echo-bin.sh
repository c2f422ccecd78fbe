# Sourced by the client test scripts: sets `here` and `repo`, makes CARGO_TARGET_DIR absolute
# (the test programs run from their own directories) and SOCKETIO_ECHO_BIN: the prebuilt
# server it names, or the example built (debug) into $CARGO_TARGET_DIR (default: target/).
here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
CARGO_TARGET_DIR="$(cd "$repo" && realpath -m "${CARGO_TARGET_DIR:-target}")"
export CARGO_TARGET_DIR
if [ -z "${SOCKETIO_ECHO_BIN:-}" ]; then
    (cd "$repo" && cargo build --quiet --example socketio_echo)
    export SOCKETIO_ECHO_BIN="$CARGO_TARGET_DIR/debug/examples/socketio_echo"
fi
