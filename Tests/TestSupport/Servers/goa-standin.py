#!/usr/bin/python3
"""A stand-in for the GNOME Online Accounts daemon (goa-daemon 3.46, Debian 12) for the
tests, on the bus at DBUS_SESSION_BUS_ADDRESS (never another: it refuses to start without
that variable), with accounts read from a JSON file instead of ~/.config/goa-1.0 and the
keyring. Debian's own client library (gir1.2-goa-1.0, Servers/goa-client-check.py) reads
it as it reads the real daemon.

  goa-standin.py --accounts FILE [--log FILE] [--ready FILE] [--lifetime SECONDS]

It owns org.gnome.OnlineAccounts and serves, as goa-daemon does:
  /org/gnome/OnlineAccounts             org.freedesktop.DBus.ObjectManager
  /org/gnome/OnlineAccounts/Manager     org.gnome.OnlineAccounts.Manager
  /org/gnome/OnlineAccounts/Accounts/ID org.gnome.OnlineAccounts.Account, and .Mail (unless
                                        MailDisabled), and .OAuth2Based or .PasswordBased
The interfaces are those of 3.46's data/dbus-interfaces.xml, property for property.
Once the name is owned it prints "ready PID" on stdout and writes --ready FILE (if given).
It runs until SIGTERM, or --lifetime seconds (600).

--accounts FILE, JSON:
  {"accounts": {
     "ID": {                              the account id (object path element)
       "ProviderType": "google",          google | windows_live | imap_smtp (others: give
                                          "Auth" and Account.ProviderName)
       "Identity": "jane@gmail.com",
       "Account": {PROPERTY: VALUE},      any org.gnome.OnlineAccounts.Account property
                                          (PresentationIdentity defaults to Identity,
                                          ProviderName/ProviderIcon to the provider's;
                                          AttentionNeeded, if given, is set at every load,
                                          else it is left as EnsureCredentials made it)
       "Mail": {PROPERTY: VALUE},         any org.gnome.OnlineAccounts.Mail property, over
                                          the provider's own (google: smtp.gmail.com, SSL and
                                          STARTTLS, XOAUTH2; imap_smtp: the keyfile rules);
                                          SmtpHost may be "127.0.0.1:PORT" (as Geary reads it)
       "Auth": "oauth2" | "password" | "none"   default from the provider
       "OAuth2Based": {"ClientId": ..., "ClientSecret": ...}   default: the provider's
       "AccessToken": "ya29.x",           what GetAccessToken returns (oauth2)
       "ExpiresIn": 3600,                 GetAccessToken's and EnsureCredentials' expires_in
                                          (password accounts: EnsureCredentials gives 0)
       "TokensAfterRefresh": ["t2", ...], once GetAccessToken has handed out the AccessToken,
                                          the next successful EnsureCredentials makes the next
                                          of these the AccessToken (goa-daemon refreshes a
                                          token the provider no longer takes); so Ensure, Get
                                          (t1), Ensure, Get (t2)
       "Passwords": {"smtp-password": "pw", "imap-password": "pw"}   GetPassword(id)
       "Credentials": "valid" | "expired" | "unreachable"
                                          expired: EnsureCredentials fails with
                                          org.gnome.OnlineAccounts.Error.NotAuthorized and sets
                                          AttentionNeeded (as goa-daemon when the provider says
                                          the grant is gone); GetAccessToken fails alike (not
                                          touching AttentionNeeded). unreachable (the token
                                          service cannot be reached): EnsureCredentials and
                                          GetAccessToken fail with org.freedesktop.Goa.Error.Failed,
                                          AttentionNeeded as it was; but for a password account
                                          as expired (goa-daemon makes every failed IMAP/SMTP
                                          check NotAuthorized). GetPassword always answers from
                                          Passwords (the keyring has them)
       "ErrorMessage": "...",             the message of those errors (default: goa-daemon's)
       "Delay": SECONDS | {"METHOD": SECONDS}    answer the credential methods this late
     }}}
  A successful EnsureCredentials clears AttentionNeeded, as goa-daemon does.

Reload: SIGHUP, or the method Reload() -> u (the number of loads so far) of
org.mailtoroute.GoaStandIn at /org/mailtoroute/GoaStandIn (answers once the new state is
out). Accounts added or removed: InterfacesAdded/InterfacesRemoved; Mail appearing or
going (MailDisabled): the same for that interface; changed properties: PropertiesChanged.
(goa-daemon itself sets Mail's properties once, when the interface appears: this stand-in
updates them, so that a test can move an account to another server.) A file that does not
load leaves the accounts as they were (Reload answers an error, SIGHUP says it on stderr).

--log FILE: every call of a GOA method (EnsureCredentials, GetAccessToken, GetPassword,
Remove, AddAccount, IsSupportedProvider) appends one JSON line when it arrives:
  {"time": UNIX-SECONDS, "method": "GetAccessToken", "account": "ID", "sender": ":1.7",
   "result": "ok" | "error", "error": "D-BUS ERROR NAME" (on errors), "id": "smtp-password"
   (GetPassword), "expires_in": N}
Remove takes the account away until the next load (the file is not written);
AddAccount answers org.freedesktop.Goa.Error.NotSupported; writable properties
(MailDisabled, ...) can be set, and MailDisabled takes the Mail interface away.
Not served: the Calendar, Contacts, Files, ... interfaces goa-daemon adds for a Google account.
"""
import argparse
import getpass
import json
import os
import signal
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

