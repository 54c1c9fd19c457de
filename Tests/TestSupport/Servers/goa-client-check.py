#!/usr/bin/python3
"""What Debian's own GNOME Online Accounts client library (libgoa-1.0, through
gir1.2-goa-1.0) reads from the session bus at DBUS_SESSION_BUS_ADDRESS: an independent
judge of Servers/goa-standin.py (or of a real goa-daemon).

  goa-client-check.py [--no-calls] [--password-id ID]... [--compare ACCOUNTS.json]

Prints one JSON object: {"accounts": [...]} with, per account libgoa lists (Goa.Client),
its object path, its interfaces, every property of Account, Mail and OAuth2Based that
libgoa's own interface descriptions name (read through the library's GObject properties),
and, unless --no-calls, what these calls answered through the library, in this order:
GetAccessToken, EnsureCredentials, GetPassword(ID) for each --password-id (default
smtp-password and imap-password); a failed call shows the GError (domain, code, the
Goa.Error name, message). "AttentionNeeded_after_calls" is the property once the calls'
PropertiesChanged signals have been seen.

--compare FILE checks what libgoa read against the stand-in's accounts file (see
goa-standin.py): the account ids, ProviderType, Identity, every Account and Mail property
the file gives, OAuth2Based's, AccessToken/ExpiresIn, Passwords and the Credentials
state (expired, and unreachable for a password account: NotAuthorized and AttentionNeeded
afterwards; unreachable for OAuth2: Failed). Meant for a stand-in that
has answered no call yet. Adds "compare": {"ok": bool, "mismatches": [...]} and exits 1
on a mismatch.
"""
import argparse
import json
import re
import sys

import gi

gi.require_version("Goa", "1.0")
from gi.repository import GLib, Goa  # noqa: E402

# Each interface: its libgoa type and the Goa.Object getter of its proxy.
INTERFACES = {
    "Account": (Goa.Account, Goa.Object.get_account),
    "Mail": (Goa.Mail, Goa.Object.get_mail),
    "OAuth2Based": (Goa.OAuth2Based, Goa.Object.get_oauth2_based),
    "PasswordBased": (Goa.PasswordBased, Goa.Object.get_password_based),
}


