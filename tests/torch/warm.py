"""warm.py - one warm interpreter for the torch test (tests/torch/run.sh).

`import torch` costs about 2 s of CPU, and each `dnnpar run-torch` started
1 + RANKS interpreters (the launcher, then one per rank, torch.multiprocessing
spawning each afresh): about 85% of the test's CPU time went to imports, not
to the cases.  Here torch is imported once:

  python3 warm.py --serve SOCKET
      imports torch, then listens on the Unix socket SOCKET (it appears when
      the server is ready).  Each request is one `python3 -m MODULE ARGS...`
      run: a handler process, in a process group of its own, forks the worker,
      which takes the client's standard input, output and error (passed over
      the socket), its working directory, environment and sys.path entries
      from PYTHONPATH, and runs MODULE as __main__ (runpy, as `-m` does) with
      torch.multiprocessing.spawn starting its ranks by fork (they inherit the
      imported torch) instead of fresh interpreters.  The worker's exit status
      (or signal) goes back to the client; when the worker ends, or the client
      goes away (killed by a time-out), the handler kills its process group,
      ranks included.  The server stops when the process that started it ends
      (or on SIGTERM).

  python3 warm.py ARGS...   (through the stub run.sh writes, as DNNPAR_PYTHON)
      the client: with DNNPAR_TORCH_WARM_SOCKET naming a live server and ARGS
      "-m MODULE ...", runs the request there and exits with its status;
      otherwise (no server, or any other use) execs the real interpreter
      DNNPAR_TORCH_WARM_PYTHON (default /usr/bin/python3) with ARGS, so the
      result never depends on the server being up.

What the checks read (each run's numerics, bytes, ranks) is computed by the
same dnnpar_torch code either way; only the way rank processes start
differs, and run.sh keeps some cases on the real interpreter (spawn).
"""
import json
import os
import runpy
import select
import signal
import socket
import struct
import sys
import traceback


def _recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError("the client closed the connection")
        buf += chunk
    return buf


def _work(req):
    """In the worker (fds 0-2 already the client's): run the module, exit."""
    code = 0
    try:
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
        # as `python3 -m`: the working directory first, then PYTHONPATH's entries
        # (in place of this script's directory)
        sys.path[0] = req["cwd"]
        for p in reversed(req["env"].get("PYTHONPATH", "").split(os.pathsep)):
            if p:
                sys.path.insert(1, p)
        import torch.multiprocessing as mp

        def spawn_by_fork(fn, args=(), nprocs=1, join=True, daemon=False,
                          start_method="spawn"):
            return mp.start_processes(fn, args, nprocs, join, daemon, start_method="fork")

        mp.spawn = spawn_by_fork
        sys.argv = [req["module"]] + req["args"]
        runpy.run_module(req["module"], run_name="__main__", alter_sys=True)
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            sys.stderr.write("%s\n" % e.code)
            code = 1
    except BaseException:  # as the interpreter does: the traceback, status 1
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code & 0xFF)


def _handle(conn):
    """In the handler: one request, its worker, the status back."""
    os.setpgid(0, 0)
    head, fds, _, _ = socket.recv_fds(conn, 4, 3)
    if len(head) < 4:
        head += _recv_exact(conn, 4 - len(head))
    req = json.loads(_recv_exact(conn, struct.unpack("!I", head)[0]))
    if len(fds) != 3:
        os._exit(1)
    wpid = os.fork()
    if wpid == 0:
        conn.close()
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        _work(req)
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(wpid)
    while True:
        ready, _, _ = select.select([pidfd, conn], [], [])
        if pidfd in ready:
            _, status = os.waitpid(wpid, 0)
            try:
                conn.sendall(b"%d\n" % os.waitstatus_to_exitcode(status))
            except OSError:
                pass
            break
        if not conn.recv(1):  # the client is gone
            break
    conn.close()
    os.killpg(0, signal.SIGKILL)  # what the worker left (its ranks), and this handler


def serve(path):
    import torch  # noqa: F401  the cost paid once
    import torch.distributed  # noqa: F401
    import torch.multiprocessing  # noqa: F401
    parent = os.getppid()
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path + ".new")
    srv.listen(16)
    os.rename(path + ".new", path)  # ready
    srv.settimeout(0.5)
    sys.stdout.flush()
    sys.stderr.flush()
    while os.getppid() == parent:
        try:  # reap the handlers that have ended (their CPU time counts as this process's)
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            continue
        conn.settimeout(None)
        if os.fork() == 0:
            srv.close()
            try:
                _handle(conn)
            finally:
                os._exit(1)
        conn.close()


def client(args):
    real = os.environ.get("DNNPAR_TORCH_WARM_PYTHON") or "/usr/bin/python3"
    path = os.environ.get("DNNPAR_TORCH_WARM_SOCKET")
    if path and len(args) >= 2 and args[0] == "-m":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        except OSError:
            s.close()
            s = None
        if s is not None:
            env = {k: v for k, v in os.environ.items()
                   if k not in ("DNNPAR_TORCH_WARM_SOCKET", "DNNPAR_TORCH_WARM_PYTHON")}
            data = json.dumps({"module": args[1], "args": args[2:], "cwd": os.getcwd(),
                               "env": env}).encode()
            socket.send_fds(s, [struct.pack("!I", len(data))], [0, 1, 2])
            s.sendall(data)
            reply = b""
            while True:
                chunk = s.recv(64)
                if not chunk:
                    break
                reply += chunk
            if not reply:
                sys.stderr.write("warm.py: the warm interpreter ended without a status\n")
                sys.exit(1)
            code = int(reply)
            if code < 0:
                signal.signal(-code, signal.SIG_DFL)
                os.kill(os.getpid(), -code)
            sys.exit(code)
    os.execv(real, [real] + args)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        client(sys.argv[1:])
