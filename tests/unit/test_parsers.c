/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: /proc/PID/maps and smaps parsers (src/vma.c, src/smaps.c) on
 * captured files in tests/data/:
 *   maps-basic.txt    cat /proc/self/maps
 *   maps-odd.txt      a process that mapped a file named with spaces, a
 *                     deleted file and a file under a 3000+ byte path
 *   maps-crafted.txt  hand-made lines in the kernel's format: [anon:name],
 *                     memfd, dev majors above 0xff, a header past column 72
 *   smaps-basic.txt   a process with a THP and an mlock()ed page
 *   smaps-odd.txt     hand-made: unsorted, Swap, no THPeligible, long lines */
#include "anonremap.h"
#include "unit.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static char *data_path(const char *name)
{
	const char *top = getenv("TOP_SRCDIR");
	char *p = xmalloc(4096);

	if (top && *top)
		snprintf(p, 4096, "%s/tests/data/%s", top, name);
	else
		snprintf(p, 4096, "tests/data/%s", name);
	return p;
}

static char *load(const char *name, size_t *len)
{
	char *path = data_path(name);
	struct err err = { "" };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = NULL;

	if (fd < 0) {
		printf("# %s: %s (set TOP_SRCDIR or run from the source dir)\n", path, strerror(errno));
	} else {
		buf = read_fd_all(fd, 1u << 24, len, &err);
		if (!buf)
			printf("# %s: %s\n", path, err.msg);
		close(fd);
	}
	free(path);
	return buf;
}

static size_t count_lines(const char *buf, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n + (len && buf[len - 1] != '\n');
}

static const struct vma *find_name(const struct vma *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].name && !strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static const struct vma *find_start(const struct vma *v, size_t n, uint64_t start)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].start == start)
			return &v[i];
	return NULL;
}

static void check_vma(const struct vma *v, uint64_t start, uint64_t end, const char *perms,
		      uint64_t offset, unsigned maj, unsigned min, uint64_t inode, const char *name)
{
	CHECK(v != NULL);
	if (!v)
		return;
	CHECK_EQ_U64(v->start, start);
	CHECK_EQ_U64(v->end, end);
	CHECK_STR(v->perms, perms);
	CHECK_EQ_U64(v->offset, offset);
	CHECK_EQ_U64(v->dev_major, maj);
	CHECK_EQ_U64(v->dev_minor, min);
	CHECK_EQ_U64(v->inode, inode);
	CHECK_STR(v->name, name);
}

/* Length of the kernel's header: five fields, each with the space after it. */
static size_t header_len(const char *line, size_t len)
{
	size_t i = 0;

	for (int f = 0; f < 5 && i < len; f++) {
		while (i < len && line[i] != ' ')
			i++;
		i++;
	}
	return i < len ? i : len;
}

/* Each line parses alone to one VMA, and vma_maps_line() gives it back byte
 * for byte. Lines whose header passes column 72 are counted, not checked. */
static void check_round_trip(const char *what, const char *buf, size_t len, int *long_headers)
{
	static char out[8192];
	const char *p = buf, *end = buf + len;
	int lineno = 0, bad = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct vma *v = NULL;
		size_t n = 0;
		lineno++;
		if (long_headers && header_len(p, ll) > 72) {
			(*long_headers)++;
			p += ll + 1;
			continue;
		}
		int rc = maps_parse_buf(p, ll, &v, &n);
		CHECK(rc == 0 && n == 1);
		if (rc == 0 && n == 1) {
			vma_maps_line(&v[0], out, sizeof(out));
			if (strlen(out) != ll || memcmp(out, p, ll)) {
				if (bad++ < 5)
					printf("# %s:%d: round trip differs\n#   in:  \"%.*s\"\n#   out: \"%s\"\n",
					       what, lineno, (int)(ll < 200 ? ll : 200), p, out);
			}
		}
		vma_free_list(v, n);
		p += ll + 1;
	}
	CHECK(bad == 0);
	CHECK(lineno > 0);
}

