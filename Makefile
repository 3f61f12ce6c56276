# jwt-kernel: every target installs the Debian packages it needs first.
SHELL := /bin/bash
APT_PACKAGES := libssl-dev libxxhash-dev libcurl4-openssl-dev pkg-config

.PHONY: deps build test demo bench bench-smoke fuzz sanitize format-check clean install clib-test

deps:
	@./scripts/apt-deps.sh $(APT_PACKAGES)

build: deps
	swift build -c release --product jwtk

# All tests: JWTKernelTests (unit, vectors, real tokens, attack suite) and jwtkCLITests
# (the CLI contract, which runs the jwtk binary built first).
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

# Lints the Swift sources against .swift-format (swift format lint --strict).
format-check:
	./scripts/format-check.sh

# The C library: self-contained lib/libjwtk.so.0 (+ libjwtk.so, include/jwtk.h, lib/pkgconfig/jwtk.pc).
PREFIX ?= /usr/local
install: deps
	./scripts/clib/install.sh "$(PREFIX)"

# The C library's checks: build, install to a temp prefix, C tests (ASan, valgrind), Python, symbols, header.
clib-test: deps
	./IntegrationTests/clib/run.sh

clean:
	rm -rf .build .build-* Benchmarks/.build Fuzz/.build*
