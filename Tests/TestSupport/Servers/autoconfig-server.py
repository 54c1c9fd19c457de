#!/usr/bin/python3
"""The HTTPS server of a mail domain's autoconfig (Thunderbird's config-v1.1.xml), for
mailto-route's discovery tests, on a loopback address only.

It answers the two places a client looks for a domain's settings:
  autoconfig   https://autoconfig.DOMAIN/mail/config-v1.1.xml?emailaddress=ADDRESS
  well-known   https://DOMAIN/.well-known/autoconfig/mail/config-v1.1.xml
with the config of --config or --outgoing, and 404 for any other path. The product uses the standard
URLs, so a test runs this on port 443 (it is root) of a loopback address of its own
(127.0.0.2, 127.0.0.3, ...: Linux routes all of 127.0.0.0/8 to lo), and makes the names
resolve to that address with nss_wrapper (NSS_WRAPPER_HOSTS).

Prints the port it listens on and the pid of the server, which runs detached (so that it
holds none of the test process's descriptors) until it is sent SIGTERM or --lifetime
seconds have passed.

  --address ADDRESS      loopback address to listen on (default 127.0.0.1)
  --port PORT            default 443; 0 lets the kernel pick a free one
  --config FILE          the config-v1.1.xml to serve; or else
  --outgoing HOST:PORT:SOCKETTYPE
                         (repeatable, in order) an outgoingServer of type smtp, SOCKETTYPE
                         SSL, STARTTLS or plain, with authentication password-cleartext
                         and username %EMAILADDRESS%, in a config for --domain that this
                         writes to --outdir as config-v1.1.xml and serves (see sample_config)
  --serve WHERE          autoconfig, well-known or both (default both)
  --status CODE          answer the config's path with this HTTP status and no file
  --delay SECONDS        wait before answering (a slow server)
  --cert/--key           PEM files of the server's certificate; or else
  --ca/--ca-key          a CA's certificate and key (make_certs.sh's ca.pem and ca-key.pem)
                         with which to sign a fresh certificate, written to --outdir as
                         autoconfig.pem and autoconfig-key.pem, for the names given with
                         --name (repeatable; default autoconfig.DOMAIN and DOMAIN for
                         --domain, default example.test) and the listening address
  --certificate-only     make that certificate (with --ca/--ca-key), print the paths of
                         it and its key, and exit: one certificate for the autoconfig
                         server and the SMTP server (smtp_server.py --cert/--key) alike
  --outdir DIR           where requests.log goes (and a made certificate)

requests.log in --outdir gets one JSON line for each request, written before it is
answered:
  {"method": "GET", "path": "/mail/config-v1.1.xml", "query": "emailaddress=a%40example.test",
   "params": {"emailaddress": ["a@example.test"]}, "host": "autoconfig.example.test",
   "sni": "autoconfig.example.test", "status": 200}
and one for each connection that got no answer: a TLS handshake that failed (the client
refused the certificate's CA or the server's protocol)
  {"tls_error": "[SSL: TLSV1_ALERT_UNKNOWN_CA] ...", "sni": "autoconfig.example.test"}
or a connection closed without a request (as curl does, after the handshake, when the
certificate's names do not match the host it asked for)
  {"closed": "without a request", "sni": "smtp.example.test"}
"""
import argparse
import http.server
import ipaddress
import os
import socket
import ssl
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Resources"))
from detach import detach, json_log  # noqa: E402
import urllib.parse
from xml.sax.saxutils import escape

AUTOCONFIG_PATH = "/mail/config-v1.1.xml"
WELL_KNOWN_PATH = "/.well-known/autoconfig/mail/config-v1.1.xml"


def make_certificate(ca, ca_key, names, address, outdir):
    """Signs a certificate for NAMES and ADDRESS with the test CA; returns (cert, key)."""
    cert = os.path.join(outdir, "autoconfig.pem")
    key = os.path.join(outdir, "autoconfig-key.pem")
    csr = os.path.join(outdir, "autoconfig.csr")
    san = ",".join(["DNS:" + name for name in names] + ["IP:" + address])
    subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=" + names[0],
                    "-addext", "subjectAltName=" + san], check=True, capture_output=True)
    # A serial of its own instead of -CAcreateserial: tests running at once share the CA,
    # and a ca.srl beside it would be a file they race on.
    serial = "0x%x" % (int(time.time() * 1e6) ^ (os.getpid() << 40))
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-set_serial", serial,
                    "-days", "2", "-copy_extensions", "copy", "-out", cert], check=True, capture_output=True)
    os.unlink(csr)
    return cert, key


