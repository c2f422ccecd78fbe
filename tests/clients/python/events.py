"""Queues the named server events a python-socketio client receives, for the tests."""

import asyncio

TIMEOUT = 10


class Recorder:
    def __init__(self, sio, names):
        self.queue = asyncio.Queue()
        for name in names:
            sio.on(name, self._handler(name))

    def _handler(self, name):
        async def handle(data=None):
            await self.queue.put((name, data))

        return handle

    async def next(self, timeout=TIMEOUT):
        """The next event as (name, data)."""
        return await asyncio.wait_for(self.queue.get(), timeout)

    async def until(self, name):
        """Skips events until `name`; answers its data."""
        while True:
            got, data = await self.next()
            if got == name:
                return data
