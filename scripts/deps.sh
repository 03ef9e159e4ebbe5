# Sourced by the setup scripts: installs the Debian packages Tilescope
# needs to build and test, only when some are missing. Works as root or
# through sudo on a fresh Debian 12 machine.
TILESCOPE_DEB_PACKAGES="gcc libc6-dev meson ninja-build pkg-config python3 libcmocka-dev zlib1g-dev libsqlite3-dev libcbor-dev libcjson-dev sqlite3 dataset-fashion-mnist"
# The sanitizer build and the libFuzzer targets (tests/fuzz/): clang, and
# the package holding its sanitizer and libFuzzer runtimes
# (libclang_rt.fuzzer-x86_64.a), which clang only recommends on Debian 12
# and the install below skips recommends.
TILESCOPE_DEB_PACKAGES="$TILESCOPE_DEB_PACKAGES clang libclang-rt-14-dev"
# The Python module (python/) and its suite `python`: Debian's python3
# builds and tests it (python/meson.build).
TILESCOPE_DEB_PACKAGES="$TILESCOPE_DEB_PACKAGES python3-dev python3-pytest"
# The browser tests of the HTML pages (tests/browser/, suite browser):
# Debian's chromium, run headless (no display); it pulls 19 packages,
# about 350 MB, 11 s to install here without recommends. As root it
# needs --no-sandbox, which check-page.py passes.
TILESCOPE_DEB_PACKAGES="$TILESCOPE_DEB_PACKAGES chromium"
# The chart kit (GTK 4.8) and its headless tests: Xvfb, the accessibility bus, screenshots.
# Rendering the man pages and reading the zsh completions in the tests.
TILESCOPE_DEB_PACKAGES="$TILESCOPE_DEB_PACKAGES groff-base zsh"
TILESCOPE_DEB_PACKAGES="$TILESCOPE_DEB_PACKAGES libgtk-4-dev xvfb xauth dbus at-spi2-core python3-pyatspi imagemagick xdotool adwaita-icon-theme librsvg2-common fonts-dejavu-core"

tilescope_install_deps() {
	local missing="" pkg
	for pkg in $TILESCOPE_DEB_PACKAGES; do
		dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
	done
	[ -z "$missing" ] && return 0
	echo "Installing Debian packages:$missing"
	local sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 || {
			echo "error: missing packages:$missing (run as root or install sudo)" >&2
			return 1
		}
		sudo="sudo"
	fi
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
}