def sample_config(domain, outgoing):
    """Thunderbird's config-v1.1.xml for DOMAIN, with one outgoingServer for each
    (hostname, port, socketType) in OUTGOING, in that order."""
    servers = "".join("""
    <outgoingServer type="smtp">
      <hostname>%s</hostname>
      <port>%d</port>
      <socketType>%s</socketType>
      <authentication>password-cleartext</authentication>
      <username>%%EMAILADDRESS%%</username>
    </outgoingServer>""" % (escape(hostname), port, escape(socket_type)) for hostname, port, socket_type in outgoing)
    return """<?xml version="1.0" encoding="UTF-8"?>
<clientConfig version="1.1">
  <emailProvider id="%(domain)s">
    <domain>%(domain)s</domain>
    <displayName>%(domain)s mail (test)</displayName>
    <displayShortName>%(domain)s</displayShortName>
    <incomingServer type="imap">
      <hostname>imap.%(domain)s</hostname>
      <port>993</port>
      <socketType>SSL</socketType>
      <authentication>password-cleartext</authentication>
      <username>%%EMAILADDRESS%%</username>
    </incomingServer>%(servers)s
  </emailProvider>
</clientConfig>
""" % {"domain": escape(domain), "servers": servers}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=443)
    parser.add_argument("--config")
    parser.add_argument("--outgoing", action="append", default=[])
    parser.add_argument("--serve", choices=["autoconfig", "well-known", "both"], default="both")
    parser.add_argument("--status", type=int)
    parser.add_argument("--delay", type=float, default=0)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--ca")
    parser.add_argument("--ca-key")
    parser.add_argument("--domain", default="example.test")
    parser.add_argument("--name", action="append", default=[])
    parser.add_argument("--outdir", required=True)
    parser.add_argument("--lifetime", type=float, default=600)
    parser.add_argument("--certificate-only", action="store_true")
    args = parser.parse_args()

    if not ipaddress.ip_address(args.address).is_loopback:
        parser.error("--address must be a loopback address")
    if args.cert and args.key:
        cert, key = args.cert, args.key
    elif args.ca and args.ca_key:
        names = args.name or ["autoconfig." + args.domain, args.domain]
        cert, key = make_certificate(args.ca, args.ca_key, names, args.address, args.outdir)
    else:
        parser.error("give --cert and --key, or --ca and --ca-key")
    if args.certificate_only:
        print(cert, key)
        return 0
    if args.config:
        with open(args.config, "rb") as f:
            body = f.read()
    elif args.outgoing:
        outgoing = []
        for server in args.outgoing:
            hostname, port, socket_type = server.rsplit(":", 2)
            outgoing.append((hostname, int(port), socket_type))
        body = sample_config(args.domain, outgoing).encode()
        with open(os.path.join(args.outdir, "config-v1.1.xml"), "wb") as f:
            f.write(body)
    else:
        parser.error("give --config or --outgoing")
    served = {"autoconfig": [AUTOCONFIG_PATH], "well-known": [WELL_KNOWN_PATH],
              "both": [AUTOCONFIG_PATH, WELL_KNOWN_PATH]}[args.serve]
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    # As smtp_server.py: drop every descriptor inherited from the test process, bind, then
    # serve from a detached child and let the launcher exit with the port and pid printed.
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    family = socket.AF_INET6 if ":" in args.address else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.address, args.port))
    listener.listen(64)
    detach(listener.getsockname()[1])
    log = json_log(os.path.join(args.outdir, "requests.log"))

    # The name the client asked for in its TLS handshake: each connection is served, from
    # its handshake on, by a thread of its own.
    connection = threading.local()

    def remember_sni(_socket, name, _context):
        connection.sni = name

    context.sni_callback = remember_sni

    class Handler(http.server.BaseHTTPRequestHandler):
        def handle(self):
            self.answered = False
            error = None
            try:
                super().handle()
            except OSError as failure:
                error = str(failure)
            if not self.answered:
                log({"closed": error or "without a request", "sni": connection.sni})

        def do_GET(self):
            self.answered = True
            url = urllib.parse.urlsplit(self.path)
            status = 404
            if url.path in served:
                status = args.status or 200
            log({"method": self.command, "path": url.path, "query": url.query,
                 "params": urllib.parse.parse_qs(url.query), "host": self.headers.get("Host"),
                 "sni": connection.sni, "status": status})
            if args.delay:
                time.sleep(args.delay)
            payload = body if status == 200 else b""
            self.send_response(status)
            self.send_header("Content-Type", "text/xml; charset=utf-8" if status == 200 else "text/plain")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_HEAD = do_POST = do_GET

        def log_message(self, format, *arguments):
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def finish_request(self, request, client_address):
            # The handshake happens in the connection's own thread, so that a client that
            # connects and says nothing holds up no other.
            request.settimeout(30)
            connection.sni = None
            try:
                request = context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError) as error:
                log({"tls_error": str(error), "sni": connection.sni})
                request.close()
                return
            super().finish_request(request, client_address)

    server = Server((args.address, 0), Handler, bind_and_activate=False)
    server.socket.close()
    server.socket = listener
    server.server_address = listener.getsockname()
    threading.Timer(args.lifetime, lambda: os._exit(0)).start()
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
