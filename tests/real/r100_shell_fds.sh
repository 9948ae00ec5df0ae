# Shells juggle descriptors: a script that opens 3..9, closes 3..40, reopens
# 3 and 4 and runs 120 children writing to them, and zgrep (a shell script
# that moves descriptors around every pipeline). The files the scripts write
# must be byte for byte those of an untraced run.
. "$(dirname "$0")/lib_real.sh"
cat >"$WORK/juggle.sh" <<'SH'
exec 3>a 4>b 5>c 6>d 7>e 8>f 9>g
for fd in 3 4 5 6 7 8 9; do echo "to $fd" >&$fd; done
fd=3; while [ $fd -le 40 ]; do eval "exec $fd>&-"; fd=$((fd + 1)); done
exec 3>x 4>y
i=0
while [ $i -lt 120 ]; do
	sh -c "echo child $i >&3; echo other $i >&4" 
	i=$((i + 1))
done
exec 3>&- 4>&-
cat a b c d e f g | wc -l
SH
same_run juggle bash "$WORK/juggle.sh"
assert_eq "juggle: lines in x" 120 "$(wc -l <"$WORK/juggle.traced/x")"
assert_ge "juggle: processes traced" 120 "$(find "$WORK/juggle.trace" -maxdepth 2 -name 'proc.*' | wc -l)"

seq 1 20000 | sed 's/^/line /' | gzip >"$WORK/in.gz"
cat >"$WORK/zg.sh" <<SH
for i in 1 2 3 4 5; do zgrep -c 'line 1' "$WORK/in.gz" >>zgrep.out; done
zgrep 'line 19999' "$WORK/in.gz" >found
SH
same_run zgrep bash "$WORK/zg.sh"
assert_eq "zgrep output" "line 19999" "$(cat "$WORK/zgrep.traced/found")"