NAME = "org.gnome.OnlineAccounts"
ROOT = "/org/gnome/OnlineAccounts"
MANAGER_PATH = ROOT + "/Manager"
ACCOUNTS_PATH = ROOT + "/Accounts/"
CONTROL_PATH = "/org/mailtoroute/GoaStandIn"
CONTROL_INTERFACE = "org.mailtoroute.GoaStandIn"

ACCOUNT = "org.gnome.OnlineAccounts.Account"
MAIL = "org.gnome.OnlineAccounts.Mail"
OAUTH2 = "org.gnome.OnlineAccounts.OAuth2Based"
PASSWORD = "org.gnome.OnlineAccounts.PasswordBased"
MANAGER = "org.gnome.OnlineAccounts.Manager"
OBJECT_MANAGER = "org.freedesktop.DBus.ObjectManager"
PROPERTIES = "org.freedesktop.DBus.Properties"

# GOA_ERROR's D-Bus names (src/goa/goaerror.c in 3.46).
ERROR_FAILED = "org.freedesktop.Goa.Error.Failed"
ERROR_NOT_SUPPORTED = "org.freedesktop.Goa.Error.NotSupported"
ERROR_NOT_AUTHORIZED = "org.gnome.OnlineAccounts.Error.NotAuthorized"

# The interfaces this stand-in serves, as gnome-online-accounts 3.46 declares them
# (data/dbus-interfaces.xml), and the standard ObjectManager.
INTERFACES_XML = """
<node>
  <interface name="org.gnome.OnlineAccounts.Account">
    <property name="ProviderType" type="s" access="read"/>
    <property name="ProviderName" type="s" access="read"/>
    <property name="ProviderIcon" type="s" access="read"/>
    <property name="Id" type="s" access="read"/>
    <property name="IsLocked" type="b" access="read"/>
    <property name="IsTemporary" type="b" access="readwrite"/>
    <property name="AttentionNeeded" type="b" access="read"/>
    <property name="Identity" type="s" access="read"/>
    <property name="PresentationIdentity" type="s" access="read"/>
    <property name="MailDisabled" type="b" access="readwrite"/>
    <property name="CalendarDisabled" type="b" access="readwrite"/>
    <property name="ContactsDisabled" type="b" access="readwrite"/>
    <property name="ChatDisabled" type="b" access="readwrite"/>
    <property name="DocumentsDisabled" type="b" access="readwrite"/>
    <property name="MapsDisabled" type="b" access="readwrite"/>
    <property name="MusicDisabled" type="b" access="readwrite"/>
    <property name="PrintersDisabled" type="b" access="readwrite"/>
    <property name="PhotosDisabled" type="b" access="readwrite"/>
    <property name="FilesDisabled" type="b" access="readwrite"/>
    <property name="TicketingDisabled" type="b" access="readwrite"/>
    <property name="TodoDisabled" type="b" access="readwrite"/>
    <property name="ReadLaterDisabled" type="b" access="readwrite"/>
    <method name="Remove"/>
    <method name="EnsureCredentials">
      <arg name="expires_in" type="i" direction="out"/>
    </method>
  </interface>
  <interface name="org.gnome.OnlineAccounts.OAuth2Based">
    <method name="GetAccessToken">
      <arg name="access_token" type="s" direction="out"/>
      <arg name="expires_in" type="i" direction="out"/>
    </method>
    <property name="ClientId" type="s" access="read"/>
    <property name="ClientSecret" type="s" access="read"/>
  </interface>
  <interface name="org.gnome.OnlineAccounts.PasswordBased">
    <method name="GetPassword">
      <arg name="id" type="s" direction="in"/>
      <arg name="password" type="s" direction="out"/>
    </method>
  </interface>
  <interface name="org.gnome.OnlineAccounts.Manager">
    <method name="AddAccount">
      <arg name="provider" type="s" direction="in"/>
      <arg name="identity" type="s" direction="in"/>
      <arg name="presentation_identity" type="s" direction="in"/>
      <arg name="credentials" type="a{sv}" direction="in"/>
      <arg name="details" type="a{ss}" direction="in"/>
      <arg name="account_object_path" type="o" direction="out"/>
    </method>
    <method name="IsSupportedProvider">
      <arg name="provider_type" type="s" direction="in"/>
      <arg name="is_supported" type="b" direction="out"/>
    </method>
  </interface>
  <interface name="org.gnome.OnlineAccounts.Mail">
    <property name="EmailAddress" type="s" access="read"/>
    <property name="Name" type="s" access="read"/>
    <property name="ImapSupported" type="b" access="read"/>
    <property name="ImapAcceptSslErrors" type="b" access="read"/>
    <property name="ImapHost" type="s" access="read"/>
    <property name="ImapUseSsl" type="b" access="read"/>
    <property name="ImapUseTls" type="b" access="read"/>
    <property name="ImapUserName" type="s" access="read"/>
    <property name="SmtpSupported" type="b" access="read"/>
    <property name="SmtpAcceptSslErrors" type="b" access="read"/>
    <property name="SmtpHost" type="s" access="read"/>
    <property name="SmtpUseAuth" type="b" access="read"/>
    <property name="SmtpAuthLogin" type="b" access="read"/>
    <property name="SmtpAuthPlain" type="b" access="read"/>
    <property name="SmtpAuthXoauth2" type="b" access="read"/>
    <property name="SmtpUseSsl" type="b" access="read"/>
    <property name="SmtpUseTls" type="b" access="read"/>
    <property name="SmtpUserName" type="s" access="read"/>
  </interface>
  <interface name="org.freedesktop.DBus.ObjectManager">
    <method name="GetManagedObjects">
      <arg name="object_paths_interfaces_and_properties" type="a{oa{sa{sv}}}" direction="out"/>
    </method>
    <signal name="InterfacesAdded">
      <arg name="object_path" type="o"/>
      <arg name="interfaces_and_properties" type="a{sa{sv}}"/>
    </signal>
    <signal name="InterfacesRemoved">
      <arg name="object_path" type="o"/>
      <arg name="interfaces" type="as"/>
    </signal>
  </interface>
  <interface name="org.mailtoroute.GoaStandIn">
    <method name="Reload">
      <arg name="generation" type="u" direction="out"/>
    </method>
  </interface>
</node>
"""
NODE = Gio.DBusNodeInfo.new_for_xml(INTERFACES_XML)
INFO = {interface.name: interface for interface in NODE.interfaces}
# name -> (signature, writable) for each interface with properties.
PROPERTY_TYPES = {
    interface.name: {p.name: (p.signature, bool(p.flags & Gio.DBusPropertyInfoFlags.WRITABLE))
                     for p in interface.properties}
    for interface in NODE.interfaces
}
DEFAULTS = {"s": "", "b": False}

