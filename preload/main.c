/* main.c: load and unload of libovni-auto.so: the constructor starts tracing
 * the process (and its main thread), the destructor ends every stream after
 * the program's own exit handlers have run. */
#include <pthread.h>

#include "agent.h"
#include "real.h"

static void on_fork_child(void)
{
	agent_fork_child();
}


__attribute__((constructor(101))) static void oa_constructor(void)
{
	oa_real_init();
	agent_process_init();
	pthread_atfork(NULL, NULL, on_fork_child);
}

__attribute__((destructor(101))) static void oa_destructor(void)
{
	agent_process_end(0);
}