static void test_maps_basic(void)
{
	size_t len, n = 0;
	char *buf = load("maps-basic.txt", &len);
	struct vma *v = NULL;

	CHECK(buf != NULL);
	if (!buf)
		return;
	CHECK(maps_parse_buf(buf, len, &v, &n) == 0);
	CHECK_EQ_U64(n, count_lines(buf, len));
	CHECK_EQ_U64(n, 38);
	check_vma(&v[0], 0x55bc8e076000ull, 0x55bc8e078000ull, "r--p", 0, 0xfe, 0, 247134, "/usr/bin/cat");
	check_vma(find_start(v, n, 0x55bc8e081000ull), 0x55bc8e081000ull, 0x55bc8e082000ull, "rw-p",
		  0xa000, 0xfe, 0, 247134, "/usr/bin/cat");
	check_vma(find_name(v, n, "[heap]"), 0x55bca9fa1000ull, 0x55bca9fc2000ull, "rw-p", 0, 0, 0, 0, "[heap]");
	check_vma(find_start(v, n, 0x7f36c4bd8000ull), 0x7f36c4bd8000ull, 0x7f36c4bfa000ull, "rw-p",
		  0, 0, 0, 0, "");
	check_vma(find_name(v, n, "[vsyscall]"), 0xffffffffff600000ull, 0xffffffffff601000ull, "--xp",
		  0, 0, 0, 0, "[vsyscall]");
	CHECK(find_name(v, n, "[stack]") != NULL);
	CHECK(find_name(v, n, "[vdso]") != NULL);
	/* sorted, and no VMA is empty */
	for (size_t i = 0; i < n; i++) {
		CHECK(v[i].start < v[i].end);
		if (i)
			CHECK(v[i - 1].end <= v[i].start);
	}
	vma_free_list(v, n);
	check_round_trip("maps-basic.txt", buf, len, NULL);
	free(buf);
}

static void test_maps_odd(void)
{
	size_t len, n = 0;
	char *buf = load("maps-odd.txt", &len);
	struct vma *v = NULL;

	CHECK(buf != NULL);
	if (!buf)
		return;
	CHECK(maps_parse_buf(buf, len, &v, &n) == 0);
	CHECK_EQ_U64(n, 26);
	/* two spaces inside the name are kept */
	check_vma(find_start(v, n, 0x7f6f840d5000ull), 0x7f6f840d5000ull, 0x7f6f840d6000ull, "r--s",
		  0x1000, 0xfe, 0, 10953192, "/tmp/anonremap-maps/a file  with spaces.bin");
	check_vma(find_start(v, n, 0x7f6f840d4000ull), 0x7f6f840d4000ull, 0x7f6f840d5000ull, "rw-p",
		  0x2000, 0xfe, 0, 10953193, "/tmp/anonremap-maps/gone.bin (deleted)");
	/* no name: the line ends with the inode and one space */
	check_vma(find_start(v, n, 0x7f6f83ee9000ull), 0x7f6f83ee9000ull, 0x7f6f83eec000ull, "rw-p",
		  0, 0, 0, 0, "");
	check_vma(find_name(v, n, "[vsyscall]"), 0xffffffffff600000ull, 0xffffffffff601000ull, "--xp",
		  0, 0, 0, 0, "[vsyscall]");
	check_vma(find_name(v, n, "[vvar_vclock]"), 0x7f6f840df000ull, 0x7f6f840e1000ull, "r--p",
		  0, 0, 0, 0, "[vvar_vclock]");
	const struct vma *l = find_start(v, n, 0x7f6f840d3000ull);
	CHECK(l != NULL);
	if (l) {
		size_t nl = strlen(l->name);
		CHECK(nl >= 3000);
		CHECK(!strncmp(l->name, "/tmp/anonremap-maps/dddd", 24));
		CHECK(nl > 9 && !strcmp(l->name + nl - 9, "/long.bin"));
		CHECK(strchr(l->name, '\n') == NULL);
		CHECK_STR(l->perms, "r-xp");
		CHECK_EQ_U64(l->inode, 10953210);
	}
	vma_free_list(v, n);
	check_round_trip("maps-odd.txt", buf, len, NULL);
	free(buf);
}