# Providers goa-daemon 3.46 builds Mail for: name, credentials, OAuth2 client, Mail.
PROVIDERS = {
    "google": {
        "name": "Google", "auth": "oauth2",
        # meson_options.txt defaults, as Debian builds them.
        "client": {"ClientId": "44438659992-7kgjeitenc16ssihbtdjbgguch7ju55s.apps.googleusercontent.com",
                   "ClientSecret": "-gMLuQyDiI0XrQS_vx_mhuYF"},
    },
    "windows_live": {"name": "Microsoft", "auth": "oauth2",
                     "client": {"ClientId": "0000000044067703", "ClientSecret": ""}},
    "imap_smtp": {"name": "IMAP and SMTP", "auth": "password"},
}
DELAYED_METHODS = ("EnsureCredentials", "GetAccessToken", "GetPassword")


class ConfigError(Exception):
    pass


def provider_mail(provider, identity, presentation, given):
    """The Mail properties goa-daemon 3.46 sets for `provider` (its build_object), before the
    JSON's own values are laid over them."""
    if provider == "google":
        return {"EmailAddress": identity, "ImapSupported": True, "ImapHost": "imap.gmail.com",
                "ImapUserName": identity, "ImapUseSsl": True, "SmtpSupported": True,
                "SmtpHost": "smtp.gmail.com", "SmtpUserName": identity, "SmtpUseAuth": True,
                "SmtpAuthXoauth2": True, "SmtpUseSsl": True, "SmtpUseTls": True}
    if provider == "windows_live":
        return {"EmailAddress": presentation, "ImapSupported": True, "ImapHost": "imap-mail.outlook.com",
                "ImapUserName": presentation, "ImapUseSsl": True, "SmtpSupported": True,
                "SmtpHost": "smtp-mail.outlook.com", "SmtpUserName": presentation, "SmtpUseAuth": True,
                "SmtpAuthXoauth2": True, "SmtpUseTls": True}
    if provider == "imap_smtp":
        mail = {"ImapSupported": True, "SmtpSupported": True}
        # goaimapsmtpprovider.c: user names default to the local user; with SMTP auth and
        # neither LOGIN nor PLAIN chosen, PLAIN.
        if "ImapUserName" not in given:
            mail["ImapUserName"] = getpass.getuser()
        if given.get("SmtpUseAuth"):
            if "SmtpUserName" not in given:
                mail["SmtpUserName"] = getpass.getuser()
            if not given.get("SmtpAuthLogin") and not given.get("SmtpAuthPlain"):
                mail["SmtpAuthPlain"] = True
        return mail
    return {}


