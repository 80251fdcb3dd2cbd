#!/usr/bin/env bash
# The package test (ctest "packaging.deb", `make package-test`; `make test` runs it):
#   1. builds the .deb from the build folder with CPack (into a temp folder, so it never
#      clobbers `make package`'s build/trainscope_<version>_amd64.deb),
#   2. checks its control fields (computed dependencies) and its file list,
#   3. unpacks it with `dpkg -x` into a throw-away root and validates the desktop entry,
#      AppStream metadata, MIME types and icons found there,
#   4. runs the installed programs from that root in a clean environment (no TRAINSCOPE_*
#      variable): `trainscope-cli --version`, `info` on the installed demo session, an import
#      of a corpus trace, `trainscope --screenshot` offscreen on that import and on the demo
#      session, and proves the studio opened the installed demo, not the build tree's,
#   5. as root, when no trainscope package is installed: `dpkg -i`, checks what the
#      shared-mime-info and desktop-file-utils triggers made of it, runs /usr/bin/trainscope-cli,
#      then `dpkg --purge` (TRAINSCOPE_PACKAGE_TEST_NO_DPKG=1 leaves the system alone),
#   6. removes everything it made (TRAINSCOPE_PACKAGE_TEST_KEEP=1 keeps its temp folder).
# Usage: package-test.sh BUILD_DIR VERSION [CORPUS_DIR]   ($TRAINSCOPE_CORPUS wins)
set -euo pipefail

BUILD=$(cd "$1" && pwd)
VERSION=$2
CORPUS=${TRAINSCOPE_CORPUS:-${3:-}}
SRC=$(cd "$(dirname "$0")/.." && pwd)
APP_ID=io.github.trainscope.TrainScope
DEB_NAME=trainscope_${VERSION}_amd64.deb

T=$(mktemp -d "${TMPDIR:-/tmp}/trainscope-package-test.XXXXXX")
DPKG_INSTALLED=0
cleanup() {
  if [[ $DPKG_INSTALLED -eq 1 ]]; then dpkg --purge trainscope >/dev/null 2>&1 || true; fi
  if [[ -n ${TRAINSCOPE_PACKAGE_TEST_KEEP:-} ]]; then
    echo "package-test: TRAINSCOPE_PACKAGE_TEST_KEEP is set: $T is kept"
  else
    rm -rf "$T"
  fi
}
trap cleanup EXIT

