# The two commands a new user needs (README.md): `make run ARGS="..."` and `make test`.
# Every target installs what it needs first (scripts/install-deps), so both work on a
# fresh Debian 12 machine.

SWIFT_BUILD_FLAGS := -Xswiftc -warnings-as-errors
# Release builds link the Swift runtime statically: start-up is most of a click's cost.
RELEASE_FLAGS := -c release --static-swift-stdlib
SECONDS ?= 600

export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: all deps build run test fuzz bench clean

all: build

deps:
	scripts/install-deps build

build: deps
	swift build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product mailto-route

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

clean:
	rm -rf .build