def properties(interface, values, where):
    """All of `interface`'s properties: its defaults, then `values` (checked by name and type)."""
    types = PROPERTY_TYPES[interface]
    result = {name: DEFAULTS[signature] for name, (signature, _) in types.items()}
    for name, value in values.items():
        if name not in types:
            raise ConfigError("%s: %s has no property %s" % (where, interface, name))
        expected = bool if types[name][0] == "b" else str
        if type(value) is not expected:
            raise ConfigError("%s: %s.%s must be a %s" % (where, interface, name, expected.__name__))
        result[name] = value
    return result


class Account:
    """One account as the JSON describes it, and its state while the stand-in runs."""

    KEYS = {"ProviderType", "Identity", "Account", "Mail", "Auth", "OAuth2Based", "AccessToken", "ExpiresIn",
            "TokensAfterRefresh", "Passwords", "Credentials", "ErrorMessage", "Delay"}

    def __init__(self, account_id, entry):
        where = "account %r" % account_id
        if not isinstance(entry, dict):
            raise ConfigError(where + ": not an object")
        unknown = set(entry) - self.KEYS
        if unknown:
            raise ConfigError("%s: unknown keys %s" % (where, ", ".join(sorted(unknown))))
        if "/" in account_id or not GLib.Variant.is_object_path(ACCOUNTS_PATH + account_id):
            raise ConfigError("%s: not a valid account id" % where)
        self.id = account_id
        self.path = ACCOUNTS_PATH + account_id
        provider = entry.get("ProviderType")
        identity = entry.get("Identity")
        if not isinstance(provider, str) or not isinstance(identity, str):
            raise ConfigError(where + ": ProviderType and Identity are required strings")
        known = PROVIDERS.get(provider, {})
        given_account = entry.get("Account", {})
        given_mail = entry.get("Mail", {})
        if not known and ("Auth" not in entry or "ProviderName" not in given_account):
            raise ConfigError("%s: ProviderType %r is not one of %s: give Auth and Account.ProviderName"
                              % (where, provider, ", ".join(PROVIDERS)))
        self.auth = entry.get("Auth", known.get("auth"))
        if self.auth not in ("oauth2", "password", "none"):
            raise ConfigError(where + ": Auth must be oauth2, password or none")
        account = {
            "ProviderType": provider, "ProviderName": known.get("name", ""),
            "ProviderIcon": Gio.ThemedIcon.new_with_default_fallbacks("goa-account-" + provider).to_string(),
            "Id": account_id, "Identity": identity, "PresentationIdentity": identity,
        }
        account.update(given_account)
        self.attention_given = "AttentionNeeded" in given_account
        self.values = {ACCOUNT: properties(ACCOUNT, account, where)}
        presentation = self.values[ACCOUNT]["PresentationIdentity"]
        mail = provider_mail(provider, identity, presentation, given_mail)
        mail.update(given_mail)
        self.values[MAIL] = properties(MAIL, mail, where)
        if self.auth == "oauth2":
            client = dict(known.get("client", {}))
            client.update(entry.get("OAuth2Based", {}))
            self.values[OAUTH2] = properties(OAUTH2, client, where)
        elif self.auth == "password":
            self.values[PASSWORD] = {}
        self.access_token = entry.get("AccessToken")
        self.expires_in = entry.get("ExpiresIn", 3600)
        self.refreshes = list(entry.get("TokensAfterRefresh", []))
        self.handed_out = False
        self.passwords = entry.get("Passwords", {})
        self.credentials = entry.get("Credentials", "valid")
        if self.credentials not in ("valid", "expired", "unreachable"):
            raise ConfigError(where + ": Credentials must be valid, expired or unreachable")
        self.error_message = entry.get("ErrorMessage")
        delay = entry.get("Delay", 0)
        if isinstance(delay, dict):
            self.delays = {method: float(delay.get(method, 0)) for method in DELAYED_METHODS}
        else:
            self.delays = {method: float(delay) for method in DELAYED_METHODS}
        if self.access_token is not None and not isinstance(self.access_token, str):
            raise ConfigError(where + ": AccessToken must be a string")
        if not isinstance(self.expires_in, int):
            raise ConfigError(where + ": ExpiresIn must be an integer")

    def interfaces(self):
        """The interfaces the account's object has now, in goa-daemon's order of adding them."""
        names = [ACCOUNT]
        if OAUTH2 in self.values:
            names.append(OAUTH2)
        if PASSWORD in self.values:
            names.append(PASSWORD)
        if not self.values[ACCOUNT]["MailDisabled"]:
            names.append(MAIL)
        return names

    def error(self):
        """(D-Bus error name, message) of a failing credentials call, as goa-daemon's. An
        IMAP/SMTP account's check turns every failure into NotAuthorized
        (goaimapsmtpprovider.c), a server that cannot be reached too."""
        if self.auth == "password":
            cause = "(goa-error-quark, 4): Authentication failed" if self.credentials == "expired" else \
                "(g-io-error-quark, 39): Could not connect: Connection refused"
            return ERROR_NOT_AUTHORIZED, self.error_message or "Invalid imap-password with username “%s” %s" % (
                self.values[MAIL]["ImapUserName"], cause)
        if self.credentials == "expired":
            return ERROR_NOT_AUTHORIZED, self.error_message or \
                "Failed to refresh access token (rest-proxy-error-quark, 400): Bad Request"
        return ERROR_FAILED, self.error_message or (
            "Failed to refresh access token (g-resolver-error-quark, 0): Error resolving “oauth2.googleapis.com”: "
            "Temporary failure in name resolution")

