#!/usr/bin/python3
"""A real SMTP server for mailto-route's tests, on a loopback address only (Debian's aiosmtpd).

Prints the port it listens on (bound to port 0, so the kernel picks a free one) and the
pid of the server, which runs detached (so that it holds none of the test process's
descriptors) until it is sent SIGTERM or --lifetime seconds have passed. Every accepted message is saved as N.eml (the bytes as received)
and N.json (envelope) in --outdir.

  --mode plain|starttls|tls|silent
                              tls is implicit TLS (smtps); starttls offers STARTTLS;
                              silent accepts connections and never says a word
  --cert/--key                PEM files for starttls and tls
  --auth USER:PASSWORD        require AUTH (PLAIN/LOGIN) with these credentials
  --oauth-token USER:TOKEN    require AUTH, and accept the SASL mechanisms XOAUTH2 (Google's)
                              and OAUTHBEARER (RFC 7628) with this OAuth 2.0 bearer token for
                              USER (repeatable: any pair will do)
  --mechanisms "M ..."        the SASL mechanisms EHLO offers, in this order, of XOAUTH2,
                              OAUTHBEARER, PLAIN, LOGIN ("" offers none); by default PLAIN and
                              LOGIN, and with --oauth-token XOAUTH2 and OAUTHBEARER too
  --refuse ADDR               answer RCPT TO:<ADDR> with 550 (repeatable)
  --defer ADDR                answer RCPT TO:<ADDR> with 450, try again later (repeatable)
  --data-delay SECONDS        wait before answering the end of DATA (slow server)
  --data-reply REPLY          answer the end of DATA with REPLY (and keep nothing)
  --silent-after EHLO|MAIL|RCPT|DATA|END
                              never answer that command (the first RCPT, or DATA itself
                              rather than the message after it; END: the end of the
                              message, which is not kept), nor anything after it on that
                              connection: a server that stops talking mid-session
  --port PORT                 listen on PORT instead of a free one (a server brought back up,
                              or a well-known port such as 465 for mail server discovery)
  --address ADDRESS           the loopback address to listen on (default 127.0.0.1; discovery
                              tests give each server an address of its own in 127.0.0.0/8,
                              its name mapped there with nss_wrapper)

Each connection accepted appends one line to connections.log in --outdir, and the time it
was accepted (UNIX seconds) to accepted.log, and the time the client closed it to closed.log;
a silent server writes only accepted.log and closed.log (and heard.log).

A server that goes silent (--silent-after) appends to silence.log the time it last spoke
before it did (a client's wait on its silence began no earlier), and, as
a --mode silent server does, every line the client sends meanwhile to heard.log: the
server reads on, and answers nothing.

Each AUTH command appends one JSON line to auth.log in --outdir, the exchange as it went:
  {"connection": N (the Nth TCP connection; connections.log has two lines for one that
   did STARTTLS), "time": UNIX-SECONDS, "tls": bool, "mechanism": "XOAUTH2",
   "initial_response": the decoded initial response (null: none was sent),
   "exchange": [{"server": "334 ...", "challenge": decoded}, {"client": decoded (null: the
   client cancelled with "*" or sent no base64)}, ...], "reply": the final reply (null:
   the client hung up first, as libcurl 7.88 does on XOAUTH2's error challenge),
   "success": bool, "user": the user it named, and for XOAUTH2/OAUTHBEARER "token" (the
   bearer token), "fields" (the key/value pairs), "gs2_header" (OAUTHBEARER), "error" (why
   the response was not understood)}
(decoded bytes as UTF-8, others as backslash escapes). N.json gets "mechanism": the
mechanism of the AUTH that succeeded on the message's connection (null: none).

The OAuth 2.0 mechanisms, answered as Gmail does (XOAUTH2) and as RFC 7628 says (OAUTHBEARER):
  XOAUTH2: the response (initial, or after an empty "334 " challenge) must be
    "user=" USER ^A "auth=Bearer " TOKEN ^A ^A (^A: the byte 0x01). Accepted: 235 2.7.0 Accepted.
    Refused (an unknown token, or another user's): 334 and the base64 of
    {"status":"400","schemes":"Bearer","scope":"https://mail.google.com/"}; whatever the
    client answers (Google says: an empty line), then
    535-5.7.8 Username and Password not accepted. For more information, go to
    535 5.7.8  https://support.google.com/mail/?p=BadCredentials
  OAUTHBEARER (RFC 7628 3.1): a GS2 header ("n,a=USER," or "n,,"; "y" as "n"; channel
    binding "p=" is refused) ^A, then KEY=VALUE ^A pairs (auth=Bearer TOKEN required;
    host, port, ... recorded), then ^A. The user in a= must be the token's, if given.
    Accepted: 235 2.7.0 Accepted. Refused (RFC 7628 3.2.2, 4.4): 334 and the base64 of
    {"status":"invalid_token","scope":"https://mail.google.com/",
     "openid-configuration":"https://accounts.google.com/.well-known/openid-configuration"};
    the client should answer ^A (base64 "AQ=="); then 535 5.7.8 Authentication credentials
    invalid, whatever it answered.
  A response that is not base64: 501 5.5.2 Can't decode base64 (as aiosmtpd says for PLAIN);
  base64 but not the mechanism's form: 501 5.5.2 Malformed MECHANISM response; "*" after a
  challenge: 501 5.7.0 Auth aborted.
"""
import argparse
import asyncio
import base64
import binascii
import ipaddress
import json
import os
import re
import socket
import ssl
import sys
import time

