/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz harness: the /proc/PID/maps and smaps parsers on arbitrary bytes.
 * maps: through maps_parse_fd() on a memfd holding the input (the interface
 * the maps fallback of vma.c uses on /proc/PID/maps), and maps_parse_buf() on
 * the bytes, which must agree; each parsed VMA is printed back with
 * vma_maps_line(). smaps: smaps_parse_buf(), whose result must be sorted. */
#include "anonremap.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vma *v1 = NULL, *v2 = NULL;
	size_t n1 = 0, n2 = 0;
	int rc1, rc2;

	if (size > (1u << 20))
		return 0;
	rc1 = maps_parse_buf((const char *)data, size, &v1, &n1);
	int fd = memfd_create("fuzz-maps", MFD_CLOEXEC);
	if (fd >= 0) {
		if (!write_full(fd, data, size)) {
			rc2 = maps_parse_fd(fd, &v2, &n2);
			/* the two interfaces see the same bytes: the same answer */
			if (rc2 != rc1 || n2 != n1)
				abort();
			for (size_t i = 0; i < n1; i++)
				if (v1[i].start != v2[i].start || v1[i].end != v2[i].end ||
				    v1[i].offset != v2[i].offset || v1[i].inode != v2[i].inode ||
				    strcmp(v1[i].perms, v2[i].perms) || strcmp(v1[i].name, v2[i].name))
					abort();
			if (!rc2)
				vma_free_list(v2, n2);
		}
		close(fd);
	}
	for (size_t i = 0; i < n1; i++) {
		char line[512];
		if (v1[i].start > v1[i].end || strlen(v1[i].perms) != 4)
			abort();
		vma_maps_line(&v1[i], line, sizeof(line));
	}
	if (!rc1)
		vma_free_list(v1, n1);
	else if (v1)
		abort(); /* an error frees the list */

	struct smaps_entry *se = NULL;
	size_t ns = 0;
	if (!smaps_parse_buf((const char *)data, size, &se, &ns))
		for (size_t i = 1; i < ns; i++)
			if (se[i - 1].start > se[i].start)
				abort();
	free(se);
	return 0;
}
