#!/usr/bin/env python3
"""A messaging webhook receiver for local trials: verifies each delivery's
X-Service-Signature-V2 (the README's `verify`), drops repeated delivery ids, and prints
one line per event.

    python3 examples/webhook_receiver.py PORT SECRET
"""
import hashlib
import hmac
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def verify(secret: str, body: bytes, headers) -> bool:
    key = hashlib.sha256(secret.encode()).hexdigest().encode()
    ts = headers["X-Service-Timestamp"]
    if abs(time.time() - int(ts)) > 300:
        return False
    expected = hmac.new(key, ts.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, headers["X-Service-Signature-V2"])


def main():
    port, secret = int(sys.argv[1]), sys.argv[2]
    seen = set()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                ok = verify(secret, body, self.headers)
            except (KeyError, ValueError, TypeError):  # a header missing or malformed
                ok = False
            if not ok:
                self.send_response(401)
                self.end_headers()
                print("refused: bad signature", flush=True)
                return
            self.send_response(200)
            self.end_headers()
            delivery = self.headers["X-Service-Delivery-ID"]
            if delivery in seen:
                return
            seen.add(delivery)
            event = json.loads(body)
            data = event.get("data", {})
            print(f"verified {event.get('type')} {data.get('message_id', '')}", flush=True)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