static void test_maps_crafted(void)
{
	size_t len, n = 0;
	char *buf = load("maps-crafted.txt", &len);
	struct vma *v = NULL;
	int long_headers = 0;

	CHECK(buf != NULL);
	if (!buf)
		return;
	CHECK(maps_parse_buf(buf, len, &v, &n) == 0);
	CHECK_EQ_U64(n, 8);
	if (n == 8) {
		check_vma(&v[0], 0x7f1234560000ull, 0x7f1234563000ull, "rw-p", 0, 0, 0, 0, "[anon:anonremap test]");
		check_vma(&v[1], 0x7f1234563000ull, 0x7f1234564000ull, "---p", 0, 0, 0, 0, "[anon:carveout]");
		check_vma(&v[2], 0x7f1234564000ull, 0x7f1234565000ull, "rw-s", 0, 0, 1, 2049,
			  "/memfd:a memfd (deleted)");
		check_vma(&v[3], 0x7f1234565000ull, 0x7f1234566000ull, "rw-s", 0, 0, 1, 4097,
			  "[anon_shmem:shm name]");
		check_vma(&v[4], 0x7f1234566000ull, 0x7f1234567000ull, "r--p", 0x123456789000ull, 0x103, 5,
			  12345678, "/mnt/nvme/a\\012b");
		check_vma(&v[5], 0x7f1234567000ull, 0x7f1234568000ull, "rw-p", 0, 0, 0, 0, "");
		check_vma(&v[6], 0x400000, 0x401000, "r-xp", 0, 8, 1, 42, "/bin/short");
		check_vma(&v[7], 0x7f1234569000ull, 0x7f123456a000ull, "r--s", 0xfffffffffffff000ull, 0xfff,
			  0xfffff, UINT64_MAX, "/long/header");
	}
	vma_free_list(v, n);
	check_round_trip("maps-crafted.txt", buf, len, &long_headers);
	CHECK(long_headers == 1);
	free(buf);
}

static void test_maps_long_header(void)
{
	const char *line = "7f1234569000-7f123456a000 r--s fffffffffffff000 fff:fffff "
			   "18446744073709551615  /long/header";
	struct vma *v = NULL;
	size_t n = 0;
	char out[256];

	CHECK(header_len(line, strlen(line)) > 72);
	CHECK(maps_parse_buf(line, strlen(line), &v, &n) == 0 && n == 1);
	if (n != 1)
		return;
	CHECK_STR(v[0].name, "/long/header");
	vma_maps_line(&v[0], out, sizeof(out));
	CHECK_STR(out, line);
	/* a header of exactly 72 columns (its own space included): no padding,
	 * then the one space, so two in a row */
	const char *l72 = "7f1234569000-7f123456a000 r--s ffffff000 fff:fffff 18446744073709551615  /long/header";
	CHECK_EQ_U64(header_len(l72, strlen(l72)), 72);
	v[0].offset = 0xffffff000ull;
	vma_maps_line(&v[0], out, sizeof(out));
	CHECK_STR(out, l72);
	vma_free_list(v, n);
}

static void test_maps_line_small_buf(void)
{
	struct vma v = { .start = 0x7f0000000000ull, .end = 0x7f0000001000ull, .offset = 0x1000,
			 .inode = 77, .dev_major = 8, .dev_minor = 1, .perms = "r--p",
			 .name = (char *)"/some/file name" };
	char full[256], buf[256];

	vma_maps_line(&v, full, sizeof(full));
	CHECK_STR(full, "7f0000000000-7f0000001000 r--p 00001000 08:01 77"
			"                         /some/file name");
	size_t fl = strlen(full);
	for (size_t len = 1; len <= fl + 2; len++) {
		memset(buf, 'X', sizeof(buf));
		vma_maps_line(&v, buf, len);
		size_t bl = strnlen(buf, sizeof(buf));
		if (!(bl < len && !strncmp(buf, full, bl) && buf[len] == 'X')) {
			printf("# len %zu: \"%s\"\n", len, buf);
			CHECK(0);
		}
		/* the buffer is filled as far as it goes */
		if (bl != (len - 1 < fl ? len - 1 : fl)) {
			printf("# len %zu: %zu bytes\n", len, bl);
			CHECK(0);
		}
	}
	/* NULL name: like an empty one */
	v.name = NULL;
	vma_maps_line(&v, buf, sizeof(buf));
	CHECK_STR(buf, "7f0000000000-7f0000001000 r--p 00001000 08:01 77 ");
	/* short addresses are zero-padded to 8 digits */
	struct vma s = { .start = 0x1000, .end = 0x2000, .perms = "---p", .name = (char *)"" };
	vma_maps_line(&s, buf, sizeof(buf));
	CHECK_STR(buf, "00001000-00002000 ---p 00000000 00:00 0 ");
}