from aiosmtpd.smtp import MISSING, SMTP, AuthResult, LoginPassword

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from detach import detach  # noqa: E402


class Handler:
    def __init__(self, outdir, refuse, delay, data_reply, defer=()):
        self.outdir = outdir
        self.data_reply = data_reply
        self.refuse = set(a.lower() for a in refuse)
        self.defer = set(a.lower() for a in defer)
        self.delay = delay
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.defer:
            return "450 4.2.0 <%s>: Recipient address deferred, try again later" % address
        if address.lower() in self.refuse:
            return "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 Ok"

    async def handle_DATA(self, server, session, envelope):
        if await server.silent("END"):
            return "451 4.3.0 Not kept"
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.data_reply:
            return self.data_reply
        self.count += 1
        base = os.path.join(self.outdir, str(self.count))
        with open(base + ".eml.tmp", "wb") as f:
            f.write(envelope.original_content)
        with open(base + ".json", "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
                       "auth": session.authenticated,
                       "mechanism": getattr(session, "auth_mechanism", None),
                       # session.ssl is only set by STARTTLS; implicit TLS shows on the transport.
                       "tls": server.transport.get_extra_info("sslcontext") is not None}, f)
        os.rename(base + ".eml.tmp", base + ".eml")
        return "250 2.0.0 Ok: queued as TEST%d" % self.count


