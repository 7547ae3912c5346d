#!/usr/bin/env python3
"""A member shaped like the reference's Python client, standard library only.

What it does, as the reference client does:
  * logs in once (POST /coord/v1/auth/login {"username","password"}) and
    keeps the bearer token for good;
  * heartbeats at the heartbeatIntervalMs the coordinator answers;
  * reads and acks the shards in assignedShards (XREADGROUP / XACK over a
    minimal RESP client: the `redis` package is not installed);
  * releases a shard by omission: once a shard leaves assignedShards it stops
    reading it and no longer lists it in ownedShards;
  * never reports a shard in revokingShards (the list is always empty).

It writes its state as JSON to --state after every heartbeat (atomically) and
exits on SIGTERM after a last write. The Go test (python_member_test.go)
checks what it saw against Redis and the coordinator.
"""

import argparse
import json
import os
import signal
import socket
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid


class Resp:
    """Minimal RESP2 client: one socket, one command at a time."""

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=5)
        self.buf = b""

    def command(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            b = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(b), b))
        self.sock.sendall(b"".join(out))
        return self._read()

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("redis closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("redis closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def _read(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RuntimeError("redis error: " + rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._read() for _ in range(n)]
        raise RuntimeError("unexpected RESP reply %r" % line)


class Member:
    def __init__(self, a):
        self.a = a
        self.base = a.base.rstrip("/")
        # https://: the system's CAs, or the bundle of --ca-file (as the
        # reference's client does with requests' verify=<CA bundle>).
        self.ssl = ssl.create_default_context(cafile=a.ca_file) if a.ca_file else None
        q = urllib.parse.quote
        self.hb_url = "%s/coord/v1/streams/%s/groups/%s/members/%s/heartbeat" % (
            self.base, q(a.prefix, safe=""), q(a.group, safe=""), q(a.member_id, safe=""))
        host, port = a.redis.rsplit(":", 1)
        self.redis = Resp(host, int(port))
        self.token = None
        self.epoch = 0
        self.metadata_version = 0
        self.owned = set()
        self.interval_ms = 1000
        self.progress = {}  # shard -> {lastDeliveredId, lastAckedId}
        self.state = {
            "logins": 0, "heartbeats": 0, "statuses": {}, "seen": [], "acked": 0,
            "intervalMs": None, "httpErrors": [], "owned": [],
            "released": [], "tokenExpiresInSeconds": None,
        }
        self.stop = False

    # --- coordinator -----------------------------------------------------
    def login(self):
        # As the reference's Python client: a JSON body, once. (The empty body
        # with Basic credentials, the reference server's other form, is
        # replayed by shapes_test.go.)
        body = json.dumps({"username": self.a.user, "password": self.a.password}).encode()
        req = urllib.request.Request(self.base + "/coord/v1/auth/login", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10, context=self.ssl) as resp:
            body = json.load(resp)
        self.token = body["accessToken"]
        self.state["logins"] += 1
        self.state["tokenExpiresInSeconds"] = body["expiresInSeconds"]

    def heartbeat(self):
        body = {
            "protocolVersion": 1,
            "requestId": str(uuid.uuid4()),
            "memberId": self.a.member_id,
            "memberName": self.a.member_name,
            "memberEpoch": self.epoch,
            "metadataVersion": self.metadata_version,
            "runtimeConsumerCapacity": {"runtimeMaxConcurrency": 1, "availableConcurrency": 1},
            "ownedShards": [{"shardIndex": s} for s in sorted(self.owned)],
            # The reference's Python client releases by omission: it never
            # reports a shard in revokingShards, and sends the list empty.
            "revokingShards": [],
            "shardProgress": [self._progress_row(s) for s in sorted(self.owned) if s in self.progress],
        }
        req = urllib.request.Request(self.hb_url, data=json.dumps(body).encode(), method="POST", headers={
            "Content-Type": "application/json", "Authorization": "Bearer " + self.token})
        try:
            with urllib.request.urlopen(req, timeout=10, context=self.ssl) as resp:
                answer = json.load(resp)
        except urllib.error.HTTPError as e:
            # The reference client never logs in again: a 401 would end it.
            self.state["httpErrors"].append("%d %s" % (e.code, e.read()[:200].decode(errors="replace")))
            return
        except (urllib.error.URLError, OSError) as e:
            self.state["httpErrors"].append(str(e))
            return
        self.state["heartbeats"] += 1
        st = answer["status"]
        self.state["statuses"][st] = self.state["statuses"].get(st, 0) + 1
        self.interval_ms = answer["heartbeatIntervalMs"]
        self.state["intervalMs"] = self.interval_ms
        assigned = {s["shardIndex"] for s in answer["assignment"]["assignedShards"]}
        if st == "OK":
            self.epoch = answer["memberEpoch"]
            self.metadata_version = answer["metadataVersion"]
            self._release(self.owned - assigned)
            self.owned = assigned
        elif st in ("SYNC_METADATA", "REVOKE_PENDING"):
            self.epoch = answer["memberEpoch"]
            self.metadata_version = answer["metadataVersion"]
            self._release(self.owned - assigned)
            self.owned &= assigned
        elif st in ("FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID"):
            self._release(set(self.owned))
            self.owned = set()
            self.epoch = 0
        elif st in ("UNSUPPORTED_PROTOCOL", "INVALID_REQUEST"):
            self.state["httpErrors"].append("stopped on " + st)
            self.stop = True

    def _release(self, shards):
        # Single-threaded: nothing is in flight once we are here, so a
        # revoked shard is released by simply not listing it any more.
        for s in shards:
            self.state["released"].append(s)

    def _progress_row(self, s):
        p = self.progress[s]
        return {"shard": {"shardIndex": s}, "streamKey": "%s:%d" % (self.a.prefix, s),
                "lastDeliveredId": p["lastDeliveredId"], "lastAckedId": p["lastAckedId"], "pendingCount": 0,
                "updatedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

    # --- data plane ------------------------------------------------------
    def consume(self):
        for s in sorted(self.owned):
            key = "%s:%d" % (self.a.prefix, s)
            reply = self.redis.command("XREADGROUP", "GROUP", self.a.group, self.a.member_id,
                                       "COUNT", "100", "STREAMS", key, ">")
            if not reply:
                continue
            for _key, entries in reply:
                for entry_id, fields in entries:
                    kv = dict(zip(fields[0::2], fields[1::2]))
                    self.state["seen"].append(kv.get(b"seq", b"?").decode())
                    self.redis.command("XACK", key, self.a.group, entry_id)
                    self.state["acked"] += 1
                    eid = entry_id.decode()
                    self.progress[s] = {"lastDeliveredId": eid, "lastAckedId": eid}

    def write_state(self):
        self.state["owned"] = sorted(self.owned)
        tmp = self.a.state + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.state, f)
        os.replace(tmp, self.a.state)

    def run(self):
        self.login()
        while not self.stop:
            self.heartbeat()
            self.consume()
            self.write_state()
            deadline = time.monotonic() + self.interval_ms / 1000.0
            while not self.stop and time.monotonic() < deadline:
                time.sleep(min(0.02, max(0.0, deadline - time.monotonic())))
        self.write_state()


def main():
    p = argparse.ArgumentParser()
    for name in ("base", "user", "password", "prefix", "group", "member-id", "member-name", "redis", "state"):
        p.add_argument("--" + name, required=True)
    p.add_argument("--ca-file", default="")
    a = p.parse_args()
    m = Member(a)

    def on_term(_sig, _frame):
        m.stop = True

    signal.signal(signal.SIGTERM, on_term)
    m.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
