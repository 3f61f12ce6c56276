# jwt-kernel: every target installs the Debian packages it needs first.
SHELL := /bin/bash
APT_PACKAGES := libssl-dev libxxhash-dev pkg-config
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build test demo bench bench-smoke fuzz sanitize clean

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; fi

build: deps
	swift build -c release --product jwtk

# All tests: unit, vectors, real tokens, attack suite, CLI contract (needs the jwtk binary).
test: deps
	swift build --product jwtk
	swift test --disable-swift-testing

# Verifies the bundled real provider tokens with the release CLI.
demo: build
	./scripts/demo.sh

# Main job: the comparison benchmark (jwt-kernel vs raw OpenSSL vs peers).
bench: deps
	./Benchmarks/run.sh

bench-smoke: deps
	./Benchmarks/run.sh --smoke

fuzz: deps
	./scripts/fuzz.sh

sanitize: deps
	./scripts/sanitize.sh

clean:
	rm -rf .build .build-* Benchmarks/.build Fuzz/.build*
