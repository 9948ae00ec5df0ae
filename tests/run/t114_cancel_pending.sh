# Thread cancellation the program leaves pending, or makes asynchronous,
# never acts inside the agent: the agent's file work calls libc functions
# that are cancellation points (open, write, close), and its symbol lookup
# holds a lock.  A thread with a cancel pending that reaches no cancellation
# point of its own lives on as untraced (before: it died at the agent's next
# flush or stream creation, "pending: Success (cancelled)"; one creating
# detached threads died after ~160 of 200); a thread started with a cancel
# pending whose start routine's name was looked up could die holding the
# lookup's lock and hang every thread after it; an asynchronous cancel that
# hit a stream's end left "could not finish the stream" and, without
# ovnirun, an unfinished trace; and under glibc 2.36 one that acted when the
# agent enabled cancellation again left the thread's result NULL.
. "$(dirname "$0")/../lib.sh"
for m in "pending 200" "async 100"; do
	set -- $m
	want=$("$PROG/threads" $m 2>&1)
	for how in plain ovnirun; do
		for run in 1 2 3; do
			d="$WORK/$1.$how.$run"
			if [ $how = plain ]; then
				got=$(OVNI_TRACEDIR="$d" LD_PRELOAD="$LIBAGENT" timeout 60 "$PROG/threads" $m 2>&1)
			else
				got=$(timeout 60 "$OVNIRUN" -q -o "$d" "$PROG/threads" $m 2>&1)
			fi
			st=$?
			assert_eq "$m, $how, run $run: status" 0 "$st"
			assert_eq "$m, $how, run $run: output" "$want" "$got"
			check_trace "$d"
		done
	done
done
