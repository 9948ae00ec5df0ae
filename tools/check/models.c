/* check_models.c: the models the emulator knows (name, event letter,
 * version), and the rules of the kernel model (KCO/KCI context switches)
 * and of the mpi model (one LIFO function stack per thread). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "../../writer/ovni_fmt.h"

/* Versions are those of the upstream emulator this project targets; for the
 * runtimes' own models (nosv, nanos6, tampi, nodes) the version is not
 * checked and their events are only checked for being enabled. */
static const struct ck_model models[] = {
	{ 'O', "ovni", "1.1.0", CK_MODEL_OVNI },
	{ 'P', "openmp", "1.2.1", CK_MODEL_OPENMP },
	{ 'K', "kernel", "1.0.0", 4u },
	{ 'M', "mpi", "1.0.0", 8u },
	{ 'V', "nosv", NULL, 16u },
	{ '6', "nanos6", NULL, 32u },
	{ 'T', "tampi", NULL, 64u },
	{ 'D', "nodes", NULL, 128u },
};

const struct ck_model *ck_model_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(models[i].name, name))
			return &models[i];
	return NULL;
}

const struct ck_model *ck_model_by_letter(char letter)
{
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (models[i].letter == letter)
			return &models[i];
	return NULL;
}

void ck_kernel_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	if (ev->mcv[1] != 'C' || (ev->mcv[2] != 'O' && ev->mcv[2] != 'I')) {
		ck_problem(c, th, ev, "kernel-unknown", "unknown kernel event %s", ev->mcv);
		return;
	}
	int out = ev->mcv[2] == 'O';
	if (out == th->out_of_cpu) {
		ck_problem(c, th, ev, "kernel-cs", "context switch: thread %lld is %s out of CPU", th->s->tid,
			   out ? "already" : "not");
		return;
	}
	th->out_of_cpu = out;
}

/* MPI functions: a lower-case value (or '[') opens, the upper-case one (or
 * ']') closes, e.g. MUi/MUI, MS[/MS], Mar/MaR. */
void ck_mpi_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	char cat = ev->mcv[1], val = ev->mcv[2];
	if (th->state != TH_RUNNING) {
		ck_problem(c, th, ev, "state", "process_ev: current thread %lld not running (%s)", th->s->tid,
			   ck_state_name[th->state]);
		return;
	}
	uint32_t id;
	int open;
	if (ovni_pair_enters(val)) {
		open = 1;
		id = (uint32_t)(unsigned char)cat << 8 | (unsigned char)val;
	} else if (ovni_pair_leaves(val)) {
		open = 0;
		id = (uint32_t)(unsigned char)cat << 8 | (unsigned char)ovni_pair_enter_of(val);
	} else {
		ck_problem(c, th, ev, "mpi-unknown", "unknown mpi function event %s", ev->mcv);
		return;
	}
	if (open) {
		if (th->mpi.n >= CK_MAX_DEPTH) {
			ck_problem(c, th, ev, "mpi-stack", "mpi function stack is full (%d)", CK_MAX_DEPTH);
			return;
		}
		if (th->mpi.n && ck_top(&th->mpi) == id) /* pushed all the same, not to report its pop */
			ck_problem(c, th, ev, "mpi-stack", "mpi function %s entered again: same value as last_value",
				   ev->mcv);
		ck_push(&th->mpi, id);
		return;
	}
	if (!th->mpi.n || ck_top(&th->mpi) != id) {
		char top[16] = "nothing";
		if (th->mpi.n)
			snprintf(top, sizeof(top), "M%c%c", (char)(ck_top(&th->mpi) >> 8),
				 (char)(ck_top(&th->mpi) & 0xff));
		ck_problem(c, th, ev, "mpi-stack", "%s does not close the top of the mpi function stack (%s is open)",
			   ev->mcv, top);
		return;
	}
	th->mpi.n--;
}

void ck_mpi_end(struct ck *c, struct ck_thread *th)
{
	if (th->mpi.n)
		ck_problem(c, th, NULL, "mpi-end", "end_lint: thread %lld ended with %d stacked mpi functions",
			   th->s->tid, th->mpi.n);
}
