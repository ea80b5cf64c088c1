"""`switchboard api --workers N`: uvicorn's supervisor, each worker process on a listening socket of its own.

uvicorn's own multi-process mode binds one socket and hands it to every worker. Each worker's event
loop accepts every pending connection it finds when it wakes, so a client that opens a few keep-alive
connections at once (a proxy's or a load balancer's upstream pool, the bench's load client) lands most
or all of them on one process, which then does the work while the others idle: 16 connections split
16/0, 15/1 and 11/5 over two workers (docs/decisions/0009-api-process-sockets.md). Here each worker listens on a
socket of its own, bound to the same address with ``SO_REUSEPORT``, and the kernel spreads new
connections over the sockets by their addresses.

The supervisor is uvicorn's (``Multiprocess``: health checks, signals, replacing a dead worker); only
which sockets a worker gets differs. The parent binds every socket before the first worker starts (a
port that anything holds already fails at once: ``worker_sockets``) and keeps them open: a worker that
dies is replaced on its own socket, so the connections the kernel queued there meanwhile are served,
not refused. A worker added by SIGTTIN serves every socket, which is correct but undoes the spread
until the next restart.
"""

from __future__ import annotations

import socket

from uvicorn import Config
from uvicorn.config import STARTUP_FAILURE
from uvicorn.supervisors.multiprocess import Multiprocess, Process
from uvicorn.supervisors.multiprocess import logger as uvicorn_logger


def worker_sockets(host: str, port: int, *, workers: int, backlog: int) -> list[socket.socket]:
    """One listening socket per worker on ``host:port``; OSError if anything holds the port already.

    SO_REUSEPORT would let these sockets join the sockets of another process of this user that asked
    for it too (a second ``switchboard api --workers N`` on the same port), which would then take a
    share of the connections. So the port is first bound without it, which fails while any socket
    holds the port, and released just before the workers' sockets take it.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    sockets: list[socket.socket] = []
    try:
        for _ in range(workers):
            sockets.append(reuse_port_socket(host, port, backlog=backlog))
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def reuse_port_socket(host: str, port: int, *, backlog: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` that other sockets of this user may bind too (SO_REUSEPORT)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(backlog)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


class SpreadMultiprocess(Multiprocess):
    """uvicorn's ``Multiprocess`` with worker ``i`` on ``sockets[i]`` (one socket per worker)."""

    def __init__(self, config: Config, sockets: list[socket.socket]) -> None:
        if len(sockets) != config.workers:
            raise ValueError(f"{config.workers} workers need as many sockets, not {len(sockets)}")
        super().__init__(config, sockets)

    def _process(self, index: int) -> Process:
        return Process(self.config, [self.sockets[index]])

    def init_processes(self) -> None:
        for index in range(self.processes_num):
            process = self._process(index)
            process.start()
            self.processes.append(process)

    def keep_subprocess_alive(self) -> None:
        """Replace a dead or hung worker on its own socket (uvicorn's rules otherwise: a start-up failure stops all)."""
        if self.should_exit.is_set():
            return
        for index, process in enumerate(self.processes):
            if process.is_alive(timeout=self.config.timeout_worker_healthcheck):
                continue
            process.kill()
            process.join()
            if process.exitcode == STARTUP_FAILURE:
                uvicorn_logger.error(
                    f"Child process [{process.pid}] failed to start, stopping the parent process."
                )
                self.should_exit.set()
                return
            if self.should_exit.is_set():
                return
            uvicorn_logger.info(f"Child process [{process.pid}] died")
            replacement = (
                self._process(index) if index < len(self.sockets) else Process(self.config, self.sockets)
            )
            replacement.start()
            self.processes[index] = replacement

    def restart_all(self) -> None:
        """SIGHUP: replace each worker on its own socket, the replacement serving before the old one stops."""
        for index, old in enumerate(self.processes):
            if self.should_exit.is_set():
                return
            new = self._process(index) if index < len(self.sockets) else Process(self.config, self.sockets)
            new.start()
            if not new.wait_until_ready(self.config.timeout_worker_healthcheck, self.should_exit):
                new.kill()
                new.join()
                if not self.should_exit.is_set():
                    uvicorn_logger.error(
                        f"New child process [{new.pid}] was not ready in time; "
                        f"keeping worker [{old.pid}] and aborting the restart."
                    )
                return
            old.terminate()
            old.join()
            self.processes[index] = new


def serve(app: str, *, host: str, port: int, workers: int, log_level: str = "warning") -> None:
    """Serve the ASGI app at import path ``app`` with ``workers`` processes, one listening socket each."""
    config = Config(app, host=host, port=port, workers=workers, log_level=log_level)
    sockets = worker_sockets(host, port, workers=workers, backlog=config.backlog)
    try:
        SpreadMultiprocess(config, sockets).run()
    except KeyboardInterrupt:
        pass  # the supervisor has stopped its workers; nothing to report (as uvicorn.run)
    finally:
        for sock in sockets:
            sock.close()