static void test_maps_edges(void)
{
	struct vma *v = NULL;
	size_t n = 99;
	const char *s;

	/* empty input: no VMAs */
	CHECK(maps_parse_buf("", 0, &v, &n) == 0 && n == 0);
	vma_free_list(v, n);
	/* blank lines are skipped, a last line needs no newline */
	s = "\n00001000-00002000 rw-p 00000000 00:00 0 \n\n00003000-00004000 r--p 00000000 00:00 0 [x]";
	CHECK(maps_parse_buf(s, strlen(s), &v, &n) == 0 && n == 2);
	if (n == 2) {
		CHECK_EQ_U64(v[1].start, 0x3000);
		CHECK_STR(v[1].name, "[x]");
		CHECK_STR(v[0].name, "");
	}
	vma_free_list(v, n);
	/* no trailing space after the inode */
	s = "00001000-00002000 rw-p 00000000 00:00 0";
	CHECK(maps_parse_buf(s, strlen(s), &v, &n) == 0 && n == 1);
	if (n == 1)
		CHECK_STR(v[0].name, "");
	vma_free_list(v, n);
	/* the length bounds the parse, not a NUL */
	s = "00001000-00002000 rw-p 00000000 00:00 0     /a/b\n00003000-garbage";
	CHECK(maps_parse_buf(s, strchr(s, '\n') - s, &v, &n) == 0 && n == 1);
	if (n == 1)
		CHECK_STR(v[0].name, "/a/b");
	vma_free_list(v, n);
	/* an empty VMA (start == end) is not an error */
	s = "00001000-00001000 rw-p 00000000 00:00 0 ";
	CHECK(maps_parse_buf(s, strlen(s), &v, &n) == 0 && n == 1);
	vma_free_list(v, n);
	/* many lines: the array grows */
	size_t cap = 5000 * 64, len = 0;
	char *big = xmalloc(cap);
	for (int i = 0; i < 5000; i++)
		len += snprintf(big + len, cap - len, "%08x-%08x rw-p 00000000 00:00 0 \n",
				(i + 1) * 0x1000, (i + 2) * 0x1000);
	CHECK(maps_parse_buf(big, len, &v, &n) == 0);
	CHECK_EQ_U64(n, 5000);
	if (n == 5000)
		CHECK_EQ_U64(v[4999].end, 5001 * 0x1000);
	vma_free_list(v, n);
	free(big);
}

static int parse_fails(const char *s, size_t len)
{
	struct vma *v = (struct vma *)1;
	size_t n = 99;
	int rc = maps_parse_buf(s, len, &v, &n);

	if (rc == 0) {
		printf("# accepted: \"%.*s\"\n", (int)len, s);
		vma_free_list(v, n);
		return 0;
	}
	return rc == -EINVAL && v == NULL && n == 0;
}

