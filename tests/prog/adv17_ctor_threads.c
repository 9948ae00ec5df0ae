/* dlopen from several threads at once of a plugin whose constructor and
 * destructor start and join threads (argv[1]: the plugin's path); argv[2]
 * "copies": each thread opens its own copy (argv[1].N), so the constructors
 * run concurrently. Prints the sums. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char *path;
static int copies;
static long result[3];

static void *opener(void *p)
{
	int i = (int)(long)p;
	char name[4200];
	if (copies)
		snprintf(name, sizeof(name), "%s.%d", path, i);
	else
		snprintf(name, sizeof(name), "%s", path);
	for (int round = 0; round < 3; round++) {
		void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return NULL;
		}
		long (*sum)(void) = (long (*)(void))dlsym(h, "plugin_sum");
		result[i] = sum ? sum() : -1;
		dlclose(h);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	path = argv[1];
	copies = argc > 2 && !strcmp(argv[2], "copies");
	pthread_t th[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, opener, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 3; i++)
		printf("opener %d: %ld\n", i, result[i]);
	return 0;
}
