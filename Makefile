# The two commands a new user needs (README.md): `make run ARGS="..."` and `make test`.
# Every target installs what it needs first (scripts/install-deps), so both work on a
# fresh Debian 12 machine.

SWIFT_BUILD_FLAGS := -Xswiftc -warnings-as-errors
# Release builds link the Swift runtime statically: start-up is most of a click's cost.
RELEASE_FLAGS := -c release --static-swift-stdlib
SECONDS ?= 600

export PATH := /opt/swift/usr/bin:$(PATH)

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man/man1
UNITDIR := $(PREFIX)/lib/systemd/user

.PHONY: all deps build run test fuzz bench install uninstall clean

all: build

deps:
	scripts/install-deps build

build: deps
	swift build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product mailto-route
	swift build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product mailto-route-desktop

# A route that ends in a draft (3) or the outbox (75) did its job; say the status
# rather than have make report a failure.
run: build
	@.build/release/mailto-route $(ARGS); status=$$?; \
	if [ $$status -ne 0 ]; then echo "(mailto-route exited with status $$status: see 'Exit status' in README.md)" >&2; fi

test:
	scripts/test

fuzz:
	scripts/fuzz $(SECONDS)

bench:
	scripts/bench

# The binary, its man page and the outbox's systemd user unit (pointing at the installed
# binary). `mailto-route register` then makes the installed binary the mailto: handler.
# mailto-route-desktop (the compose sheet) goes beside it: mailto-route finds it there.
install: build
	install -D -m 755 .build/release/mailto-route $(DESTDIR)$(BINDIR)/mailto-route
	install -D -m 755 .build/release/mailto-route-desktop $(DESTDIR)$(BINDIR)/mailto-route-desktop
	install -D -m 644 data/mailto-route.1 $(DESTDIR)$(MANDIR)/mailto-route.1
	mkdir -p $(DESTDIR)$(UNITDIR)
	sed 's|@EXEC@|$(BINDIR)/mailto-route|' data/mailto-route-outbox.service > $(DESTDIR)$(UNITDIR)/mailto-route-outbox.service
	chmod 644 $(DESTDIR)$(UNITDIR)/mailto-route-outbox.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/mailto-route $(DESTDIR)$(BINDIR)/mailto-route-desktop $(DESTDIR)$(MANDIR)/mailto-route.1 \
		$(DESTDIR)$(UNITDIR)/mailto-route-outbox.service

clean:
	rm -rf .build