static void test_maps_malformed(void)
{
	static const char *const bad[] = {
		"garbage",
		"garbage with spaces and /a/name",
		"-",
		"00001000",
		"00001000-",
		"00001000-00002000",
		"00001000-00002000 rw-p",
		"00001000-00002000 rw-p 00000000",
		"00001000-00002000 rw-p 00000000 00:00",
		"00002000-00001000 rw-p 00000000 00:00 0 ",           /* start > end */
		"ffffffffffffffff-0000000000000000 rw-p 00000000 00:00 0 ",
		"00001000-00002000 rw- 00000000 00:00 0 ",            /* 3 perms */
		"00001000-00002000 rw-pp 00000000 00:00 0 ",          /* 5 perms */
		"00001000 00002000 rw-p 00000000 00:00 0 ",
		"00001000-00002000 rw-p zzzzzzzz 00:00 0 ",
		"00001000-00002000 rw-p 00000000 0000 0 ",
		"00001000-00002000 rw-p 00000000 00:00 x ",
		"zz001000-00002000 rw-p 00000000 00:00 0 ",
		"Rss:                   4 kB",
		"\x01\x02\x03\xff",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(parse_fails(bad[i], strlen(bad[i])));
	/* a bad line after good ones fails the whole file, and leaks nothing */
	const char *s = "00001000-00002000 rw-p 00000000 00:00 0     /a\n"
			"00003000-00004000 rw-p 00000000 00:00 0     /b\n"
			"00005000-0000\n";
	CHECK(parse_fails(s, strlen(s)));
	/* a NUL inside the header */
	char nul[] = "00001000-00002000 rw-p 00\00000000 00:00 0 ";
	CHECK(parse_fails(nul, sizeof(nul) - 1));
	/* every cut of a real line parses or fails, without reading past it */
	const char *line = "7f6f840d5000-7f6f840d6000 r--s 00001000 fe:00 10953192                   "
			   "/tmp/anonremap-maps/a file  with spaces.bin";
	size_t ll = strlen(line), inode_at = strstr(line, "10953192") - line;
	int wrong = 0;
	for (size_t k = 1; k <= ll; k++) {
		char *cut = xmalloc(k); /* exactly k bytes: overruns show under ASan/valgrind */
		memcpy(cut, line, k);
		struct vma *v = NULL;
		size_t n = 0;
		int rc = maps_parse_buf(cut, k, &v, &n);
		if ((k <= inode_at) != (rc != 0))
			wrong++;
		vma_free_list(v, n);
		free(cut);
	}
	CHECK(wrong == 0);
}

/* Random bytes and random cuts of real files: no crash, and a consistent answer. */
static void test_maps_fuzz(void)
{
	size_t len;
	char *buf = load("maps-odd.txt", &len);
	unsigned seed = 12345;
	int inconsistent = 0;

	CHECK(buf != NULL);
	if (!buf)
		return;
	for (int i = 0; i < 3000; i++) {
		char tmp[512];
		size_t tl = rand_r(&seed) % sizeof(tmp);
		if (i % 2) {
			for (size_t k = 0; k < tl; k++)
				tmp[k] = (char)rand_r(&seed);
		} else {
			/* a real stretch with a few bytes flipped */
			size_t at = rand_r(&seed) % len;
			if (tl > len - at)
				tl = len - at;
			memcpy(tmp, buf + at, tl);
			for (int f = rand_r(&seed) % 4; f > 0 && tl; f--)
				tmp[rand_r(&seed) % tl] = " -:0fx\n"[rand_r(&seed) % 7];
		}
		struct vma *v = NULL;
		size_t n = 0;
		int rc = maps_parse_buf(tmp, tl, &v, &n);
		if (rc ? (v != NULL || n != 0) : (n > count_lines(tmp, tl)))
			inconsistent++;
		for (size_t k = 0; !rc && k < n; k++)
			if (v[k].start > v[k].end || strlen(v[k].perms) != 4 || !v[k].name)
				inconsistent++;
		vma_free_list(v, n);
	}
	CHECK(inconsistent == 0);
	free(buf);
}

static void test_maps_fd(void)
{
	size_t len, n1 = 0, n2 = 0;
	char *buf = load("maps-odd.txt", &len);
	char *path = data_path("maps-odd.txt");
	struct vma *v1 = NULL, *v2 = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	free(path);
	CHECK(buf != NULL && fd >= 0);
	if (!buf || fd < 0) {
		free(buf);
		return;
	}
	/* the fd is read from offset 0, wherever its position */
	CHECK(lseek(fd, 100, SEEK_SET) == 100);
	CHECK(maps_parse_fd(fd, &v1, &n1) == 0);
	CHECK(maps_parse_buf(buf, len, &v2, &n2) == 0);
	CHECK(n1 == n2 && n1 == 26);
	for (size_t i = 0; i < n1 && i < n2; i++) {
		CHECK(v1[i].start == v2[i].start && v1[i].end == v2[i].end);
		CHECK_STR(v1[i].name, v2[i].name);
	}
	/* and a second parse of the same fd gives the same */
	vma_free_list(v1, n1);
	CHECK(maps_parse_fd(fd, &v1, &n1) == 0 && n1 == n2);
	vma_free_list(v1, n1);
	vma_free_list(v2, n2);
	close(fd);
	free(buf);

	/* a file over the 64 KiB first read */
	fd = memfd_create("maps", MFD_CLOEXEC);
	CHECK(fd >= 0);
	if (fd >= 0) {
		char line[200];
		size_t total = 0;
		int lines = 0;
		while (total < 300000) {
			int k = snprintf(line, sizeof(line), "%012x-%012x r--p 00000000 fe:00 1234%*s/x/%d\n",
					 (lines + 1) * 0x1000, (lines + 2) * 0x1000, 21, "", lines);
			CHECK(write_full(fd, line, k) == 0);
			total += k;
			lines++;
		}
		CHECK(maps_parse_fd(fd, &v1, &n1) == 0);
		CHECK_EQ_U64(n1, lines);
		if ((int)n1 == lines) {
			snprintf(line, sizeof(line), "/x/%d", lines - 1);
			CHECK_STR(v1[n1 - 1].name, line);
		}
		vma_free_list(v1, n1);
		close(fd);
	}

	/* the live file of this process: the stack holds a local */
	int local = 0;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(maps_parse_fd(fd, &v1, &n1) == 0 && n1 > 5);
	uint64_t a = (uintptr_t)&local, f = (uintptr_t)&test_maps_fd;
	const struct vma *sv = NULL, *tv = NULL;
	for (size_t i = 0; i < n1; i++) {
		if (v1[i].start <= a && a < v1[i].end)
			sv = &v1[i];
		if (v1[i].start <= f && f < v1[i].end)
			tv = &v1[i];
	}
	CHECK(sv && !strcmp(sv->name, "[stack]") && sv->perms[0] == 'r' && sv->perms[1] == 'w');
	CHECK(tv && tv->perms[2] == 'x' && strstr(tv->name, "test_parsers") && tv->inode);
	vma_free_list(v1, n1);
	close(fd);

	/* errors: a pipe cannot be pread, a closed fd is EBADF */
	int pfd[2];
	CHECK(pipe(pfd) == 0);
	CHECK(write(pfd[1], "00001000-00002000 rw-p 00000000 00:00 0 \n", 41) == 41);
	v1 = (struct vma *)1;
	CHECK(maps_parse_fd(pfd[0], &v1, &n1) == -ESPIPE);
	close(pfd[0]);
	close(pfd[1]);
	CHECK(maps_parse_fd(pfd[0], &v1, &n1) == -EBADF);
	/* garbage in a file */
	fd = memfd_create("bad", MFD_CLOEXEC);
	CHECK(fd >= 0 && write_full(fd, "not a maps file\n", 16) == 0);
	CHECK(maps_parse_fd(fd, &v1, &n1) == -EINVAL && v1 == NULL && n1 == 0);
	close(fd);
}

static const struct smaps_entry *sm_find(const struct smaps_entry *e, size_t n, uint64_t start)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].start == start)
			return &e[i];
	return NULL;
}