step() { printf '== %s\n' "$*"; }
fail() { printf 'package-test: FAIL: %s\n' "$*" >&2; exit 1; }
elapsed() { echo $(( $(date +%s%N) / 1000000 - $1 )) ms; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# ---- 1. build the package ----
step "cpack: building $DEB_NAME"
t0=$(now_ms)
cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$T/pkg" >"$T/cpack.log" 2>&1 ||
  { cat "$T/cpack.log" >&2; fail "cpack failed"; }
DEB=$T/pkg/$DEB_NAME
[[ -f $DEB ]] || { cat "$T/cpack.log" >&2; fail "cpack made no $DEB_NAME"; }
echo "   $(du -h "$DEB" | cut -f1) in $(elapsed "$t0")"

# ---- 2. control fields and file list ----
step "control fields"
field() { dpkg-deb --field "$DEB" "$1"; }
[[ $(field Package) == trainscope ]] || fail "Package is '$(field Package)'"
[[ $(field Version) == "$VERSION" ]] || fail "Version is '$(field Version)', not $VERSION"
[[ $(field Architecture) == amd64 ]] || fail "Architecture is '$(field Architecture)'"
DEPENDS=$(field Depends)
echo "   Depends: $DEPENDS"
for lib in libc6 libstdc++6 libqt6widgets6 libqcustomplot2.1-qt6 libsqlite3-0 libhdf5; do
  [[ $DEPENDS == *"$lib"* ]] || fail "Depends lacks $lib (dpkg-shlibdeps did not run?)"
done

step "file list"
dpkg-deb --contents "$DEB" | awk '{print $6}' | sed 's|^\./|/|' >"$T/files"
for f in /usr/bin/trainscope /usr/bin/trainscope-cli /usr/share/trainscope/demo.tscope \
  /usr/share/applications/$APP_ID.desktop /usr/share/metainfo/$APP_ID.metainfo.xml \
  /usr/share/mime/packages/$APP_ID.xml /usr/share/icons/hicolor/scalable/apps/$APP_ID.svg \
  /usr/share/doc/trainscope/copyright /usr/share/doc/trainscope/changelog.gz \
  /usr/share/doc/trainscope/README.md /usr/share/doc/trainscope/docs/BUILD.md; do
  grep -qx "$f" "$T/files" || fail "the package lacks $f"
done
for size in 16 32 48 64 128 256; do
  grep -qx "/usr/share/icons/hicolor/${size}x${size}/apps/$APP_ID.png" "$T/files" ||
    fail "the package lacks the ${size}x${size} icon"
done
if [[ -f $BUILD/packaging/man/trainscope-cli.1.gz ]]; then  # made when help2man is installed
  for page in trainscope trainscope-cli; do
    grep -qx "/usr/share/man/man1/$page.1.gz" "$T/files" || fail "the package lacks the man page of $page"
  done
fi
if [[ -n $(find "$SRC/resources/python" -name '*.py' -not -path '*/__pycache__/*' 2>/dev/null) ]]; then
  grep -q '^/usr/share/trainscope/python/.*\.py$' "$T/files" || fail "the Python package is not installed"
fi
! grep -E '__pycache__|\.pyc$' "$T/files" || fail "the package ships Python bytecode"
! grep -vE '^/usr(/|$)' "$T/files" || fail "the package installs outside /usr"
echo "   $(grep -vc '/$' "$T/files") files, all under /usr"

# ---- 3. unpack; validate what desktops read ----
ROOT=$T/root
dpkg -x "$DEB" "$ROOT"
step "desktop-file-validate, appstreamcli validate"
desktop-file-validate "$ROOT/usr/share/applications/$APP_ID.desktop" || fail "desktop-file-validate"
appstreamcli validate --no-net --explain "$ROOT/usr/share/metainfo/$APP_ID.metainfo.xml" ||
  fail "appstreamcli validate"
grep -q "<release version=\"$VERSION\"" "$ROOT/usr/share/metainfo/$APP_ID.metainfo.xml" ||
  fail "the metainfo has no release $VERSION"
[[ $(zcat "$ROOT/usr/share/doc/trainscope/changelog.gz" | sed -n 1p) == "trainscope ($VERSION)"* ]] ||
  fail "the changelog's newest entry is not $VERSION"

step "MIME types (update-mime-database on a copy of the shared database)"
mkdir -p "$T/mime/packages"
cp /usr/share/mime/packages/freedesktop.org.xml "$ROOT/usr/share/mime/packages/$APP_ID.xml" \
  "$T/mime/packages/"
update-mime-database "$T/mime" 2>"$T/mime.log" || { cat "$T/mime.log" >&2; fail "update-mime-database"; }
for g in "application/x-trainscope-session:\*\.tscope" "application/x-chrome-trace:\*\.pt\.trace\.json" \
  "application/x-compressed-chrome-trace:\*\.pt\.trace\.json\.gz" \
  "application/x-tensorboard-events:events\.out\.tfevents\.\*"; do
  grep -q ":$g\$" "$T/mime/globs2" || fail "no glob $g in the MIME database"
done
grep -qx "application/x-trainscope-session application/vnd.sqlite3" "$T/mime/subclasses" ||
  fail "sessions are not a kind of application/vnd.sqlite3"
mimes=$(sed -n 's/^MimeType=//p' "$ROOT/usr/share/applications/$APP_ID.desktop" | tr ';' ' ')
for m in $mimes; do
  [[ -f $T/mime/$m.xml ]] || fail "the desktop file names $m, which no MIME database defines"
done
echo "   desktop MimeType: $mimes"

step "icons"
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}'; }
for size in 16 32 48 64 128 256; do
  png=$ROOT/usr/share/icons/hicolor/${size}x${size}/apps/$APP_ID.png
  [[ $(head -c 8 "$png" | od -An -tx1 | tr -d ' ') == 89504e470d0a1a0a ]] || fail "$png is not a PNG"
  [[ $(png_size "$png") == "${size}x${size}" ]] || fail "$png is $(png_size "$png"), not ${size}x${size}"
done

step "binaries"
for exe in trainscope trainscope-cli; do
  # (Outputs are captured before grep reads them: with pipefail, `cmd | grep -q` can fail
  # when grep stops reading early.)
  dyn=$(readelf -d "$ROOT/usr/bin/$exe")
  [[ $dyn != *RPATH* && $dyn != *RUNPATH* ]] || fail "$exe has an RPATH"
  libs=$(ldd "$ROOT/usr/bin/$exe")
  [[ $libs != *"not found"* ]] || fail "$exe needs libraries that are not installed: $libs"
  [[ $(readelf -S "$ROOT/usr/bin/$exe") != *.debug_info* ]] || fail "$exe is not stripped"
