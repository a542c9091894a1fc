# Convenience targets; the scripts install what they need on a fresh Debian 12 machine.
.PHONY: all build test serve site clean
all: build
build:
	sh scripts/deps.sh native
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build build -j
test:
	sh scripts/test.sh
site:
	sh scripts/deps.sh web
	bash web/build.sh
serve:
	sh scripts/serve.sh
clean:
	rm -rf build build-* dist