/* The header lines of an smaps file: a maps file. */
static char *smaps_headers(const char *buf, size_t len, size_t *out_len)
{
	char *h = xmalloc(len + 1);
	const char *p = buf, *end = buf + len;
	size_t hl = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *colon = memchr(p, ':', ll), *space = memchr(p, ' ', ll);
		/* field lines are "Key: value": the colon comes before any space */
		if (!(colon && (!space || colon < space))) {
			memcpy(h + hl, p, ll);
			hl += ll;
			h[hl++] = '\n';
		}
		p += ll + 1;
	}
	*out_len = hl;
	return h;
}

static void test_smaps_basic(void)
{
	size_t len, n = 0;
	char *buf = load("smaps-basic.txt", &len);
	struct smaps_entry *e = NULL;

	CHECK(buf != NULL);
	if (!buf)
		return;
	CHECK(smaps_parse_buf(buf, len, &e, &n) == 0);
	CHECK_EQ_U64(n, 27);
	for (size_t i = 1; i < n; i++)
		CHECK(e[i - 1].start < e[i].start);
	/* the THP */
	const struct smaps_entry *t = sm_find(e, n, 0x7fcf16200000ull);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_U64(t->end, 0x7fcf16400000ull);
		CHECK_EQ_U64(t->rss, 2048);
		CHECK_EQ_U64(t->anon, 2048);
		CHECK_EQ_U64(t->anon_huge, 2048);
		CHECK_EQ_U64(t->swap, 0);
		CHECK_EQ_U64(t->locked, 0);
		CHECK(t->thp_eligible == 1);
		CHECK_STR(t->vm_flags, "rd wr mr mw me ac hg "); /* as the kernel ends it */
	}
	/* the mlock()ed page */
	t = sm_find(e, n, 0x7fcf16d1e000ull);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_U64(t->end, 0x7fcf16d1f000ull);
		CHECK_EQ_U64(t->rss, 4);
		CHECK_EQ_U64(t->anon, 4);
		CHECK_EQ_U64(t->anon_huge, 0);
		CHECK_EQ_U64(t->locked, 4);
		CHECK(t->thp_eligible == 0);
		CHECK_STR(t->vm_flags, "rd wr mr mw me lo ac ");
	}
	/* a file mapping */
	t = sm_find(e, n, 0xffffffffff600000ull);
	CHECK(t && t->end == 0xffffffffff601000ull && t->thp_eligible == 0);
	/* its header lines are a maps file, with the same VMAs */
	size_t hl;
	char *h = smaps_headers(buf, len, &hl);
	struct vma *v = NULL;
	size_t nv = 0;
	CHECK(maps_parse_buf(h, hl, &v, &nv) == 0);
	CHECK_EQ_U64(nv, n);
	for (size_t i = 0; i < n && i < nv; i++)
		CHECK(v[i].start == e[i].start && v[i].end == e[i].end);
	check_round_trip("smaps-basic.txt headers", h, hl, NULL);
	vma_free_list(v, nv);
	free(h);
	free(e);
	free(buf);
}

