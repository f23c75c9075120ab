"""A stand-in implementer, as an adversary would write one: it tries each attempt it is given and
prints one JSON line per attempt, saying whether the attempt worked. Plain Python, no shell.

    python3 fake_implementer.py ATTEMPTS_JSON

Each attempt is {"name": ..., "do": "write"|"read"|"connect"|"get"|"connect_via_proxy", ...}.
"""
import json
import os
import socket
import sys


def write(a):
    with open(a["path"], "a") as f:
        f.write(a.get("text", "written by the fake implementer\n"))
    return "wrote"


def replace(a):
    # A new file beside the target, renamed over it: how an editor or git writes.
    tmp = a["path"] + ".fake-tmp"
    with open(tmp, "w") as f:
        f.write("replaced by the fake implementer\n")
    os.replace(tmp, a["path"])
    return "replaced"


def read(a):
    with open(a["path"], "rb") as f:
        data = f.read()
    if not data:
        raise OSError("read nothing: the file is empty")
    return "read %d bytes" % len(data)


def connect(a):
    with socket.create_connection((a["host"], a["port"]), timeout=5):
        return "connected"


def get(a):
    with socket.create_connection((a["host"], a["port"]), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.0\r\nHost: standin\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.0 200") and not head.startswith(b"HTTP/1.1 200"):
        raise OSError("answered %r" % head[:40])
    return body.decode()


def connect_via_proxy(a):
    proxy = os.environ.get("HTTPS_PROXY", "")
    if not proxy.startswith("http://"):
        raise OSError("no proxy named")
    host, _, port = proxy[len("http://"):].partition(":")
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (a["target"], a["target"])).encode())
        head = s.recv(4096)
    if b" 200 " not in head.split(b"\r\n")[0]:
        raise OSError("the proxy answered %r" % head.split(b"\r\n")[0])
    return "tunnel open"


def main():
    attempts = json.loads(sys.argv[1])
    for a in attempts:
        try:
            did = globals()[a["do"]](a)
            print(json.dumps({"name": a["name"], "ok": True, "did": did}), flush=True)
        except Exception as e:  # every failure is the answer for that attempt
            print(json.dumps({"name": a["name"], "ok": False, "error": "%s: %s" % (type(e).__name__, e)}), flush=True)


main()