class Authenticator:
    def __init__(self, user, password):
        self.user = user.encode()
        self.password = password.encode()

    def __call__(self, server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and auth_data.login == self.user and auth_data.password == self.password
        return AuthResult(success=ok, handled=False)


def note_accepted(outdir):
    """When a connection was accepted: the moment a test's wait on this server starts."""
    with open(os.path.join(outdir, "accepted.log"), "a") as log:
        log.write("%.6f\n" % time.time())


def note_closed(outdir):
    """When the client closed a connection: the moment it stopped waiting on this server,
    before whatever it does next (queue the message, write its report, exit)."""
    with open(os.path.join(outdir, "closed.log"), "a") as log:
        log.write("%.6f\n" % time.time())


async def overhear(reader, outdir):
    """Reads what the client says to a server that has gone silent, into heard.log (one line
    each, as received), until the client hangs up."""
    while True:
        line = await reader.readline()
        if not line:
            return
        with open(os.path.join(outdir, "heard.log"), "a") as log:
            log.write(line.rstrip(b"\r\n").decode("utf-8", "backslashreplace") + "\n")


# MARK: - OAuth 2.0 SASL mechanisms

MECHANISMS = ("XOAUTH2", "OAUTHBEARER", "PLAIN", "LOGIN")
GMAIL_ACCEPTED = "235 2.7.0 Accepted"
GMAIL_REFUSED = ("535-5.7.8 Username and Password not accepted. For more information, go to\r\n"
                 "535 5.7.8  https://support.google.com/mail/?p=BadCredentials")
XOAUTH2_ERROR = {"status": "400", "schemes": "Bearer", "scope": "https://mail.google.com/"}
OAUTHBEARER_ERROR = {"status": "invalid_token", "scope": "https://mail.google.com/",
                     "openid-configuration": "https://accounts.google.com/.well-known/openid-configuration"}
OAUTHBEARER_REFUSED = "535 5.7.8 Authentication credentials invalid"
# RFC 7628 3.1: key = 1*(ALPHA); value = *(VCHAR / SP / HTAB / CR / LF).
KVPAIR = re.compile(rb"([A-Za-z]+)=([\x21-\x7e \t\r\n]*)\Z")
# RFC 5801 4: gs2-cb-flag "," [ "a=" saslname ] ","
GS2_HEADER = re.compile(rb"(n|y|p=[A-Za-z0-9.-]+),(?:a=([^,]+))?,\Z")


def text(data):
    return data.decode("utf-8", "backslashreplace")


def bearer(fields):
    """The token of an "auth" value "Bearer TOKEN" (RFC 6750: the scheme in any case)."""
    scheme, _, token = fields.get("auth", "").partition(" ")
    return token if scheme.lower() == "bearer" and token else None


def parse_xoauth2(data):
    """(fields, error) of "user=" USER ^A "auth=Bearer " TOKEN ^A ^A."""
    if not data.endswith(b"\x01\x01"):
        return None, "does not end with ^A^A"
    fields = {}
    for pair in data[:-2].split(b"\x01"):
        key, equals, value = pair.partition(b"=")
        if not equals or not key:
            return None, "%r is not KEY=VALUE" % text(pair)
        fields[text(key)] = text(value)
    if "user" not in fields or bearer(fields) is None:
        return None, "no user= or no auth=Bearer TOKEN"
    return fields, None


def parse_oauthbearer(data):
    """(gs2 header, authzid or None, fields, error) of an RFC 7628 client response."""
    header, separator, rest = data.partition(b"\x01")
    match = GS2_HEADER.match(header)
    if not separator or not match:
        return None, None, None, "no GS2 header (RFC 5801) before the first ^A"
    # rest: *(kvpair ^A) ^A
    if not rest.endswith(b"\x01"):
        return None, None, None, "does not end with ^A"
    pairs = rest[:-1]
    if pairs and not pairs.endswith(b"\x01"):
        return None, None, None, "the last KEY=VALUE is not ended by ^A"
    fields = {}
    for pair in pairs.split(b"\x01")[:-1]:
        kv = KVPAIR.match(pair)
        if not kv:
            return None, None, None, "%r is not KEY=VALUE" % text(pair)
        fields[text(kv.group(1))] = text(kv.group(2))
    authzid = match.group(2)
    if authzid is not None:
        authzid = text(authzid.replace(b"=2C", b",").replace(b"=3D", b"="))
    if match.group(1).startswith(b"p="):
        return None, None, None, "channel binding asked for, and this server has none"
    if bearer(fields) is None:
        return None, None, None, "no auth=Bearer TOKEN"
    return text(header), authzid, fields, None


def login_user(record):
    """The user a PLAIN ("authzid ^@ user ^@ password") or LOGIN exchange named, if any."""
    answers = [record["initial_response"]] + [step["client"] for step in record["exchange"] if "client" in step]
    first = next((answer for answer in answers if answer is not None), None)
    if first is None or record["mechanism"] == "LOGIN":
        return first
    parts = first.split("\x00")
    return parts[1] if len(parts) == 3 else None


class TestSMTP(SMTP):
    """aiosmtpd's SMTP with the connection count, the SASL record (auth.log), XOAUTH2 and
    OAUTHBEARER, and the AUTH mechanisms offered in a chosen order."""

    connections = 0

    def __init__(self, *args, outdir, oauth_tokens=(), mechanisms=None, silent_after=None, lifetime=600, **kwargs):
        self.outdir = outdir
        self.silent_after = silent_after
        self.lifetime = lifetime
        self.oauth_tokens = list(oauth_tokens)
        self.mechanism_order = mechanisms
        self.sasl = None
        # When the server last began to say something (push).
        self.spoke = None
        offered = mechanisms if mechanisms is not None else \
            MECHANISMS if self.oauth_tokens else ("PLAIN", "LOGIN")
        super().__init__(*args, auth_exclude_mechanism=[m for m in MECHANISMS if m not in offered], **kwargs)

    def connection_lost(self, error):
        note_closed(self.outdir)
        super().connection_lost(error)

    def connection_made(self, transport):
        # aiosmtpd calls this again once STARTTLS is done: that is no new connection (but
        # connections.log has always had a line for it too).
        if self._original_transport is None:
            TestSMTP.connections += 1
            self.connection = TestSMTP.connections
            note_accepted(self.outdir)
        with open(os.path.join(self.outdir, "connections.log"), "a") as log:
            log.write("connection\n")
        super().connection_made(transport)

    async def push(self, status):
        self.spoke = time.time()
        if self.mechanism_order is not None and isinstance(status, str) and status.startswith("250-AUTH "):
            if not self.mechanism_order:
                return
            status = "250-AUTH " + " ".join(self.mechanism_order)
        if self.sasl is not None:
            line = status if isinstance(status, str) else text(status)
            if line.startswith("334 "):
                try:
                    challenge = text(base64.b64decode(line[4:], validate=True))
                except binascii.Error:
                    challenge = None
                self.sasl["exchange"].append({"server": line, "challenge": challenge})
            else:
                self.sasl["reply"] = line
        await super().push(status)

    async def challenge_auth(self, challenge, encode_to_b64=True, log_client_response=False):
        response = await super().challenge_auth(challenge, encode_to_b64, log_client_response)
        if self.sasl is not None:
            self.sasl["exchange"].append({"client": None if response is MISSING else text(response)})
        return response

    async def silent(self, command):
        """Whether this command is the one never answered: if so, note when the server last
        spoke (silence.log), then hold the connection, answering nothing and noting what
        the client says (heard.log), until the client hangs up or the server's lifetime is
        over (aiosmtpd runs no further command meanwhile)."""
        if self.silent_after != command:
            return False
        with open(os.path.join(self.outdir, "silence.log"), "a") as log:
            log.write("%.6f\n" % self.spoke)
        try:
            await asyncio.wait_for(overhear(self._reader, self.outdir), self.lifetime)
        except asyncio.TimeoutError:
            pass
        return True

    async def smtp_EHLO(self, arg):
        if not await self.silent("EHLO"):
            await super().smtp_EHLO(arg)

    async def smtp_MAIL(self, arg):
        if not await self.silent("MAIL"):
            await super().smtp_MAIL(arg)

    async def smtp_RCPT(self, arg):
        if not await self.silent("RCPT"):
            await super().smtp_RCPT(arg)

    async def smtp_DATA(self, arg):
        if not await self.silent("DATA"):
            await super().smtp_DATA(arg)

    async def smtp_AUTH(self, arg):
        words = arg.split() if arg else []
        initial = None
        if len(words) == 2:
            try:
                initial = text(base64.b64decode(words[1], validate=True)) if words[1] != "=" else ""
            except binascii.Error:
                initial = words[1]
        self.sasl = {"connection": self.connection, "time": time.time(),
                     "tls": self._tls_protocol is not None or self.transport.get_extra_info("sslcontext") is not None,
                     "mechanism": words[0] if words else None, "initial_response": initial,
                     "exchange": [], "reply": None}
        was_authenticated = self.session.authenticated
        try:
            await super().smtp_AUTH(arg)
        finally:
            record, self.sasl = self.sasl, None
            record["success"] = bool(self.session.authenticated) and not was_authenticated
            if record["success"]:
                self.session.auth_mechanism = record["mechanism"]
            if record["mechanism"] in ("PLAIN", "LOGIN") and "user" not in record:
                record["user"] = login_user(record)
            with open(os.path.join(self.outdir, "auth.log"), "a") as log:
                log.write(json.dumps(record) + "\n")

    async def oauth_response(self, args):
        """The client's response: the initial one, or the answer to an empty challenge;
        None when the exchange already ended (a reply was sent)."""
        if len(args) == 1:
            response = await self.challenge_auth("")
            return None if response is MISSING else response
        if args[1] == "=":
            return b""
        try:
            return base64.b64decode(args[1], validate=True)
        except binascii.Error:
            await self.push("501 5.5.2 Can't decode base64")
            return None

    def token_user(self, token, user):
        """Whether `token` is the bearer token of `user` (None: of anyone)."""
        return any(t == token and (user is None or u == user) for u, t in self.oauth_tokens)

    async def refuse(self, error, final):
        """The error challenge, the client's answer to it, then `final` (RFC 7628 3.2.2)."""
        answer = await self.challenge_auth(json.dumps(error, separators=(",", ":")))
        if answer is MISSING:
            return AuthResult(success=False, handled=True)
        return AuthResult(success=False, handled=False, message=final)

    async def auth_XOAUTH2(self, _, args):
        response = await self.oauth_response(args)
        if response is None:
            return AuthResult(success=False, handled=True)
        fields, error = parse_xoauth2(response)
        if fields is None:
            self.sasl["error"] = error
            return AuthResult(success=False, handled=False, message="501 5.5.2 Malformed XOAUTH2 response")
        token = bearer(fields)
        self.sasl.update({"user": fields["user"], "token": token, "fields": fields})
        if not self.token_user(token, fields["user"]):
            return await self.refuse(XOAUTH2_ERROR, GMAIL_REFUSED)
        return AuthResult(success=True, auth_data=fields["user"], message=GMAIL_ACCEPTED)

    async def auth_OAUTHBEARER(self, _, args):
        response = await self.oauth_response(args)
        if response is None:
            return AuthResult(success=False, handled=True)
        header, authzid, fields, error = parse_oauthbearer(response)
        if header is None:
            self.sasl["error"] = error
            return AuthResult(success=False, handled=False, message="501 5.5.2 Malformed OAUTHBEARER response")
        token = bearer(fields)
        user = authzid if authzid is not None else next((u for u, t in self.oauth_tokens if t == token), None)
        self.sasl.update({"gs2_header": header, "user": user, "token": token, "fields": fields})
        if not self.token_user(token, authzid):
            return await self.refuse(OAUTHBEARER_ERROR, OAUTHBEARER_REFUSED)
        return AuthResult(success=True, auth_data=user, message=GMAIL_ACCEPTED)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["plain", "starttls", "tls", "silent"], default="plain")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--auth")
    parser.add_argument("--oauth-token", action="append", default=[])
    parser.add_argument("--mechanisms")
    parser.add_argument("--refuse", action="append", default=[])
    parser.add_argument("--defer", action="append", default=[])
    parser.add_argument("--data-delay", type=float, default=0)
    parser.add_argument("--data-reply")
    parser.add_argument("--silent-after", choices=["EHLO", "MAIL", "RCPT", "DATA", "END"])
    parser.add_argument("--outdir", required=True)
    parser.add_argument("--lifetime", type=float, default=600)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--address", default="127.0.0.1")
    args = parser.parse_args()
    if not ipaddress.ip_address(args.address).is_loopback:
        parser.error("--address must be a loopback address")
    oauth_tokens = [tuple(pair.split(":", 1)) for pair in args.oauth_token]
    if any(len(pair) != 2 for pair in oauth_tokens):
        parser.error("--oauth-token takes USER:TOKEN")
    mechanisms = None
    if args.mechanisms is not None:
        mechanisms = args.mechanisms.upper().split()
        unknown = [m for m in mechanisms if m not in MECHANISMS]
        if unknown:
            parser.error("--mechanisms: %s not among %s" % (" ".join(unknown), " ".join(MECHANISMS)))

    # Tests start servers in parallel with other subprocesses. A descriptor inherited from
    # the test process (another test's pipe, or the socket Foundation watches to see a
    # child exit) would stay open as long as this server lives and hang that other test.
    # So: drop them all, then serve from a detached child, and let the launcher exit.
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.address, args.port))
    listener.listen(64)
    detach(listener.getsockname()[1])

    context = None
    if args.mode in ("starttls", "tls"):
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
    authenticator = None
    if args.auth:
        user, password = args.auth.split(":", 1)
        authenticator = Authenticator(user, password)
    handler = Handler(args.outdir, args.refuse, args.data_delay, args.data_reply, args.defer)

    def factory():
        return TestSMTP(
            handler,
            outdir=args.outdir,
            oauth_tokens=oauth_tokens,
            mechanisms=mechanisms,
            silent_after=args.silent_after,
            lifetime=args.lifetime,
            hostname="mx.test",
            data_size_limit=None,
            tls_context=context if args.mode == "starttls" else None,
            require_starttls=args.mode == "starttls",
            authenticator=authenticator,
            auth_required=authenticator is not None or bool(oauth_tokens),
            # Implicit TLS is TLS too; aiosmtpd only knows STARTTLS, so it is not asked for.
            auth_require_tls=args.mode == "starttls",
        )

    loop = asyncio.new_event_loop()
    if args.mode == "silent":
        async def mute(reader, writer):
            note_accepted(args.outdir)
            # Says nothing; reads until the client hangs up.
            await overhear(reader, args.outdir)
            note_closed(args.outdir)
        loop.run_until_complete(asyncio.start_server(mute, sock=listener))
        loop.call_later(args.lifetime, loop.stop)
        loop.run_forever()
        return
    loop.run_until_complete(loop.create_server(factory, sock=listener, ssl=context if args.mode == "tls" else None))
    loop.call_later(args.lifetime, loop.stop)
    loop.run_forever()


if __name__ == "__main__":
    sys.exit(main())