static void test_smaps_odd(void)
{
	size_t len, n = 0;
	char *buf = load("smaps-odd.txt", &len);
	struct smaps_entry *e = NULL;

	CHECK(buf != NULL);
	if (!buf)
		return;
	CHECK(smaps_parse_buf(buf, len, &e, &n) == 0);
	CHECK_EQ_U64(n, 4);
	if (n != 4)
		goto out;
	/* sorted by start, whatever the file's order */
	CHECK_EQ_U64(e[0].start, 0x7f0000000000ull);
	CHECK_EQ_U64(e[1].start, 0x7f0000003000ull);
	CHECK_EQ_U64(e[2].start, 0x7f0000004000ull);
	CHECK_EQ_U64(e[3].start, 0x7f0000400000ull);
	/* Swap, not SwapPss; no THPeligible line is -1 */
	CHECK_EQ_U64(e[0].end, 0x7f0000002000ull);
	CHECK_EQ_U64(e[0].swap, 8);
	CHECK_EQ_U64(e[0].rss, 0);
	CHECK(e[0].thp_eligible == -1);
	CHECK_STR(e[0].vm_flags, "rd wr mr mw me ac sd");
	/* the Rss line before any header belongs to nothing */
	CHECK_EQ_U64(e[1].rss, 4);
	CHECK_EQ_U64(e[1].locked, 4);
	CHECK(e[1].thp_eligible == 0);
	/* a 600-byte name; the file has no final newline */
	CHECK_EQ_U64(e[2].end, 0x7f0000005000ull);
	CHECK_EQ_U64(e[2].rss, 12);
	CHECK_EQ_U64(e[2].anon, 0);
	CHECK(e[2].thp_eligible == 1);
	CHECK_STR(e[2].vm_flags, "rd mr");
	/* a THP region; an unknown key is ignored; VmFlags is cut at 127 bytes */
	CHECK_EQ_U64(e[3].rss, 4096);
	CHECK_EQ_U64(e[3].anon, 4096);
	CHECK_EQ_U64(e[3].anon_huge, 4096);
	CHECK(e[3].thp_eligible == 1);
	CHECK_EQ_U64(strlen(e[3].vm_flags), 127);
	CHECK(!strncmp(e[3].vm_flags, "x0 x1 x2 x3 ", 12));
out:
	free(e);
	free(buf);
}

static void test_smaps_edges(void)
{
	struct smaps_entry *e = NULL;
	size_t n = 99;
	const char *s;

	CHECK(smaps_parse_buf("", 0, &e, &n) == 0 && n == 0);
	free(e);
	/* no header: nothing, and no error */
	s = "Rss:  4 kB\nVmFlags: rd\ngarbage\n";
	CHECK(smaps_parse_buf(s, strlen(s), &e, &n) == 0 && n == 0);
	free(e);
	/* a value that is no number reads as 0; a header alone has defaults */
	s = "00001000-00002000 rw-p 00000000 00:00 0 \nRss: lots kB\nLocked:\n";
	CHECK(smaps_parse_buf(s, strlen(s), &e, &n) == 0 && n == 1);
	if (n == 1) {
		CHECK_EQ_U64(e[0].rss, 0);
		CHECK_EQ_U64(e[0].locked, 0);
		CHECK(e[0].thp_eligible == -1);
		CHECK_STR(e[0].vm_flags, "");
	}
	free(e);
	/* keys that only start like ours are not ours */
	s = "00001000-00002000 rw-p 00000000 00:00 0 \nRssFile: 7 kB\nSwapPss: 5 kB\nLockedX: 3 kB\n"
	    "Rss: 1 kB\n";
	CHECK(smaps_parse_buf(s, strlen(s), &e, &n) == 0 && n == 1);
	if (n == 1) {
		CHECK_EQ_U64(e[0].rss, 1);
		CHECK_EQ_U64(e[0].swap, 0);
		CHECK_EQ_U64(e[0].locked, 0);
	}
	free(e);
	/* many entries: the array grows; field lines starting with hex letters
	 * ("Anonymous", "AnonHugePages", "FilePmdMapped") are not headers */
	size_t cap = 200 * 160, len = 0;
	char *big = xmalloc(cap);
	for (int i = 199; i >= 0; i--)
		len += snprintf(big + len, cap - len,
				"%012x-%012x rw-p 00000000 00:00 0 \nAnonymous: %d kB\n"
				"AnonHugePages: 0 kB\nFilePmdMapped: 0 kB\n",
				(i + 1) * 0x1000, (i + 2) * 0x1000, i);
	CHECK(smaps_parse_buf(big, len, &e, &n) == 0);
	CHECK_EQ_U64(n, 200);
	int bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += e[i].start != (i + 1) * 0x1000 || e[i].anon != i;
	CHECK(bad == 0);
	free(e);
	free(big);
	/* random bytes: no crash */
	unsigned seed = 7;
	int fails = 0;
	for (int i = 0; i < 2000; i++) {
		char tmp[700];
		size_t tl = rand_r(&seed) % sizeof(tmp);
		for (size_t k = 0; k < tl; k++)
			tmp[k] = "0123456789abcdef-: \nRsAnVmF"[rand_r(&seed) % 27];
		if (smaps_parse_buf(tmp, tl, &e, &n) || n > count_lines(tmp, tl))
			fails++;
		free(e);
	}
	CHECK(fails == 0);
}

