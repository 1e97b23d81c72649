// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A process with as many VMAs as vm.max_map_count allows, for
 * scripts/bench-maps.sh.
 *
 *   many-vmas [N]    N: the number of VMAs wanted in the whole process
 *                    (default: vm.max_map_count)
 *
 * Reserves one PROT_NONE area and makes every other page of it read-write,
 * so that neighbours differ in protection and cannot merge; every read-write
 * page is faulted so that smaps and pagemap have something to say. Stops at
 * N VMAs or when mprotect fails (ENOMEM at the map count limit), prints
 * "PID VMAS" on stdout, and waits until stdin closes or a signal comes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static long count_vmas(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE), want = 65530, have, i;
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	char *area, buf[64];

	if (f) {
		if (fscanf(f, "%ld", &want) != 1)
			want = 65530;
		fclose(f);
	}
	if (argc > 1)
		want = atol(argv[1]);
	have = count_vmas();
	if (have < 0 || want < have + 2) {
		fprintf(stderr, "many-vmas: cannot reach %ld VMAs (have %ld)\n", want, have);
		return 1;
	}
	/* The area becomes one VMA; each later mprotect of an interior page adds two. */
	long pages = 2 * (want - have) + 2;
	area = mmap(NULL, pages * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED) {
		perror("many-vmas: mmap");
		return 1;
	}
	have++;
	for (i = 1; i + 1 < pages && have < want; i += 2) {
		if (mprotect(area + i * ps, ps, PROT_READ | PROT_WRITE)) {
			if (errno == ENOMEM)
				break;
			perror("many-vmas: mprotect");
			return 1;
		}
		area[i * ps] = 1;
		have += 2;
	}
	/* An odd count: the last split gives one VMA less than asked; fine. */
	printf("%d %ld\n", (int)getpid(), count_vmas());
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