def gobject_name(dbus_name):
    """gdbus-codegen's property name: SmtpAuthXoauth2 -> smtp-auth-xoauth2."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", dbus_name).lower()


def read_properties(proxy, interface):
    return {p.name: proxy.get_property(gobject_name(p.name)) for p in interface.interface_info().properties}


def error_value(error):
    value = {"domain": error.domain, "code": error.code, "message": error.message}
    if error.domain == "goa-error-quark":
        value["goa_error"] = Goa.Error(error.code).value_nick.upper().replace("-", "_")
    return value


def call(function, *arguments):
    try:
        return {"value": function(*arguments, None)}
    except GLib.Error as error:
        return {"error": error_value(error)}


def settle():
    """Lets the signals that came before the last reply reach the proxies."""
    context = GLib.MainContext.default()
    for _ in range(50):
        while context.iteration(False):
            pass
        GLib.usleep(2000)


def read_accounts(options):
    client = Goa.Client.new_sync(None)
    accounts = []
    for obj in sorted(client.get_accounts(), key=lambda o: o.get_object_path()):
        account = obj.get_account()
        entry = {
            "object_path": obj.get_object_path(),
            "interfaces": sorted(i.get_info().name for i in obj.get_interfaces()),
        }
        for name, (interface, getter) in INTERFACES.items():
            proxy = getter(obj)
            entry[name] = None if proxy is None else read_properties(proxy, interface)
        if not options.no_calls:
            calls = {}
            oauth2 = obj.get_oauth2_based()
            if oauth2 is not None:
                result = call(oauth2.call_get_access_token_sync)
                if "value" in result:
                    token, expires_in = result["value"]
                    result = {"access_token": token, "expires_in": expires_in}
                calls["GetAccessToken"] = result
            result = call(account.call_ensure_credentials_sync)
            calls["EnsureCredentials"] = {"expires_in": result["value"]} if "value" in result else result
            password = obj.get_password_based()
            if password is not None:
                calls["GetPassword"] = {}
                for password_id in options.password_id or ["smtp-password", "imap-password"]:
                    result = call(password.call_get_password_sync, password_id)
                    calls["GetPassword"][password_id] = {"password": result["value"]} if "value" in result else result
            entry["calls"] = calls
            settle()
            entry["AttentionNeeded_after_calls"] = account.get_property("attention-needed")
        accounts.append(entry)
    return accounts


def compare(accounts, path):
    with open(path, encoding="utf-8") as file:
        expected = json.load(file)["accounts"]
    mismatches = []

    def check(where, got, want):
        if got != want:
            mismatches.append({"where": where, "libgoa": got, "file": want})

    read = {a["Account"]["Id"]: a for a in accounts}
    check("account ids", sorted(read), sorted(expected))
    for account_id, want in expected.items():
        got = read.get(account_id)
        if got is None:
            continue
        check(account_id + " object path", got["object_path"], "/org/gnome/OnlineAccounts/Accounts/" + account_id)
        check(account_id + " ProviderType", got["Account"]["ProviderType"], want["ProviderType"])
        check(account_id + " Identity", got["Account"]["Identity"], want["Identity"])
        for name, value in want.get("Account", {}).items():
            check("%s Account.%s" % (account_id, name), got["Account"].get(name), value)
        mail_disabled = want.get("Account", {}).get("MailDisabled", False)
        check(account_id + " has Mail", got["Mail"] is not None, not mail_disabled)
        for name, value in want.get("Mail", {}).items():
            if got["Mail"] is not None:
                check("%s Mail.%s" % (account_id, name), got["Mail"].get(name), value)
        for name, value in want.get("OAuth2Based", {}).items():
            check("%s OAuth2Based.%s" % (account_id, name), (got["OAuth2Based"] or {}).get(name), value)
        calls = got.get("calls")
        if calls is None:
            continue
        credentials = want.get("Credentials", "valid")
        if "GetAccessToken" in calls:
            if credentials == "valid" and "AccessToken" in want:
                check(account_id + " GetAccessToken", calls["GetAccessToken"],
                      {"access_token": want["AccessToken"], "expires_in": want.get("ExpiresIn", 3600)})
            elif credentials != "valid":
                check(account_id + " GetAccessToken error", calls["GetAccessToken"].get("error", {}).get("goa_error"),
                      "NOT_AUTHORIZED" if credentials == "expired" else "FAILED")
        ensure = calls["EnsureCredentials"]
        if credentials == "expired" or (credentials == "unreachable" and got["PasswordBased"] is not None):
            check(account_id + " EnsureCredentials error", ensure.get("error", {}).get("goa_error"), "NOT_AUTHORIZED")
            check(account_id + " AttentionNeeded after EnsureCredentials", got["AttentionNeeded_after_calls"], True)
        elif credentials == "unreachable":
            check(account_id + " EnsureCredentials error", ensure.get("error", {}).get("goa_error"), "FAILED")
        else:
            check(account_id + " EnsureCredentials",
                  ensure, {"expires_in": want.get("ExpiresIn", 3600) if got["OAuth2Based"] is not None else 0})
            check(account_id + " AttentionNeeded after EnsureCredentials", got["AttentionNeeded_after_calls"], False)
        for password_id, result in calls.get("GetPassword", {}).items():
            if password_id in want.get("Passwords", {}):
                check("%s GetPassword(%s)" % (account_id, password_id), result,
                      {"password": want["Passwords"][password_id]})
            else:
                check("%s GetPassword(%s) error" % (account_id, password_id),
                      result.get("error", {}).get("goa_error"), "FAILED")
    return mismatches


def main():
    parser = argparse.ArgumentParser(description="What libgoa reads from the session bus.")
    parser.add_argument("--no-calls", action="store_true")
    parser.add_argument("--password-id", action="append")
    parser.add_argument("--compare")
    options = parser.parse_args()
    accounts = read_accounts(options)
    output = {"accounts": accounts}
    status = 0
    if options.compare:
        mismatches = compare(accounts, options.compare)
        output["compare"] = {"ok": not mismatches, "mismatches": mismatches}
        status = 1 if mismatches else 0
    json.dump(output, sys.stdout, indent=1, ensure_ascii=False)
    print()
    return status


if __name__ == "__main__":
    sys.exit(main())
