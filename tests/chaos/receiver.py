"""The customer's side: a webhook receiver on loopback that records every delivery."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    def __init__(self):
        self.lock = threading.Lock()
        self.deliveries = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    payload = json.loads(body)
                except ValueError:
                    payload = None
                h = self.headers
                record = {
                    "path": self.path,
                    "event": h.get("X-Service-Event") or h.get("X-Webhook-Event"),
                    "delivery_id": h.get("X-Service-Delivery-ID") or h.get("X-Webhook-Delivery-ID"),
                    "payload": payload,
                    "at": time.monotonic(),
                }
                with receiver.lock:
                    receiver.deliveries.append(record)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def snapshot(self):
        with self.lock:
            return list(self.deliveries)

    def close(self):
        self.server.shutdown()
        self.server.server_close()
