# The two commands a new user needs (README.md): `make run ARGS="..."` and `make test`.
# Every target installs what it needs first (scripts/install-deps), so both work on a
# fresh Debian 12 machine.

SWIFT_BUILD_FLAGS := -Xswiftc -warnings-as-errors
# Release builds link the Swift runtime statically: start-up is most of a click's cost.
# No RUNPATH of $ORIGIN either: nothing is loaded from beside the binary, and with it the
# loader first looked for GLib (and every library GIO loads) in /usr/bin's subdirectories.
# Every Swift function in a section of its own, so that the linker can put the ones a click
# runs side by side (Linker/mailto-route.order, scripts/order-file) and drop unused ones one
# by one. Here rather than in Package.swift: an unsafe flag there would keep other packages
# from depending on the MailtoRoute library. scripts/bench and scripts/order-file build with
# these too (`make release-flags`).
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -Xfrontend -Xswiftc -function-sections
SECONDS ?= 600

export PATH := /opt/swift/usr/bin:$(PATH)

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(PREFIX)/bin
DATADIR := $(PREFIX)/share
MANDIR := $(DATADIR)/man/man1
UNITDIR := $(PREFIX)/lib/systemd/user
APPDIR := $(DATADIR)/applications
METAINFODIR := $(DATADIR)/metainfo
DBUSDIR := $(DATADIR)/dbus-1/services
# The desktop service's interface description, which the service reads when it starts.
INTERFACEDIR := $(DATADIR)/dbus-1/interfaces
INTERFACE := io.github.mailto_route.MailtoRoute1.xml
# The desktop service: its D-Bus activatable desktop entry (named after the application
# id) and the session bus's service files for its name and the Email portal backend's.
SERVICE_DESKTOP := io.github.mailto_route.MailtoRoute.desktop
SERVICE_FILES := io.github.mailto_route.MailtoRoute.service org.freedesktop.impl.portal.desktop.mailtoroute.service
BASHCOMPDIR := $(DATADIR)/bash-completion/completions
# Debian's zsh has this directory in $fpath (upstream zsh: site-functions).
ZSHCOMPDIR := $(DATADIR)/zsh/vendor-completions
METAINFO := io.github.mailto_route.MailtoRoute.metainfo.xml
ICONDIR := $(DATADIR)/icons/hicolor
LOCALEDIR := $(DATADIR)/locale
LANGUAGES := $(basename $(notdir $(wildcard po/*.po)))
ICONS := scalable/apps/io.github.mailto_route.MailtoRoute.svg symbolic/apps/io.github.mailto_route.MailtoRoute-symbolic.svg
# xdg-desktop-portal reads backends from its own datadir only (1.16 and 1.18 alike), so
# with PREFIX=/usr/local the file is installed but not read (`mailto-route check` names the
# directory the installed portal reads).
PORTALDIR := $(DATADIR)/xdg-desktop-portal/portals
DOCDIR := $(DATADIR)/doc/mailto-route
# What `make` built and `make install` installs (a test installs a debug build).
BUILT ?= .build/release/mailto-route

.PHONY: all deps build release-flags run test test-windows test-service test-sheet fuzz bench install uninstall deb check-deb clean update-po check-po

all: build

deps:
	scripts/install-deps build

# The flags of a release build, for the scripts that build one themselves.
release-flags:
	@echo $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS)

build: deps
	swift build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product mailto-route
	swift build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product mailto-route-desktop
	swift build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product mailto-route-books
	scripts/compile-po

# The messages of every string a person reads, into po/mailto-route.pot and each po/LANG.po
# (docs/translations.md); `make check-po` changes nothing and fails unless the template has
# every message of the sources and each translation translates all of them.
update-po:
	scripts/update-po

check-po:
	scripts/update-po --check

# The README's example link, routed as a click would when no ARGS are given.
ARGS ?= 'mailto:joe@example.org?subject=Hello&body=Hi%20Joe'

# A route that ends in a draft (3) or the outbox (75) did its job; say the status
# rather than have make report a failure.
run: build
	@.build/release/mailto-route $(ARGS); status=$$?; \
	if [ $$status -ne 0 ]; then echo "(mailto-route exited with status $$status: see 'Exit status' in README.md)" >&2; fi

test:
	scripts/test

# The parts of `make test` a developer of the desktop side runs again and again: the real
# windows on a test desktop (Xvfb, AT-SPI: SheetTests), the service's behaviour in-process
# (DesktopServiceTests: no display, no bus, a fake clock; seconds), and the sheet's behaviour
# through its actions in-process (ComposeSheetTests: GTK on a bare Xvfb; seconds).
test-windows:
	scripts/test --filter '^SheetTests\.'

test-service:
	scripts/test --filter '^DesktopServiceTests\.'

test-sheet:
	scripts/test --filter '^ComposeSheetTests\.'

fuzz:
	scripts/fuzz $(SECONDS)

bench:
	scripts/bench

# Installs what `make` built, as a Debian package's rules do (`make && make install
# DESTDIR=debian/tmp PREFIX=/usr`): it builds nothing and installs no packages. The binary
# and mailto-route-desktop (the compose sheet, which mailto-route finds beside it), and
# mailto-route-books (the address books for the sheet's completion, found beside that), the
# hook xdg-email runs (so that a file `xdg-email --attach` gives is attached), the man
# pages (the hook's is the binary's, where FILES tells of it), the bash and zsh
# completions, the system desktop file (so that the desktops'
# settings list mailto-route as a mail program), the AppStream metainfo and the outbox's
# systemd user unit, each pointing at the installed binary; the Email portal's backend
# description (mailtoroute.portal), the one that makes it the Email backend on
# xdg-desktop-portal 1.16 (00-mailtoroute.portal) and, as an example for each user to opt
# in with on 1.18 and later, the portals.conf snippet.
# `mailto-route register` then makes the installed binary the user's mailto: handler.
# The system desktop file is the per-user one `register` writes, with the installed path,
# and shown: a desktop's settings leave NoDisplay entries out of their lists.
install:
	@test -x $(BUILT) || { echo "make install: $(BUILT) is not built; run 'make' first (install builds nothing)" >&2; exit 1; }
	install -D -m 755 $(BUILT) $(DESTDIR)$(BINDIR)/mailto-route
	install -D -m 755 $(dir $(BUILT))mailto-route-desktop $(DESTDIR)$(BINDIR)/mailto-route-desktop
	install -D -m 755 $(dir $(BUILT))mailto-route-books $(DESTDIR)$(BINDIR)/mailto-route-books
	sed 's|@EXEC@|$(BINDIR)/mailto-route|' data/xdg-email-hook.sh > $(DESTDIR)$(BINDIR)/xdg-email-hook.sh
	chmod 755 $(DESTDIR)$(BINDIR)/xdg-email-hook.sh
	install -D -m 644 data/mailto-route.1 $(DESTDIR)$(MANDIR)/mailto-route.1
	install -D -m 644 data/mailto-route-desktop.1 $(DESTDIR)$(MANDIR)/mailto-route-desktop.1
	install -D -m 644 data/xdg-email-hook.sh.1 $(DESTDIR)$(MANDIR)/xdg-email-hook.sh.1
	install -D -m 644 data/mailto-route-books.1 $(DESTDIR)$(MANDIR)/mailto-route-books.1
	install -D -m 644 data/mailto-route.bash $(DESTDIR)$(BASHCOMPDIR)/mailto-route
	install -D -m 644 data/_mailto-route $(DESTDIR)$(ZSHCOMPDIR)/_mailto-route
	install -D -m 644 data/$(METAINFO) $(DESTDIR)$(METAINFODIR)/$(METAINFO)
	for icon in $(ICONS); do install -D -m 644 data/icons/hicolor/$$icon $(DESTDIR)$(ICONDIR)/$$icon; done
	scripts/compile-po $(DESTDIR)$(LOCALEDIR)
	install -D -m 644 data/mailtoroute.portal $(DESTDIR)$(PORTALDIR)/mailtoroute.portal
	install -D -m 644 data/00-mailtoroute.portal $(DESTDIR)$(PORTALDIR)/00-mailtoroute.portal
	install -D -m 644 data/$(INTERFACE) $(DESTDIR)$(INTERFACEDIR)/$(INTERFACE)
	install -D -m 644 data/mailtoroute-portals.conf $(DESTDIR)$(DOCDIR)/mailtoroute-portals.conf
	mkdir -p $(DESTDIR)$(APPDIR) $(DESTDIR)$(UNITDIR)
	sed -e 's|@EXEC@|$(BINDIR)/mailto-route|' -e '/^NoDisplay=/d' data/mailto-route.desktop > $(DESTDIR)$(APPDIR)/mailto-route.desktop
	sed 's|@EXEC@|$(BINDIR)/mailto-route|' data/mailto-route-outbox.service > $(DESTDIR)$(UNITDIR)/mailto-route-outbox.service
	chmod 644 $(DESTDIR)$(APPDIR)/mailto-route.desktop $(DESTDIR)$(UNITDIR)/mailto-route-outbox.service
	sed 's|@DESKTOP@|$(BINDIR)/mailto-route-desktop|' data/$(SERVICE_DESKTOP) > $(DESTDIR)$(APPDIR)/$(SERVICE_DESKTOP)
	mkdir -p $(DESTDIR)$(DBUSDIR)
	for file in $(SERVICE_FILES); do \
		sed 's|@DESKTOP@|$(BINDIR)/mailto-route-desktop|' data/$$file > $(DESTDIR)$(DBUSDIR)/$$file; \
	done
	chmod 644 $(DESTDIR)$(APPDIR)/$(SERVICE_DESKTOP) $(addprefix $(DESTDIR)$(DBUSDIR)/,$(SERVICE_FILES))

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/mailto-route $(DESTDIR)$(BINDIR)/mailto-route-desktop $(DESTDIR)$(BINDIR)/mailto-route-books \
		$(DESTDIR)$(BINDIR)/xdg-email-hook.sh \
		$(DESTDIR)$(MANDIR)/mailto-route.1 $(DESTDIR)$(MANDIR)/mailto-route-desktop.1 $(DESTDIR)$(MANDIR)/xdg-email-hook.sh.1 \
		$(DESTDIR)$(MANDIR)/mailto-route-books.1 \
		$(DESTDIR)$(BASHCOMPDIR)/mailto-route $(DESTDIR)$(ZSHCOMPDIR)/_mailto-route \
		$(DESTDIR)$(METAINFODIR)/$(METAINFO) $(DESTDIR)$(APPDIR)/mailto-route.desktop \
		$(DESTDIR)$(UNITDIR)/mailto-route-outbox.service $(DESTDIR)$(APPDIR)/$(SERVICE_DESKTOP) \
		$(addprefix $(DESTDIR)$(DBUSDIR)/,$(SERVICE_FILES)) \
		$(DESTDIR)$(PORTALDIR)/mailtoroute.portal $(DESTDIR)$(PORTALDIR)/00-mailtoroute.portal \
		$(DESTDIR)$(DOCDIR)/mailtoroute-portals.conf \
		$(DESTDIR)$(INTERFACEDIR)/$(INTERFACE) \
		$(addprefix $(DESTDIR)$(ICONDIR)/,$(ICONS)) \
		$(foreach language,$(LANGUAGES),$(DESTDIR)$(LOCALEDIR)/$(language)/LC_MESSAGES/mailto-route.mo)

# The Debian package, .build/deb/mailto-route_VERSION_ARCH.deb, from this tree: debian/rules
# runs `make` (the release build; one already made is reused) and `make install
# DESTDIR=debian/mailto-route PREFIX=/usr`. The Swift toolchain is no Debian package, so
# Build-Depends cannot name it: it must be at /opt/swift. The version is the program's
# own (`mailto-route --version`, Sources/MailtoRoute/Versions.swift), which debian/changelog
# must name. docs/installing.md has the rest.
DEB_DIR := .build/deb
SOURCE_VERSION = $(shell sed -n 's/.*let mailtoRoute = "\(.*\)"/\1/p' Sources/MailtoRoute/Versions.swift)
deb:
	@test -x /opt/swift/usr/bin/swift || { echo "make deb: the Swift toolchain is not at /opt/swift: unpack swift.org's release for Debian 12 there (it is not a Debian package, so Build-Depends cannot name it)" >&2; exit 1; }
	@test "$$(dpkg-parsechangelog -SVersion 2>/dev/null)" = "$(SOURCE_VERSION)" || { echo "make deb: debian/changelog's version is not $(SOURCE_VERSION), mailto-route's own (Sources/MailtoRoute/Versions.swift): add an entry (dch -v $(SOURCE_VERSION))" >&2; exit 1; }
	scripts/install-deps deb
	mkdir -p $(DEB_DIR)
	DEB_OUTPUT_DIR=$(CURDIR)/$(DEB_DIR) nice dpkg-buildpackage --build=binary --no-sign \
		--buildinfo-option=-u$(DEB_DIR) --changes-option=-u$(DEB_DIR) \
		--buildinfo-file=$(DEB_DIR)/mailto-route_$(SOURCE_VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH).buildinfo \
		--changes-file=$(DEB_DIR)/mailto-route_$(SOURCE_VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH).changes
	@echo "make deb: $(DEB_DIR)/mailto-route_$(SOURCE_VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH).deb"

# The package judged as a person installing it meets it (scripts/check-deb): lintian, then
# apt-get install, the files in place, then remove --purge leaves none; all of it in a
# private mount namespace whose /usr, /etc and /var are throwaway overlays, so the machine
# is left as it was. Not part of `make test`: it needs the release build (minutes).
check-deb: deb
	scripts/check-deb $(DEB_DIR)/mailto-route_$(SOURCE_VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH).deb

clean:
	rm -rf .build