/* The chunked reader of the live path: entries cut across its 256 KiB reads,
 * a header line longer than a read, and a file without a final newline all
 * parse as the whole buffer does. */
static void test_smaps_fd(void)
{
	size_t cap = 4u << 20, len = 0, nb = 0, nf = 0;
	char *txt = xmalloc(cap);
	struct smaps_entry *eb = NULL, *ef = NULL;

	for (unsigned i = 0; i < 6000; i++) {
		uint64_t a = 0x10000000ull + (uint64_t)i * 0x3000;
		len += (size_t)snprintf(txt + len, cap - len,
					"%08llx-%08llx rw-p 00000000 00:00 0 \nSize: 12 kB\nRss: %u kB\n"
					"Anonymous: %u kB\nAnonHugePages: 0 kB\nSwap: %u kB\nLocked: 0 kB\n"
					"THPeligible: %u\nVmFlags: rd wr mr mw me ac\n",
					(unsigned long long)a, (unsigned long long)(a + 0x3000), (i % 4) * 4, (i % 3) * 4, i % 2 * 4,
					i % 2);
		if (i == 3000) { /* a name of 300 KiB, then the entry's fields */
			len += (size_t)snprintf(txt + len, cap - len, "7f0000000000-7f0000001000 r--p 00000000 00:00 0 /");
			memset(txt + len, 'n', 300 * 1024);
			len += 300 * 1024;
			len += (size_t)snprintf(txt + len, cap - len, "\nRss: 4 kB\nVmFlags: rd\n");
		}
	}
	len--; /* no final newline */
	CHECK(smaps_parse_buf(txt, len, &eb, &nb) == 0);
	int fd = memfd_create("smaps", MFD_CLOEXEC);
	CHECK(fd >= 0 && write_full(fd, txt, len) == 0 && lseek(fd, 0, SEEK_SET) == 0);
	CHECK(smaps_parse_fd(fd, UINT64_MAX, &ef, &nf) == 0);
	/* stopped at an address: the entries below it, nothing after */
	struct smaps_entry *es = NULL;
	size_t ns = 0;
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK(smaps_parse_fd(fd, 0x10000000ull + 2000ull * 0x3000, &es, &ns) == 0);
	CHECK_EQ_U64(ns, 2000);
	CHECK(ns == 2000 && !memcmp(es, eb, ns * sizeof(*es)));
	free(es);
	close(fd);
	CHECK_EQ_U64(nb, 6001);
	CHECK_EQ_U64(nf, nb);
	CHECK(nf == nb && !memcmp(eb, ef, nb * sizeof(*eb)));
	const struct smaps_entry *l = sm_find(ef, nf, 0x7f0000000000ull);
	CHECK(l && l->rss == 4 && !strcmp(l->vm_flags, "rd"));
	const struct smaps_entry *last = nf ? &ef[nf - 2] : NULL; /* the long one sorts last */
	CHECK(last && last->start == 0x10000000ull + 5999ull * 0x3000 && !strcmp(last->vm_flags, "rd wr mr mw me ac") &&
	      last->thp_eligible == 1 && last->swap == 4);
	free(ef);
	/* an unreadable descriptor is an error, not an empty table */
	CHECK(smaps_parse_fd(-1, UINT64_MAX, &ef, &nf) == -EBADF && nf == 0 && !ef);
	free(eb);
	free(txt);
}

int main(void)
{
	kinfo_init();
	RUN(test_maps_basic);
	RUN(test_maps_odd);
	RUN(test_maps_crafted);
	RUN(test_maps_long_header);
	RUN(test_maps_line_small_buf);
	RUN(test_maps_edges);
	RUN(test_maps_malformed);
	RUN(test_maps_fuzz);
	RUN(test_maps_fd);
	RUN(test_smaps_basic);
	RUN(test_smaps_odd);
	RUN(test_smaps_edges);
	RUN(test_smaps_fd);
	return unit_done();
}
