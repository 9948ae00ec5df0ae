# Everyday Debian programs: compressors, sort, make, find | xargs; output and
# files identical to an untraced run, traces valid.
. "$(dirname "$0")/lib_real.sh"
seq 1 200000 >"$WORK/data"
same_run gzip sh -c "gzip -c '$WORK/data' > d.gz && gzip -dc d.gz | md5sum"
same_run xz sh -c "xz -T2 -c '$WORK/data' > d.xz && xz -dc d.xz | md5sum"
same_run bzip2 sh -c "bzip2 -c '$WORK/data' > d.bz2 && bzip2 -dc d.bz2 | tail -n 1"
same_run sort sh -c "sort -r --parallel=2 -S 1M '$WORK/data' > s && md5sum s"
mkdir -p "$WORK/src"
for i in 1 2 3 4 5 6; do printf 'int f%d(void) { return %d; }\n' $i $i >"$WORK/src/f$i.c"; done
printf 'all: $(patsubst %%.c,%%.o,$(wildcard %s/src/*.c))\n%%.o: %s/src/%%.c\n\tcc -c -o $@ $<\n' "$WORK" "$WORK" >"$WORK/Makefile"
same_run make sh -c "make -s -j2 -f '$WORK/Makefile' && ls"
same_run findx sh -c "find '$WORK/src' -name '*.c' | sort | xargs -P2 -n1 md5sum | sort"
