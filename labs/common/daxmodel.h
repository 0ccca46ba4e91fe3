/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daxmodel.h - one seeded, model-based random checker for dax files, in
 * the spirit of xfstests' fsx (written here): random operations on a file
 * of a dax mount and on a model of it held in memory, compared after every
 * step.  Each lab from 3 on runs it with the operations its code makes
 * work (DM_* below); lab 6 runs them all again on ext4.
 *
 * The file has two windows where operations land: NEAR, its first
 * DM_NEAR bytes, and FAR, as many from 4 GiB on (so that a write
 * can start 4 GiB and a few bytes past EOF: a length cut to 32 bits
 * shows).  The model
 * holds both; every other byte of the file is a hole and reads as zero.
 * Offsets come from a table more often than by chance: EOF-1, EOF, EOF+1,
 * a block boundary, the middle of a block, the page that holds EOF, the
 * next block past EOF, 4 GiB past EOF, and the far window, so that every
 * edge meets every operation.  The device is filled with 0xa5 before mkfs (setup_dax_fs()),
 * so a stale byte shows as 0xa5 and is named so.
 *
 * Reproducible: the seed is daxlab.seed= on the kernel command line (else
 * a fixed one), the number of operations daxlab.model_ops= (else the
 * lab's own); a failure prints both, the last operations, and the command
 * that replays it.  Include after labcheck.h and daxfs.h.
 */
#ifndef DAXMODEL_H
#define DAXMODEL_H

#include <linux/falloc.h>
#include <time.h>

/* The operations a lab's code makes work */
#define DM_RW		0x01	/* pread, pwrite (always on) */
#define DM_TRUNCATE	0x02	/* ftruncate up and down, inside blocks */
#define DM_SHARED	0x04	/* a shared mapping: loads, stores, msync */
#define DM_PRIVATE	0x08	/* a private mapping: loads, copying stores */
#define DM_FALLOCATE	0x10	/* fallocate: allocate, keep size, punch, zero range */
#define DM_REMOUNT	0x20	/* unmount and mount again */
#define DM_MAP_SYNC	0x40	/* the shared mappings use MAP_SYNC */

#define DM_NEAR		(128 * BLK)
#define DM_FAR_AT	(1LL << 32)
#define DM_FAR		(128 * BLK)
#define DM_LOG		24	/* operations shown on a failure */

struct dm_run {
	const char *name;	/* the check's name, for the replay line */
	int lab;		/* the lab whose make check-lab replays it */
	unsigned int ops;	/* DM_* */
	int count;		/* operations, unless daxlab.model_ops= says */
	const char *hint;	/* where to look */
};

struct dm_state {
	struct __test_metadata *md;
	const struct dm_run *run;
	const char *dev;
	int fd;
	unsigned char *near, *far;	/* the model */
	long long size;
	unsigned char *shared, *sfar;	/* shared mappings of NEAR and FAR */
	unsigned char *priv;		/* a private mapping of NEAR */
	unsigned char *copy[DM_NEAR / BLK];	/* its copied pages, or NULL */
	unsigned char *known[DM_NEAR / BLK];	/* which bytes of a copy are known */
	unsigned int seed, st;
	int op, count;
	unsigned int grown;	/* growths over stores past EOF so far */
	char log[DM_LOG][112];
	unsigned char buf[4 * DM_FAR] __attribute__((aligned(4096)));
	unsigned char got[4 * DM_FAR] __attribute__((aligned(4096)));
};

/* The value of a number on the kernel command line: "daxlab.model_ops=" */
static inline long labcheck_cmdline_long(const char *key, long dflt)
{
	char buf[4096], *p;

	if (labcheck_read_file("/proc/cmdline", buf, sizeof(buf)) < 0 ||
	    !(p = strstr(buf, key)))
		return dflt;
	return strtol(p + strlen(key), NULL, 0);
}

static inline unsigned int dm_rnd(struct dm_state *s)
{
	unsigned int x = s->st ?: 1;	/* xorshift32: the same everywhere */

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return s->st = x;
}

static inline void dm_note(struct dm_state *s, const char *fmt, ...)
{
	char *line = s->log[s->op % DM_LOG];
	int n = snprintf(line, sizeof(s->log[0]), "op %d: ", s->op);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(s->log[0]) - n, fmt, ap);
	va_end(ap);
}

