#!/usr/bin/python3
"""A tiny authoritative DNS server on a loopback address, for the discovery tests that need
what resolv_wrapper's RESOLV_WRAPPER_HOSTS cannot give: several SRV records for one name
(resolv_wrapper answers with the first matching line only), a "." target, and a log of
the queries asked, in order.

A program run with LD_PRELOAD=libresolv_wrapper.so and RESOLV_WRAPPER_CONF=FILE, FILE
saying "nameserver ADDRESS", sends its res_query/res_nquery questions (GIO's
g_resolver_lookup_service) here. resolv_wrapper always asks port 53, so this listens on
ADDRESS:53 (the tests are root), UDP and TCP. getaddrinfo is not asked here: glibc's own
resolver ignores resolv_wrapper; names to addresses come from nss_wrapper's
NSS_WRAPPER_HOSTS.

Prints the port and the pid of the server, which runs detached until SIGTERM or
--lifetime seconds, as smtp_server.py does.

  --address ADDRESS      loopback address to listen on (default 127.0.0.1)
  --port PORT            default 53
  --records FILE         the records, in RESOLV_WRAPPER_HOSTS's format, one a line:
                           SRV   _submission._tcp.example.test mail.example.test 587 10 5
                                 (target port [priority [weight]]; priority 1 and weight 100
                                 when left out, as resolv_wrapper; target . for "no service")
                           A     mail.example.test 127.0.0.2
                           AAAA  mail.example.test ::1
                           TXT   example.test some text
                         every line of a name and type is answered, in the file's order;
                         a name with no line at all is NXDOMAIN; # starts a comment
  --resolv-conf FILE     write "nameserver ADDRESS" to FILE, for RESOLV_WRAPPER_CONF
  --outdir DIR           where queries.log goes: one JSON line for each question,
                           {"type": "SRV", "name": "_submissions._tcp.example.test",
                            "rcode": "NOERROR", "answers": 1}
"""
import argparse
import ipaddress
import os
import socket
import struct
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Resources"))
from detach import detach, json_log  # noqa: E402

TYPES = {"A": 1, "TXT": 16, "AAAA": 28, "SRV": 33}
NAMES = {number: name for name, number in TYPES.items()}


def encode_name(name):
    name = name.rstrip(".")
    if not name:
        return b"\0"
    return b"".join(bytes([len(label)]) + label.encode("ascii") for label in name.split(".")) + b"\0"


def rdata(kind, fields):
    if kind == "A":
        return socket.inet_pton(socket.AF_INET, fields[0])
    if kind == "AAAA":
        return socket.inet_pton(socket.AF_INET6, fields[0])
    if kind == "SRV":
        priority = int(fields[2]) if len(fields) > 2 else 1
        weight = int(fields[3]) if len(fields) > 3 else 100
        return struct.pack("!HHH", priority, weight, int(fields[1])) + encode_name(fields[0])
    text = " ".join(fields).encode()
    return b"".join(bytes([len(text[i:i + 255])]) + text[i:i + 255] for i in range(0, max(len(text), 1), 255))


def read_records(path):
    records = {}
    with open(path) as f:
        for line in f:
            fields = line.split("#", 1)[0].split()
            if len(fields) < 3 or fields[0].upper() not in TYPES:
                continue
            key = (TYPES[fields[0].upper()], fields[1].rstrip(".").lower())
            records.setdefault(key, []).append(rdata(fields[0].upper(), fields[2:]))
    return records


def answer(query, records, log, limit=65535):
    """The reply to one DNS query message, or None for one not worth a reply; one longer
    than LIMIT is cut to its question with TC set, so that the client asks again over TCP."""
    if len(query) < 12:
        return None
    ident, flags, qdcount = struct.unpack("!HHH", query[:6])
    if flags & 0x8000 or qdcount != 1:
        return None
    offset, labels = 12, []
    while offset < len(query) and query[offset]:
        length = query[offset]
        labels.append(query[offset + 1:offset + 1 + length].decode("ascii", "replace"))
        offset += 1 + length
    if offset + 5 > len(query):
        return None
    qtype, qclass = struct.unpack("!HH", query[offset + 1:offset + 5])
    question = query[12:offset + 5]
    name = ".".join(labels).lower()
    found = records.get((qtype, name), [])
    known = any(key[1] == name for key in records)
    rcode = 0 if known else 3
    log({"type": NAMES.get(qtype, str(qtype)), "name": name, "rcode": "NOERROR" if known else "NXDOMAIN",
         "answers": len(found)})
    reply = struct.pack("!HHHHHH", ident, 0x8400 | (flags & 0x0100) | rcode, 1, len(found), 0, 0) + question
    for data in found:
        # The owner is a pointer to the question's name, at offset 12.
        reply += struct.pack("!HHHIH", 0xC00C, qtype, qclass, 60, len(data)) + data
    if len(reply) > limit:
        reply = struct.pack("!HHHHHH", ident, 0x8600 | (flags & 0x0100) | rcode, 1, 0, 0, 0) + question
    return reply


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=53)
    parser.add_argument("--records", required=True)
    parser.add_argument("--resolv-conf")
    parser.add_argument("--outdir", required=True)
    parser.add_argument("--lifetime", type=float, default=600)
    args = parser.parse_args()
    if not ipaddress.ip_address(args.address).is_loopback:
        parser.error("--address must be a loopback address")
    records = read_records(args.records)

    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    family = socket.AF_INET6 if ":" in args.address else socket.AF_INET
    udp = socket.socket(family, socket.SOCK_DGRAM)
    udp.bind((args.address, args.port))
    port = udp.getsockname()[1]
    tcp = socket.socket(family, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind((args.address, port))
    tcp.listen(16)
    if args.resolv_conf:
        with open(args.resolv_conf, "w") as f:
            f.write("nameserver %s\n" % args.address)
    detach(port)
    log = json_log(os.path.join(args.outdir, "queries.log"))

    def serve_tcp():
        while True:
            connection, _ = tcp.accept()
            with connection:
                connection.settimeout(5)
                try:
                    length = struct.unpack("!H", connection.recv(2, socket.MSG_WAITALL))[0]
                    reply = answer(connection.recv(length, socket.MSG_WAITALL), records, log)
                    if reply:
                        connection.sendall(struct.pack("!H", len(reply)) + reply)
                except (OSError, struct.error):
                    pass

    threading.Thread(target=serve_tcp, daemon=True).start()
    threading.Timer(args.lifetime, lambda: os._exit(0)).start()
    while True:
        query, client = udp.recvfrom(4096)
        reply = answer(query, records, log, limit=512)
        if reply is not None:
            udp.sendto(reply, client)


if __name__ == "__main__":
    sys.exit(main())
