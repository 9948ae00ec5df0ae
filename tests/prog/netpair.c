/* netpair.c: a small client/server over TCP for the collector tests.
 *   netpair server ADDR PORT CLIENTS [WORKERS]
 *       serve CLIENTS connections, each in its own thread (or, with
 *       WORKERS > 0, in WORKERS forked processes sharing the listening
 *       socket: a preforking server); every line "N" is answered "N*N".
 *       Prints one line per connection served and a total.
 *   netpair client ADDR PORT COUNT    send 1..COUNT, print the sum of the answers
 *   netpair crash MS                  sleep MS, then die of SIGSEGV
 *   netpair sleep MS                  sleep MS, print "slept" */
#include <arpa/inet.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int dial(const char *addr, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	if (getaddrinfo(addr, port, &hints, &ai))
		return -1;
	for (int i = 0; i < 100; i++) { /* the server may still be starting */
		int fd = socket(ai->ai_family, SOCK_STREAM, 0);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			freeaddrinfo(ai);
			return fd;
		}
		close(fd);
		nap(50);
	}
	freeaddrinfo(ai);
	return -1;
}

static long serve_one(int fd)
{
	FILE *in = fdopen(fd, "r+");
	char line[64];
	long n = 0;
	while (fgets(line, sizeof(line), in)) {
		long v = atol(line);
		fprintf(in, "%ld\n", v * v);
		fflush(in);
		n++;
	}
	fclose(in);
	return n;
}

static void *conn_thread(void *arg)
{
	long n = serve_one((int)(long)arg);
	return (void *)n;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 5 && !strcmp(argv[1], "server")) {
		int clients = atoi(argv[4]), workers = argc > 5 ? atoi(argv[5]) : 0;
		struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *ai;
		if (getaddrinfo(argv[2], argv[3], &hints, &ai))
			return 2;
		int lfd = socket(ai->ai_family, SOCK_STREAM, 0), one = 1;
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, 64)) {
			perror("server");
			return 2;
		}
		freeaddrinfo(ai);
		if (workers > 0) {
			for (int w = 0; w < workers; w++) {
				if (fork() == 0) {
					for (int i = 0; i < clients / workers; i++) {
						long n = serve_one(accept(lfd, NULL, NULL));
						printf("worker served %ld lines\n", n);
					}
					_exit(0);
				}
			}
			int st, ok = 0;
			while (wait(&st) > 0)
				ok += WIFEXITED(st) && !WEXITSTATUS(st);
			printf("prefork server: %d workers done\n", ok);
			return 0;
		}
		pthread_t th[64];
		long total = 0;
		for (int i = 0; i < clients && i < 64; i++)
			pthread_create(&th[i], NULL, conn_thread, (void *)(long)accept(lfd, NULL, NULL));
		for (int i = 0; i < clients && i < 64; i++) {
			void *r;
			pthread_join(th[i], &r);
			total += (long)r;
		}
		printf("server: %d connections, %ld lines\n", clients, total);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "client")) {
		int fd = dial(argv[2], argv[3]);
		if (fd < 0) {
			fprintf(stderr, "client: cannot connect\n");
			return 2;
		}
		FILE *io = fdopen(fd, "r+");
		long count = atol(argv[4]), sum = 0;
		char line[64];
		for (long i = 1; i <= count; i++) {
			fprintf(io, "%ld\n", i);
			fflush(io);
			if (!fgets(line, sizeof(line), io))
				return 3;
			sum += atol(line);
		}
		fclose(io);
		printf("client: sum %ld\n", sum);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "crash")) {
		nap(atol(argv[2]));
		raise(SIGSEGV);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "sleep")) {
		nap(atol(argv[2]));
		printf("slept\n");
		return 0;
	}
	fprintf(stderr, "usage: see netpair.c\n");
	return 2;
}