/* The model's byte at file offset off (0 in the gap and past EOF) */
static inline unsigned char *dm_at(struct dm_state *s, long long off)
{
	if (off >= 0 && off < DM_NEAR)
		return s->near + off;
	if (off >= DM_FAR_AT && off < DM_FAR_AT + DM_FAR)
		return s->far + (off - DM_FAR_AT);
	return NULL;
}

static inline unsigned char dm_byte(struct dm_state *s, long long off)
{
	unsigned char *p = dm_at(s, off);

	return p && off < s->size ? *p : 0;
}

static inline long long dm_eof_page_end(struct dm_state *s)
{
	return (s->size + BLK - 1) / BLK * BLK;
}

/* A failure: the operations up to it, what was expected and seen, a replay. */
static inline void dm_fail(struct dm_state *s, const char *expected, const char *seen)
{
	struct __test_metadata *_metadata = s->md;

	TH_LOG("the last operations (file size %lld):", s->size);
	for (int i = s->op - DM_LOG + 1; i <= s->op; i++)
		if (i >= 0)
			TH_LOG("  %s", s->log[i % DM_LOG]);
	CHECK_THAT(0, EXPECTED("%s", expected), SEEN("%s", seen),
		   HINT("replay: make check-lab %d T=%s APPEND='daxlab.seed=%u daxlab.model_ops=%d' "
			"(seed %u, on %s); %s", s->run->lab, s->run->name, s->seed, s->count,
			s->seed, s->dev, s->run->hint));
}

/* Compare what was read at off against the model; 0 if it agrees. */
static inline int dm_compare(struct dm_state *s, const unsigned char *got, long long off,
			     long long len, const char *how)
{
	char e[200], w[200];

	for (long long i = 0; i < len; i++) {
		unsigned char want = dm_byte(s, off + i);

		if (got[i] == want)
			continue;
		snprintf(e, sizeof(e), "after op %d, %s of offset %lld to show %#x, as the model",
			 s->op, how, off + i, want);
		snprintf(w, sizeof(w), "%#x%s", got[i], got[i] == 0xa5 ?
			 " (0xa5: what the device held before mkfs: stale data)" :
			 got[i] == 0xee && !want ?
			 " (0xee: stored through the mapping past EOF, then the file grew over it)" :
			 want ? "" : " where the file holds a zero (a hole, a cut or a past-EOF store)");
		dm_fail(s, e, w);
		return -1;
	}
	return 0;
}

