# The manual: one man page per command (ovnirun, ovni-auto and each of its
# subcommands) and per topic, built from docs/*.md by scripts/md2man.awk.
# Each renders with `man -l` and no warning, has the sections a man page
# has, names only pages that exist in SEE ALSO, and `make install` puts
# them where `man` finds them.
. "$(dirname "$0")/../lib.sh"
cd "$OA_TOP" || fail "cd"
command -v man >/dev/null || skip "no man (Debian package man-db)"
make -s man >/dev/null || fail "make man"
pages=$(ls build/man/man1/*.1 build/man/man7/*.7)
assert_eq "a page per docs/*.[17].md" "$(ls docs/*.1.md docs/*.7.md | wc -l)" "$(echo "$pages" | wc -l)"
for cmd in $("$OA" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	[ -f "build/man/man1/ovni-auto-$cmd.1" ] || fail "no man page for ovni-auto $cmd"
done
[ -f build/man/man1/ovnirun.1 ] && [ -f build/man/man1/ovni-auto.1 ] || fail "no page for ovnirun or ovni-auto"
for p in $pages; do
	MANWIDTH=80 man --warnings -l "$p" >"$WORK/out" 2>"$WORK/err" || fail "$p: man failed: $(head -3 "$WORK/err")"
	# Lines that cannot be justified are typography, not errors.
	grep -v "cannot adjust line" "$WORK/err" >"$WORK/err2"
	[ -s "$WORK/err2" ] && fail "$p: $(head -3 "$WORK/err2")"
	name=$(basename "$p" | sed 's/\.[17]$//')
	grep -q "^NAME" "$WORK/out" && grep -q "^ *$name  *- " "$WORK/out" || fail "$p: no NAME line for $name"
	grep -q "^DESCRIPTION" "$WORK/out" || fail "$p: no DESCRIPTION"
	grep -q "^SEE ALSO" "$WORK/out" || fail "$p: no SEE ALSO"
	case "$p" in *.1) grep -q "^SYNOPSIS" "$WORK/out" || fail "$p: no SYNOPSIS" ;; esac
	for ref in $(sed -n '/^## SEE ALSO/,$p' docs/"$(basename "$p")".md | grep -o '[a-z][a-z-]*([17])'); do
		n=${ref%(*} s=$(echo "$ref" | tr -dc 17)
		[ "$n" = ovniemu ] || [ -f "build/man/man$s/$n.$s" ] || fail "$p: SEE ALSO names $ref, which has no page"
	done
done
# Installed, `man NAME` finds them.
make -s install DESTDIR="$WORK/inst" PREFIX=/usr >/dev/null || fail "make install"
MANWIDTH=80 man -M "$WORK/inst/usr/share/man" ovnirun | grep -q "run a program under the ovni-auto agent" || fail "man ovnirun after install"
MANWIDTH=80 man -M "$WORK/inst/usr/share/man" 7 ovni-auto-env | grep -q "OVNI_TRACEDIR" || fail "man 7 ovni-auto-env after install"