def load(path):
    try:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
    except (OSError, ValueError) as error:
        raise ConfigError("%s: %s" % (path, error))
    accounts = document.get("accounts") if isinstance(document, dict) else None
    if not isinstance(accounts, dict):
        raise ConfigError('%s: no "accounts" object' % path)
    return {account_id: Account(account_id, entry) for account_id, entry in accounts.items()}


def variant(interface, name, value):
    return GLib.Variant(PROPERTY_TYPES[interface][name][0], value)


def variants(interface, values):
    return {name: variant(interface, name, value) for name, value in values.items()}


class StandIn:
    def __init__(self, connection, options):
        self.connection = connection
        self.options = options
        self.accounts = {}
        self.registrations = {}
        self.generation = 0

    # MARK: - exporting

    def register(self, path, interface):
        self.registrations[(path, interface)] = self.connection.register_object(
            path, INFO[interface], self.on_method_call, self.on_get_property, self.on_set_property)

    def unregister(self, path, interface):
        self.connection.unregister_object(self.registrations.pop((path, interface)))

    def emit(self, path, interface, signal_name, parameters):
        self.connection.emit_signal(None, path, interface, signal_name, parameters)

    def interfaces_added(self, account, names):
        for name in names:
            self.register(account.path, name)
        payload = {name: variants(name, account.values[name]) for name in names}
        self.emit(ROOT, OBJECT_MANAGER, "InterfacesAdded", GLib.Variant("(oa{sa{sv}})", (account.path, payload)))

    def interfaces_removed(self, account, names):
        for name in names:
            self.unregister(account.path, name)
        self.emit(ROOT, OBJECT_MANAGER, "InterfacesRemoved", GLib.Variant("(oas)", (account.path, names)))

    def properties_changed(self, account, interface, changed):
        if changed:
            self.emit(account.path, PROPERTIES, "PropertiesChanged",
                      GLib.Variant("(sa{sv}as)", (interface, variants(interface, changed), [])))

    def set_property(self, account, interface, name, value):
        """Sets one property and says so on the bus, as a flushed GDBus skeleton does."""
        if account.values[interface][name] == value:
            return
        before = account.interfaces()
        account.values[interface][name] = value
        self.properties_changed(account, interface, {name: value})
        self.sync_interfaces(account, before)

    def sync_interfaces(self, account, before):
        after = account.interfaces()
        gone = [name for name in before if name not in after]
        if gone:
            self.interfaces_removed(account, gone)
        new = [name for name in after if name not in before]
        if new:
            self.interfaces_added(account, new)

    def apply(self, accounts):
        """Makes `accounts` what the bus shows, with the signals goa-daemon sends."""
        for account_id in [a for a in self.accounts if a not in accounts]:
            old = self.accounts.pop(account_id)
            self.interfaces_removed(old, old.interfaces())
        for account_id, account in accounts.items():
            old = self.accounts.get(account_id)
            if old is None:
                self.accounts[account_id] = account
                self.interfaces_added(account, account.interfaces())
                continue
            if not account.attention_given:
                account.values[ACCOUNT]["AttentionNeeded"] = old.values[ACCOUNT]["AttentionNeeded"]
            before = old.interfaces()
            self.accounts[account_id] = account
            for interface in before:
                if interface in account.values and interface in account.interfaces():
                    changed = {name: value for name, value in account.values[interface].items()
                               if old.values[interface].get(name) != value}
                    self.properties_changed(account, interface, changed)
            self.sync_interfaces(account, before)

    def reload(self):
        self.apply(load(self.options.accounts))
        self.generation += 1
        return self.generation

    def start(self):
        accounts = load(self.options.accounts)
        self.register(ROOT, OBJECT_MANAGER)
        self.register(MANAGER_PATH, MANAGER)
        self.register(CONTROL_PATH, CONTROL_INTERFACE)
        for account in accounts.values():
            self.accounts[account.id] = account
            for name in account.interfaces():
                self.register(account.path, name)
        self.generation = 1

    def managed_objects(self):
        objects = {MANAGER_PATH: {MANAGER: {}}}
        for account in self.accounts.values():
            objects[account.path] = {name: variants(name, account.values[name]) for name in account.interfaces()}
        return objects

    # MARK: - calls

    def record(self, entry):
        if not self.options.log:
            return
        with open(self.options.log, "a", encoding="utf-8") as file:
            file.write(json.dumps(entry) + "\n")

    def account_at(self, path):
        for account in self.accounts.values():
            if account.path == path:
                return account
        return None

    def on_get_property(self, connection, sender, path, interface, name):
        account = self.account_at(path)
        if account is None or interface not in account.values or name not in account.values[interface]:
            return None
        return variant(interface, name, account.values[interface][name])

    def on_set_property(self, connection, sender, path, interface, name, value):
        account = self.account_at(path)
        if account is None or not PROPERTY_TYPES[interface][name][1]:
            return False
        self.set_property(account, interface, name, value.unpack())
        return True

    def on_method_call(self, connection, sender, path, interface, method, parameters, invocation):
        entry = {"time": time.time(), "method": method, "sender": sender}
        if interface == OBJECT_MANAGER:
            invocation.return_value(GLib.Variant("(a{oa{sa{sv}}})", (self.managed_objects(),)))
            return
        if interface == CONTROL_INTERFACE:
            try:
                invocation.return_value(GLib.Variant("(u)", (self.reload(),)))
            except ConfigError as error:
                invocation.return_dbus_error(ERROR_FAILED, str(error))
            return
        if interface == MANAGER:
            if method == "IsSupportedProvider":
                provider = parameters.unpack()[0]
                entry.update({"provider": provider, "result": "ok"})
                self.record(entry)
                invocation.return_value(GLib.Variant("(b)", (provider in PROVIDERS,)))
            else:
                entry.update({"result": "error", "error": ERROR_NOT_SUPPORTED})
                self.record(entry)
                invocation.return_dbus_error(ERROR_NOT_SUPPORTED, "The test stand-in adds no accounts")
            return
        account = self.account_at(path)
        entry["account"] = account.id
        if method == "Remove":
            entry["result"] = "ok"
            self.record(entry)
            del self.accounts[account.id]
            self.interfaces_removed(account, account.interfaces())
            invocation.return_value(None)
            return
        answer = self.credentials_answer(account, method, parameters, entry)
        self.record(entry)
        delay = account.delays.get(method, 0)
        if delay > 0:
            def later():
                answer(invocation)
                return GLib.SOURCE_REMOVE
            GLib.timeout_add(int(delay * 1000), later)
        else:
            answer(invocation)

    def credentials_answer(self, account, method, parameters, entry):
        """What EnsureCredentials, GetAccessToken or GetPassword answers, decided when the
        call arrives (and written into `entry`): a function that sends it, after what
        EnsureCredentials does to the account (AttentionNeeded, a refreshed token) when it
        finishes, as goa-daemon does before it replies."""
        def fail(name, message, attention=None):
            entry.update({"result": "error", "error": name})

            def answer(invocation):
                self.finish_ensure(account.id, attention, refresh=False)
                invocation.return_dbus_error(name, message)
            return answer

        def succeed(signature, values, attention=None, refresh=False):
            entry["result"] = "ok"

            def answer(invocation):
                self.finish_ensure(account.id, attention, refresh)
                invocation.return_value(GLib.Variant(signature, values))
            return answer

        if method == "EnsureCredentials":
            if account.credentials != "valid":
                name, message = account.error()
                # goa-daemon sets AttentionNeeded only for an authorization error.
                return fail(name, message, attention=True if name == ERROR_NOT_AUTHORIZED else None)
            if account.auth == "oauth2" and account.access_token is None:
                return fail(ERROR_NOT_AUTHORIZED, "Credentials do not contain access_token", attention=True)
            expires_in = account.expires_in if account.auth == "oauth2" else 0
            entry["expires_in"] = expires_in
            return succeed("(i)", (expires_in,), attention=False, refresh=account.auth == "oauth2")
        if method == "GetAccessToken":
            if account.credentials != "valid":
                return fail(*account.error())
            if account.access_token is None:
                return fail(ERROR_NOT_AUTHORIZED, "Credentials do not contain access_token")
            entry["expires_in"] = account.expires_in
            account.handed_out = True
            return succeed("(si)", (account.access_token, account.expires_in))
        # GetPassword: the keyring answers, whatever the server thinks of the password.
        password_id = parameters.unpack()[0]
        entry["id"] = password_id
        if password_id not in account.passwords:
            return fail(ERROR_FAILED, "Did not find %s with identity “%s” in credentials"
                        % (password_id, account.values[ACCOUNT]["Identity"]))
        return succeed("(s)", (account.passwords[password_id],))

    def finish_ensure(self, account_id, attention, refresh):
        """What a finished EnsureCredentials leaves on the account (still there, or reloaded)."""
        account = self.accounts.get(account_id)
        if account is None:
            return
        if attention is not None:
            self.set_property(account, ACCOUNT, "AttentionNeeded", attention)
        if refresh and account.handed_out and account.refreshes:
            account.access_token = account.refreshes.pop(0)
            account.handed_out = False