done

# ---- 4. run the installed programs from the throw-away root ----
# A clean environment: no TRAINSCOPE_* variable, home and XDG folders in the temp folder, the
# installed bin first on PATH.
mkdir -p "$T/home" "$T/work" "$T/runtime"
chmod 700 "$T/runtime"
run_installed() {
  env -i PATH="$ROOT/usr/bin:/usr/bin:/bin" HOME="$T/home" LANG=C.UTF-8 \
    XDG_CONFIG_HOME="$T/home/.config" XDG_DATA_HOME="$T/home/.local/share" \
    XDG_CACHE_HOME="$T/home/.cache" XDG_RUNTIME_DIR="$T/runtime" QT_QPA_PLATFORM=offscreen "$@"
}

step "trainscope-cli --version, trainscope --version"
[[ $(run_installed sh -c 'command -v trainscope-cli') == "$ROOT/usr/bin/trainscope-cli" ]] ||
  fail "trainscope-cli is not found on PATH in the installed root"
out=$(run_installed trainscope-cli --version)
echo "   $out"
[[ $out == "trainscope-cli $VERSION" ]] || fail "trainscope-cli --version says '$out'"
out=$(run_installed trainscope --version 2>"$T/version.err")
echo "   $out"
[[ $out == "TrainScope $VERSION" ]] || fail "trainscope --version says '$out'"

step "trainscope-cli info on the installed demo session"
DEMO=$ROOT/usr/share/trainscope/demo.tscope
# Bytes 18-19 of an SQLite header: 1 = rollback journal, 2 = WAL, which a user could not read
# from /usr/share (SQLite needs to write beside a WAL database even to read it).
[[ $(od -An -tu1 -j18 -N2 "$DEMO" | tr -s ' ') == " 1 1" ]] ||
  fail "the installed demo session is in WAL mode: users cannot read it from a read-only folder"
run_installed trainscope-cli info "$DEMO" --json >"$T/info.json" || fail "info on the demo session"
grep -q '"runs"' "$T/info.json" || fail "the demo session has no runs: $(head -c 300 "$T/info.json")"

HAVE_CORPUS=0
TRACE=""
if [[ -n $CORPUS && -f $CORPUS/real/catapult/simple_trace.json ]]; then
  HAVE_CORPUS=1
  TRACE=$CORPUS/real/catapult/simple_trace.json
  step "trainscope-cli import $TRACE"
  run_installed trainscope-cli import "$TRACE" -o "$T/work/trace.tscope" --json >"$T/import.json" ||
    fail "import: $(cat "$T/import.json")"
  grep -q '"status":"complete"' "$T/import.json" || fail "import: $(cat "$T/import.json")"
  run_installed trainscope-cli stats "$T/work/trace.tscope" --top 3 || fail "stats on the import"
else
  echo "package-test: shared corpus not found (set TRAINSCOPE_CORPUS or put ../shared/corpus" \
    "beside the project): the import and its screenshot are skipped"
fi