/* read() len bytes at off and compare them; 0 if they agree. */
static inline int dm_check_read(struct dm_state *s, long long off, long long len)
{
	long long want = off >= s->size ? 0 : (s->size - off < len ? s->size - off : len);
	ssize_t n;
	char e[160], w[96];

	if (off < 0 || len <= 0)
		return 0;
	n = pread(s->fd, s->got, len, off);
	if (n != want) {
		snprintf(e, sizeof(e), "after op %d, pread of %lld bytes at %lld to return %lld",
			 s->op, len, off, want);
		snprintf(w, sizeof(w), "%zd%s%s", n, n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
		dm_fail(s, e, w);
		return -1;
	}
	return dm_compare(s, s->got, off, n, "read()");
}

/* Copy len bytes from src to dst, catching SIGBUS: 0, or -1 on SIGBUS. */
static inline int dm_copy(volatile unsigned char *dst, const volatile unsigned char *src,
			  long long len)
{
	if (sigsetjmp(daxfs_bus_jmp, 1)) {
		daxfs_bus_armed = 0;
		return -1;
	}
	daxfs_bus_armed = 1;
	for (long long i = 0; i < len; i++)
		dst[i] = src[i];
	daxfs_bus_armed = 0;
	return 0;
}

/* An offset, from the table of edges more often than by chance. */
static inline long long dm_pos(struct dm_state *s)
{
	long long eof = s->size, pos;

	switch (dm_rnd(s) % 13) {
	case 12:	/* 4 GiB and a few bytes past EOF: its low 32 bits are small */
		pos = DM_FAR_AT + eof + dm_rnd(s) % 64;
		break;
	case 0: pos = eof - 1; break;
	case 1: pos = eof; break;
	case 2: pos = eof + 1; break;
	case 3: pos = eof / BLK * BLK + dm_rnd(s) % BLK; break;	/* the page of EOF */
	case 4: pos = (eof / BLK + 1) * BLK; break;		/* the next block */
	case 5: pos = eof + dm_rnd(s) % (3 * BLK); break;
	case 6: pos = (long long)(dm_rnd(s) % (DM_NEAR / BLK)) * BLK; break;
	case 7: pos = (long long)(dm_rnd(s) % (DM_NEAR / BLK)) * BLK + BLK / 2 +
		      (int)(dm_rnd(s) % 5) - 2; break;		/* mid-block */
	case 8: pos = DM_FAR_AT + (long long)(dm_rnd(s) % (DM_FAR / BLK)) * BLK; break;
	case 9: pos = DM_FAR_AT + dm_rnd(s) % DM_FAR; break;
	default: pos = dm_rnd(s) % DM_NEAR; break;
	}
	if (pos < 0)
		pos = 0;
	if (!dm_at(s, pos))	/* in the gap or past FAR: a window's byte instead */
		pos = pos < DM_FAR_AT ? dm_rnd(s) % DM_NEAR : DM_FAR_AT + dm_rnd(s) % DM_FAR;
	return pos;
}

/* A length from off that stays inside off's window. */
static inline long long dm_len(struct dm_state *s, long long off)
{
	long long end = off < DM_NEAR ? DM_NEAR : DM_FAR_AT + DM_FAR, len;

	switch (dm_rnd(s) % 8) {
	case 0: len = dm_rnd(s) % 8 + 1; break;
	case 1: len = BLK; break;
	case 2: len = BLK + 1 - 2 * (dm_rnd(s) % 2); break;
	case 3: len = dm_rnd(s) % (3 * BLK) + 1; break;
	case 4: len = dm_rnd(s) % (12 * BLK) + 1; break;
	default: len = dm_rnd(s) % 512 + 1; break;
	}
	return off + len > end ? end - off : len;
}

/* Set the model's size, zeroing what a cut removes (bytes past EOF are 0). */
static inline void dm_resize(struct dm_state *s, long long to)
{
	for (long long o = to; o < s->size; o++) {
		unsigned char *p = dm_at(s, o);

		if (p)
			*p = 0;
		else if (o < DM_FAR_AT)
			o = DM_FAR_AT - 1;	/* skip the gap */
		else
			break;
	}
	s->size = to;
}

static inline void dm_zero(struct dm_state *s, long long off, long long len)
{
	for (long long o = off; o < off + len && o < s->size; o++)
		if (dm_at(s, o))
			*dm_at(s, o) = 0;
}

/* Copied pages of the private mapping past the page of EOF are dropped by a cut */
static inline void dm_drop_copies_past_eof(struct dm_state *s)
{
	for (long long pg = dm_eof_page_end(s) / BLK; pg < DM_NEAR / BLK; pg++) {
		free(s->copy[pg]);
		free(s->known[pg]);
		s->copy[pg] = s->known[pg] = NULL;
	}
}

static inline int dm_map(struct dm_state *s)
{
	int flags = s->run->ops & DM_MAP_SYNC ? MAP_SHARED_VALIDATE | MAP_SYNC : MAP_SHARED;
	void *p;

	if (s->run->ops & DM_SHARED) {
		p = mmap(NULL, DM_NEAR, PROT_READ | PROT_WRITE, flags, s->fd, 0);
		s->shared = p == MAP_FAILED ? NULL : p;
		p = mmap(NULL, DM_FAR, PROT_READ | PROT_WRITE, flags, s->fd, DM_FAR_AT);
		s->sfar = p == MAP_FAILED ? NULL : p;
		if (!s->shared || !s->sfar)
			return -1;
	}
	if (s->run->ops & DM_PRIVATE) {
		p = mmap(NULL, DM_NEAR, PROT_READ | PROT_WRITE, MAP_PRIVATE, s->fd, 0);
		s->priv = p == MAP_FAILED ? NULL : p;
		if (!s->priv)
			return -1;
	}
	return 0;
}

static inline void dm_unmap(struct dm_state *s)
{
	if (s->shared)
		munmap(s->shared, DM_NEAR);
	if (s->sfar)
		munmap(s->sfar, DM_FAR);
	if (s->priv)
		munmap(s->priv, DM_NEAR);
	s->shared = s->sfar = s->priv = NULL;
	for (int pg = 0; pg < DM_NEAR / BLK; pg++) {
		free(s->copy[pg]);
		free(s->known[pg]);
		s->copy[pg] = s->known[pg] = NULL;
	}
}

/* The shared mapping's address of file offset off, or NULL */
static inline unsigned char *dm_shared_at(struct dm_state *s, long long off)
{
	if (off < DM_NEAR)
		return s->shared + off;
	return s->sfar + (off - DM_FAR_AT);
}

/*
 * A load or a store of [off, off + len) through the shared mapping:
 * bytes inside EOF are file data; past EOF, inside the page of EOF, a store
 * lands but never becomes data (the model keeps 0 there) and a load is not
 * checked; the first byte past that page raises SIGBUS.
 */
static inline int dm_shared_access(struct dm_state *s, long long off, long long len, int store)
{
	long long edge = dm_eof_page_end(s), in = off < edge ? (off + len < edge ? len : edge - off) : 0;
	unsigned char *p = dm_shared_at(s, off);
	char e[200];

	dm_note(s, "%s of %lld bytes at %lld through a shared%s mapping", store ? "store" : "load",
		len, off, s->run->ops & DM_MAP_SYNC ? " MAP_SYNC" : "");
	if (store) {
		pattern(s->buf, len, s->seed + s->op, off);
		if (dm_copy(p, s->buf, in)) {
			snprintf(e, sizeof(e), "a store to offset %lld..%lld, inside the page of EOF "
				 "(size %lld), to land", off, off + in - 1, s->size);
			dm_fail(s, e, "SIGBUS");
			return -1;
		}
		for (long long i = 0; i < in && off + i < s->size; i++)
			*dm_at(s, off + i) = s->buf[i];
	} else {
		if (dm_copy(s->got, p, in)) {
			snprintf(e, sizeof(e), "a load of offset %lld..%lld, inside the page of EOF "
				 "(size %lld), to succeed", off, off + in - 1, s->size);
			dm_fail(s, e, "SIGBUS");
			return -1;
		}
		if (dm_compare(s, s->got, off, off + in <= s->size ? in :
			       (s->size > off ? s->size - off : 0), "a load through the shared mapping"))
			return -1;
	}
	if (in < len && dm_copy(p + in, s->buf, 1) == 0) {
		snprintf(e, sizeof(e), "a %s at offset %lld, past the page that holds EOF "
			 "(size %lld), to raise SIGBUS", store ? "store" : "load", off + in, s->size);
		dm_fail(s, e, "it went through");
		return -1;
	}
	return 0;
}

/*
 * The private mapping: a page not yet copied shows the file; a store
 * copies the page (what the file held, and past EOF whatever the page
 * showed: not known) and lands in the copy only.
 */
static inline int dm_private_access(struct dm_state *s, long long off, long long len, int store)
{
	long long edge = dm_eof_page_end(s), in = off < edge ? (off + len < edge ? len : edge - off) : 0;
	char e[200];

	if (off >= DM_NEAR)
		return 0;
	dm_note(s, "%s of %lld bytes at %lld through a private mapping", store ? "store" : "load",
		len, off);
	if (store)
		pattern(s->buf, len, s->seed + s->op + 3, off);
	if (store ? dm_copy(s->priv + off, s->buf, in) : dm_copy(s->got, s->priv + off, in)) {
		snprintf(e, sizeof(e), "a private %s of offset %lld..%lld, inside the page of EOF "
			 "(size %lld), to succeed", store ? "store" : "load", off, off + in - 1,
			 s->size);
		dm_fail(s, e, "SIGBUS");
		return -1;
	}
	for (long long i = 0; i < in; i++) {
		long long o = off + i, pg = o / BLK;

		if (store && !s->copy[pg]) {
			s->copy[pg] = malloc(BLK);
			s->known[pg] = malloc(BLK);
			for (long long b = 0; b < BLK; b++) {
				s->copy[pg][b] = dm_byte(s, pg * BLK + b);
				s->known[pg][b] = pg * BLK + b < s->size;
			}
		}
		if (store) {
			s->copy[pg][o % BLK] = s->buf[i];
			s->known[pg][o % BLK] = 1;
			continue;
		}
		if (s->copy[pg] ? !s->known[pg][o % BLK] : o >= s->size)
			continue;
		if (s->got[i] != (s->copy[pg] ? s->copy[pg][o % BLK] : dm_byte(s, o))) {
			unsigned char want = s->copy[pg] ? s->copy[pg][o % BLK] : dm_byte(s, o);

			snprintf(e, sizeof(e), "after op %d, a private load of offset %lld to show %#x "
				 "(%s)", s->op, o, want, s->copy[pg] ? "the private copy" : "the file");
			dm_fail(s, e, s->got[i] == 0xa5 ? "0xa5 (stale device data)" : "another byte");
			return -1;
		}
	}
	if (in < len && dm_copy(s->priv + off + in, s->buf, 1) == 0) {
		snprintf(e, sizeof(e), "a private access at offset %lld, past the page that holds "
			 "EOF (size %lld), to raise SIGBUS", off + in, s->size);
		dm_fail(s, e, "it went through");
		return -1;
	}
	return 0;
}

static inline int dm_fallocate(struct dm_state *s, long long off, long long len)
{
	static const struct { int mode; const char *name; } modes[] = {
		{ 0, "fallocate" },
		{ FALLOC_FL_KEEP_SIZE, "fallocate KEEP_SIZE" },
		{ FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, "punch hole" },
		{ FALLOC_FL_ZERO_RANGE, "zero range" },
		{ FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, "zero range KEEP_SIZE" },
	};
	int m = dm_rnd(s) % 5;
	char e[160];

	dm_note(s, "%s of %lld bytes at %lld", modes[m].name, len, off);
	if (fallocate(s->fd, modes[m].mode, off, len)) {
		snprintf(e, sizeof(e), "%s of %lld bytes at %lld to succeed", modes[m].name, len, off);
		dm_fail(s, e, strerror(errno));
		return -1;
	}
	if (modes[m].mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		dm_zero(s, off, len);
	if (!(modes[m].mode & FALLOC_FL_KEEP_SIZE) && off + len > s->size)
		s->size = off + len;
	return 0;
}

/*
 * A pwrite whose buffer ends in a page that cannot be read: it stops
 * short at the fault (or fails with EFAULT if nothing was copied).  What
 * it wrote is data; the blocks it allocated and did not fill read as
 * zeros, and nothing is left past the new EOF (e2fsck at the end).
 */
static inline int dm_pwrite_efault(struct dm_state *s, long long off, long long len)
{
	static unsigned char *area;
	long long good = 1 + dm_rnd(s) % (len - 1);	/* readable bytes */
	unsigned char *src;
	ssize_t n;
	char e[160], w[64];

	if (!area) {	/* 16 readable pages, then one that is not */
		area = mmap(NULL, 17 * BLK, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED || mprotect(area + 16 * BLK, BLK, PROT_NONE)) {
			dm_fail(s, "an anonymous mapping with a PROT_NONE page", strerror(errno));
			return -1;
		}
	}
	if (good > 16 * BLK)
		good = 16 * BLK;
	src = area + 16 * BLK - good;
	pattern(src, good, s->seed + s->op, off);
	dm_note(s, "pwrite of %lld bytes at %lld from a buffer readable for %lld", len, off, good);
	n = pwrite(s->fd, src, len, off);
	if (n < 0 ? errno != EFAULT : n > good || n == 0) {
		snprintf(e, sizeof(e), "a pwrite of %lld bytes whose buffer faults after %lld to "
			 "write at most %lld bytes, or fail with EFAULT", len, good, good);
		snprintf(w, sizeof(w), "%zd%s%s", n, n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
		dm_fail(s, e, w);
		return -1;
	}
	if (n > 0) {
		memcpy(dm_at(s, off), src, n);
		if (off + n > s->size)
			s->size = off + n;
	}
	return 0;
}

/*
 * Bytes stored past EOF through the shared mapping, in the page that holds
 * EOF, then a growth of the file over them (a pwrite past EOF, ftruncate,
 * or fallocate where the lab has it) to a size from the table: one byte,
 * the next block boundary, a block, a few blocks, 4 GiB and a few bytes.
 * Those bytes must read as zeros once inside the file: the check after
 * every step reads the block that held EOF.
 */
static inline int dm_junk_then_grow(struct dm_state *s)
{
	static const unsigned char junk[BLK] = { [0 ... BLK - 1] = 0xee };
	long long eof = s->size, edge = dm_eof_page_end(s), to, len;
	unsigned int ways = s->run->ops & DM_FALLOCATE ? 4 : 2;
	/* every growth from every position in turn, not by chance */
	unsigned int how = s->grown % ways, where = s->grown / ways % 5;
	char e[160];

	s->grown++;

	if (dm_at(s, eof) && edge > eof && dm_copy(dm_shared_at(s, eof), junk, edge - eof)) {
		snprintf(e, sizeof(e), "a store to offset %lld..%lld, past EOF inside its page, "
			 "to land", eof, edge - 1);
		dm_fail(s, e, "SIGBUS");
		return -1;
	}
	switch (where) {
	case 0: to = eof + 1; break;
	case 1: to = (eof / BLK + 1) * BLK; break;
	case 2: to = eof + BLK; break;
	case 3: to = eof + BLK + dm_rnd(s) % (3 * BLK); break;
	default: to = DM_FAR_AT + eof + dm_rnd(s) % 64; break;
	}
	if (!dm_at(s, to))
		to = eof + 1;
	if (!dm_at(s, to)) {	/* EOF in the gap: no window to grow into */
		dm_note(s, "(EOF at %lld, in the gap: no growth)", eof);
		return 0;
	}
	len = dm_rnd(s) % 100 + 1;
	if (!dm_at(s, to + len - 1))
		len = 1;
	if (how == 0) {
		dm_note(s, "0xee stored past EOF, then a pwrite of %lld bytes at %lld", len, to);
		pattern(s->buf, len, s->seed + s->op, to);
		if (pwrite_all(s->fd, s->buf, len, to)) {
			dm_fail(s, "pwrite to succeed", strerror(errno));
			return -1;
		}
		memcpy(dm_at(s, to), s->buf, len);
		s->size = to + len;
	} else if (how == 1) {
		dm_note(s, "0xee stored past EOF, then ftruncate from %lld to %lld", eof, to);
		if (ftruncate(s->fd, to)) {
			dm_fail(s, "ftruncate to succeed", strerror(errno));
			return -1;
		}
		s->size = to;
	} else {
		int mode = how == 2 ? 0 : FALLOC_FL_ZERO_RANGE;

		dm_note(s, "0xee stored past EOF, then %s of %lld bytes at %lld",
			mode ? "zero range" : "fallocate", len, to);
		if (fallocate(s->fd, mode, to, len)) {
			dm_fail(s, "fallocate growing the file to succeed", strerror(errno));
			return -1;
		}
		dm_zero(s, to, len);
		s->size = to + len;
	}
	return 0;
}

static inline int dm_remount(struct dm_state *s)
{
	char e[96];

	dm_note(s, "unmount and mount again");
	dm_unmap(s);
	close(s->fd);
	s->fd = -1;
	if (umount(MNT) || mount_fs(s->dev, "dax")) {
		snprintf(e, sizeof(e), "to unmount and mount %s again", s->dev);
		dm_fail(s, e, strerror(errno));
		return -1;
	}
	s->fd = open(MNT "/model", O_RDWR);
	if (s->fd < 0 || dm_map(s)) {
		dm_fail(s, "to open and map " MNT "/model again after the mount", strerror(errno));
		return -1;
	}
	return 0;
}

/* The whole model: st_size, both windows by read(), NEAR through the mapping */
static inline int dm_check_all(struct dm_state *s)
{
	struct stat st;
	char e[96], w[64];

	if (fstat(s->fd, &st) || st.st_size != s->size) {
		snprintf(e, sizeof(e), "after op %d, st_size %lld", s->op, s->size);
		snprintf(w, sizeof(w), "%lld", (long long)st.st_size);
		dm_fail(s, e, w);
		return -1;
	}
	if (dm_check_read(s, 0, DM_NEAR) || dm_check_read(s, DM_FAR_AT, DM_FAR))
		return -1;
	if (s->size > DM_NEAR + BLK && dm_check_read(s, DM_NEAR + dm_rnd(s) % (DM_FAR_AT - DM_NEAR - BLK), BLK))
		return -1;	/* somewhere in the gap: a hole */
	if (s->shared) {
		long long in = s->size < DM_NEAR ? s->size : DM_NEAR;

		if (dm_copy(s->got, s->shared, in)) {
			dm_fail(s, "a load of the shared mapping inside EOF to succeed", "SIGBUS");
			return -1;
		}
		return dm_compare(s, s->got, 0, in, "a load through the shared mapping");
	}
	return 0;
}

/* Run the model on dev, on a fresh filesystem; fails the check on a mismatch. */
static inline void daxmodel_run(struct __test_metadata *_metadata, const char *dev,
				const struct dm_run *run)
{
	static struct dm_state s;
	unsigned int ops = run->ops | DM_RW;
	struct timespec t0, t1;

	memset(&s, 0, sizeof(s));
	s.md = _metadata;
	s.run = run;
	s.dev = dev;
	s.seed = s.st = labcheck_seed(2014);
	s.count = labcheck_cmdline_long("daxlab.model_ops=", run->count);
	s.near = calloc(1, DM_NEAR);
	s.far = calloc(1, DM_FAR);
	ASSERT_TRUE(s.near && s.far);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	setup_dax_fs(_metadata, dev);
	s.fd = open(MNT "/model", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, s.fd);
	REQUIRE_THAT(dm_map(&s) == 0, EXPECTED("mmap of a dax file (%s) to succeed",
					       ops & DM_MAP_SYNC ? "MAP_SYNC" : "shared and private"),
		     SEEN("%s", strerror(errno)), HINT("%s", run->hint));

	for (s.op = 0; s.op < s.count; s.op++) {
		long long off = dm_pos(&s), len = dm_len(&s, off), to, was = s.size;
		unsigned int kind = dm_rnd(&s) % 16;
		int err = 0;

		if (kind == 0 && dm_rnd(&s) % 4 == 0 && len > 1) {
			err = dm_pwrite_efault(&s, off, len);
		} else if (kind < 3) {		/* pwrite */
			dm_note(&s, "pwrite of %lld bytes at %lld", len, off);
			pattern(s.buf, len, s.seed + s.op, off);
			if (pwrite_all(s.fd, s.buf, len, off)) {
				dm_fail(&s, "pwrite to succeed", strerror(errno));
				break;
			}
			memcpy(dm_at(&s, off), s.buf, len);
			if (off + len > s.size)
				s.size = off + len;
		} else if (kind < 5) {		/* pread */
			dm_note(&s, "pread of %lld bytes at %lld", len, off);
			err = dm_check_read(&s, off, len);
		} else if (kind < 7 && (ops & DM_TRUNCATE)) {
			to = dm_rnd(&s) % 4 ? off : off + len;
			dm_note(&s, "ftruncate from %lld to %lld", s.size, to);
			if (ftruncate(s.fd, to)) {
				dm_fail(&s, "ftruncate to succeed", strerror(errno));
				break;
			}
			dm_resize(&s, to);
			dm_drop_copies_past_eof(&s);
		} else if (kind == 7 && (ops & DM_SHARED)) {
			err = dm_junk_then_grow(&s);
		} else if (kind < 10 && (ops & DM_SHARED)) {
			err = dm_shared_access(&s, off, len, kind != 9);
		} else if (kind == 10 && (ops & DM_SHARED)) {
			long long a = off / BLK * BLK;

			dm_note(&s, "msync(MS_SYNC) of %lld bytes at %lld", len, a);
			if (msync(dm_shared_at(&s, a), off + len - a, MS_SYNC)) {
				dm_fail(&s, "msync(MS_SYNC) of the shared mapping to succeed",
					strerror(errno));
				break;
			}
		} else if (kind < 13 && (ops & DM_PRIVATE)) {
			err = dm_private_access(&s, off, len, kind == 11);
		} else if (kind < 15 && (ops & DM_FALLOCATE)) {
			err = dm_fallocate(&s, off, len);
		} else if (kind == 15 && (ops & DM_REMOUNT) && dm_rnd(&s) % 8 == 0) {
			err = dm_remount(&s) || dm_check_all(&s);
		} else {
			dm_note(&s, "pread of %lld bytes at %lld", len, off);
			err = dm_check_read(&s, off, len);
		}
		if (err)
			break;
		/*
		 * After every step: around the step, the block of EOF, and the
		 * block that held EOF before the step (what a growth zeroes).
		 */
		if (dm_check_read(&s, off > BLK ? off - BLK : 0, len + 2 * BLK) ||
		    dm_check_read(&s, s.size ? (s.size - 1) / BLK * BLK : 0, BLK + 1) ||
		    (was != s.size && dm_check_read(&s, was / BLK * BLK, BLK)) ||
		    (s.op % 64 == 63 && dm_check_all(&s)))
			break;
	}
	if (_metadata->passed && !dm_check_all(&s)) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ksft_print_msg("%s on %s: %d operations agree with the model (seed %u, %.1f s)\n",
			       run->name, dev, s.count, s.seed,
			       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	dm_unmap(&s);
	if (s.fd >= 0)
		close(s.fd);
	free(s.near);
	free(s.far);
	unmount_and_fsck(_metadata, dev);
}

#endif /* DAXMODEL_H */
