/* main.c: load and unload of libovni-auto.so: the constructor starts tracing
 * the process (and its main thread), the destructor ends every stream after
 * the program's own exit handlers have run. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent.h"
#include "real.h"

static void on_fork_child(void)
{
	agent_fork_child();
}

/* on_exit() handlers see the status of exit() and of a return from main. */
static void on_exit_status(int status, void *arg)
{
	(void)arg;
	char label[48];
	snprintf(label, sizeof(label), "exit status %d", status);
	agent_proc_event(label);
}

__attribute__((constructor(101))) static void oa_constructor(void)
{
	oa_real_init();
	agent_process_init();
	pthread_atfork(NULL, NULL, on_fork_child);
	on_exit(on_exit_status, NULL);
}

__attribute__((destructor(101))) static void oa_destructor(void)
{
	agent_process_end(0);
}