def main():
    parser = argparse.ArgumentParser(description="A GNOME Online Accounts stand-in for the tests.")
    parser.add_argument("--accounts", required=True)
    parser.add_argument("--log")
    parser.add_argument("--ready")
    parser.add_argument("--lifetime", type=float, default=600)
    options = parser.parse_args()

    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if not address:
        print("goa-standin.py: DBUS_SESSION_BUS_ADDRESS is not set (refusing to guess a bus)", file=sys.stderr)
        return 2
    # A test thread's blocked signals are inherited across exec.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
    try:
        connection = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
    except GLib.Error as error:
        print("goa-standin.py: cannot connect to %s: %s" % (address, error.message), file=sys.stderr)
        return 1
    standin = StandIn(connection, options)
    try:
        standin.start()
    except ConfigError as error:
        print("goa-standin.py: %s" % error, file=sys.stderr)
        return 2

    loop = GLib.MainLoop()
    status = {"code": 0}

    def on_name_acquired(connection, name):
        try:
            print("ready %d" % os.getpid(), flush=True)
        except OSError:
            pass  # nobody reads standard output (a closed pipe): --ready says it as well
        if options.ready:
            with open(options.ready + ".tmp", "w", encoding="utf-8") as file:
                file.write("ready %d\n" % os.getpid())
            os.rename(options.ready + ".tmp", options.ready)

    def on_name_lost(connection, name):
        print("goa-standin.py: %s is owned by another process, or the bus is gone" % NAME, file=sys.stderr)
        status["code"] = 1
        loop.quit()

    def on_hangup():
        try:
            standin.reload()
        except ConfigError as error:
            print("goa-standin.py: reload: %s" % error, file=sys.stderr)
        return GLib.SOURCE_CONTINUE

    def on_terminate():
        loop.quit()
        return GLib.SOURCE_REMOVE

    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGHUP, on_hangup)
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, on_terminate)
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGINT, on_terminate)
    GLib.timeout_add(int(options.lifetime * 1000), on_terminate)
    Gio.bus_own_name_on_connection(connection, NAME, Gio.BusNameOwnerFlags.DO_NOT_QUEUE, on_name_acquired, on_name_lost)
    loop.run()
    connection.flush_sync(None)
    return status["code"]


if __name__ == "__main__":
    sys.exit(main())