OFFSCREEN=""
for d in ${QT_PLUGIN_PATH:+${QT_PLUGIN_PATH//:/ }} /usr/lib/*/qt6/plugins; do
  [[ -f $d/platforms/libqoffscreen.so ]] && OFFSCREEN=$d/platforms/libqoffscreen.so && break
done
if [[ -z $OFFSCREEN ]]; then
  echo "package-test: no Qt offscreen platform plugin (libqoffscreen.so): the screenshots are skipped"
else
  check_png() {
    [[ -s $1 && $(head -c 8 "$1" | od -An -tx1 | tr -d ' ') == 89504e470d0a1a0a ]] ||
      fail "$1 is not a PNG"
    echo "   $(basename "$1"): $(png_size "$1"), $(du -h "$1" | cut -f1)"
  }
  # Mark the installed demo session (this root is thrown away): the session the studio opens
  # with no FILE is a copy of it, so the mark proves it came from <prefix>/share/trainscope and
  # not from the build tree the binary was built in.
  sqlite3 "$DEMO" "CREATE TABLE package_test_mark(x)"
  step "trainscope --screenshot (no FILE: the installed demo session)"
  t0=$(now_ms)
  run_installed timeout 180 trainscope --screenshot "$T/work/demo.png" >"$T/shot.log" 2>&1 ||
    { cat "$T/shot.log" >&2; fail "trainscope --screenshot on the demo session"; }
  echo "   $(elapsed "$t0")"
  check_png "$T/work/demo.png"
  copy=$T/home/.local/share/trainscope/sessions/demo.tscope
  [[ -f $copy ]] || { cat "$T/shot.log" >&2; fail "the studio made no copy of the demo session"; }
  [[ $(sqlite3 "$copy" "SELECT count(*) FROM sqlite_master WHERE name='package_test_mark'") == 1 ]] ||
    fail "the studio opened a demo session that is not the installed one"
  echo "   the studio opened the installed demo session"
  if [[ $HAVE_CORPUS -eq 1 ]]; then
    step "trainscope --screenshot --view timeline on the imported trace"
    t0=$(now_ms)
    run_installed timeout 180 trainscope --screenshot "$T/work/trace.png" --view timeline \
      "$T/work/trace.tscope" >"$T/shot.log" 2>&1 ||
      { cat "$T/shot.log" >&2; fail "trainscope --screenshot on the imported trace"; }
    echo "   $(elapsed "$t0")"
    check_png "$T/work/trace.png"
  fi
fi
[[ -z $(find "$ROOT" -name '*.tscope-wal' -o -name '*.tscope-shm') ]] ||
  fail "running the programs left files in the installed share folder"

# ---- 5. dpkg -i, as root, on a system without trainscope ----
if [[ $(id -u) -ne 0 ]]; then
  echo "package-test: not root: dpkg -i is skipped (the dpkg -x checks above ran)"
elif [[ ${TRAINSCOPE_PACKAGE_TEST_NO_DPKG:-0} == 1 ]]; then
  echo "package-test: TRAINSCOPE_PACKAGE_TEST_NO_DPKG=1: dpkg -i is skipped"
elif ! { mkdir -p /run/lock && exec 9>/run/lock/trainscope-package-test.lock && flock -w 300 9; }; then
  # One install at a time on this machine (two build folders testing at once).
  echo "package-test: another package test holds /run/lock/trainscope-package-test.lock: dpkg -i is skipped"
elif [[ $(dpkg-query -W -f='${Status}' trainscope 2>/dev/null) == *"ok installed"* ]]; then
  echo "package-test: a trainscope package is installed already; dpkg -i is skipped to leave it alone"
else
  step "dpkg -i, then dpkg --purge"
  t0=$(now_ms)
  if ! dpkg -i "$DEB" >"$T/dpkg.log" 2>&1; then
    if grep -q 'locked by another process' "$T/dpkg.log"; then
      echo "package-test: dpkg is locked by another process: dpkg -i is skipped"
    else
      DPKG_INSTALLED=1
      cat "$T/dpkg.log" >&2
      fail "dpkg -i $DEB_NAME"
    fi
  else
    DPKG_INSTALLED=1
    out=$(env -i PATH=/usr/bin:/bin HOME="$T/home" trainscope-cli --version)
    [[ $out == "trainscope-cli $VERSION" ]] || fail "/usr/bin/trainscope-cli --version says '$out'"
    # A user, not root, reads the installed demo session where it lies.
    runuser -u nobody -- env -i PATH=/usr/bin:/bin HOME=/nonexistent \
      trainscope-cli info /usr/share/trainscope/demo.tscope --json >"$T/info-user.json" ||
      fail "a user cannot read /usr/share/trainscope/demo.tscope: $(cat "$T/info-user.json")"
    dpkg -L trainscope >"$T/dpkg-L"
    grep -qx /usr/bin/trainscope "$T/dpkg-L" || fail "dpkg -L lists no /usr/bin/trainscope"
    # The shared-mime-info trigger made the session type known system-wide.
    [[ -f /usr/share/mime/application/x-trainscope-session.xml ]] ||
      fail "update-mime-database did not run on dpkg -i"
    if [[ -f /usr/share/applications/mimeinfo.cache ]]; then
      grep -q "^application/x-trainscope-session=.*$APP_ID.desktop" /usr/share/applications/mimeinfo.cache ||
        fail "the desktop database does not open sessions with TrainScope"
    fi
    echo "   installed: $out; a user reads the demo session; /usr/share/mime knows" \
      "application/x-trainscope-session"
    dpkg --purge trainscope >>"$T/dpkg.log" 2>&1 || { cat "$T/dpkg.log" >&2; fail "dpkg --purge"; }
    DPKG_INSTALLED=0
    [[ ! -e /usr/bin/trainscope && ! -e /usr/share/trainscope ]] || fail "dpkg --purge left files"
    [[ ! -f /usr/share/mime/application/x-trainscope-session.xml ]] ||
      fail "the session type is still known after dpkg --purge"
    echo "   removed again in $(elapsed "$t0") in all"
  fi
fi

step "package test passed"
