// The reference: socket.io 4.8 behaving as examples/socketio_echo does (same timings),
// so both servers answer the same load. PORT sets the port (default 3001).
import { createServer } from "node:http";
import { Server } from "socket.io";

const port = Number(process.env.PORT ?? 3001);
const http = createServer();
const io = new Server(http, {
  pingInterval: 300, pingTimeout: 200, maxHttpBufferSize: 1e6, connectTimeout: 1000,
});
for (const nsp of [io.of("/"), io.of("/custom")]) {
  nsp.on("connection", (socket) => {
    socket.emit("auth", socket.handshake.auth);
    if (nsp.name === "/") {
      socket.on("message", (...args) => socket.emit("message-back", ...args));
      socket.on("message-with-ack", (...args) => { const ack = args.pop(); ack(...args); });
    }
  });
}
http.listen(port, "127.0.0.1", () => console.log(`node reference listening on 127.0.0.1:${port}`));
