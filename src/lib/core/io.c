/* io.c - byte input with transparent zstd and gzip, line reading, and safe output. */
#define _GNU_SOURCE	/* realpath; O_TMPFILE where the system has it */
#include "core/io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define IN_CHUNK (256 * 1024)

enum { PLAIN, ZSTD, ZSTD_FRAMED, GZIP };

struct tr_input {
	char *name;
	int fd;
	int zstd;		/* PLAIN, ZSTD, ZSTD_FRAMED or GZIP: how the bytes are decoded */
	ZSTD_DCtx *dctx;
	z_stream *gz;
	uint64_t frame_left;	/* ZSTD_FRAMED: bytes of the current frame not yet read */
	/* raw (compressed) bytes */
	char *raw;
	size_t raw_len, raw_off;
	int raw_eof;
	int zstd_done;	/* the last frame (or gzip member) ended cleanly */
	/* decoded bytes, for line reading */
	char *buf;
	size_t buf_len, buf_off, buf_cap;
	int eof;
	int line_cut;		/* the last line had no LF */
	uint64_t lineno, consumed;
	uint64_t left;		/* bytes of the file still to read (a range) */
	char err[320];		/* why the input ended early, "" when it did not */
	/* Checking a compressed input whole before it is used (tr_input_check) */
	size_t raw_cap;
	int keep_raw;		/* a pipe: raw keeps every byte from the start */
	int raw_dropped;	/* it kept too many: the start is gone */
	int checked;
	int pread_only;		/* the check's own reader: pread at pos, fd not ours */
	uint64_t pos;
	uint64_t decoded;	/* decoded bytes handed out */
	uint64_t good;		/* decoded bytes that passed the check (UINT64_MAX: all) */
	uint64_t member_good;	/* decoded bytes up to the last member that ended well */
	uint64_t member_start;	/* compressed offset where the next member starts */
	char bad[320];		/* why the rest did not, for err once good is reached */
};

/* A pipe's compressed bytes kept for its check at most: far more than
 * telling a file's format by its start reads. */
#define KEEP_RAW_MAX ((size_t)8 << 20)

/* Up to n bytes of the file into buf; 0 at its end. */
static size_t
read_raw(tr_input *in, char *buf, size_t n)
{
	ssize_t got;

	if (n > in->left)
		n = (size_t)in->left;	/* the end of a range */
	do
		got = !n ? 0 : in->pread_only ? pread(in->fd, buf, n, (off_t)in->pos) : read(in->fd, buf, n);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		tr_die(TR_EXIT_SYSTEM, "%s: read error: %s", in->name, strerror(errno));
	in->consumed += (size_t)got;
	in->pos += (size_t)got;
	in->left -= (size_t)got;
	if (got == 0)
		in->raw_eof = 1;
	return (size_t)got;
}

static size_t
raw_fill(tr_input *in)
{
	if (in->raw_off < in->raw_len || in->raw_eof)
		return in->raw_len - in->raw_off;
	if (in->keep_raw && in->raw_len + IN_CHUNK > KEEP_RAW_MAX) {
		in->keep_raw = 0;
		in->raw_dropped = 1;
	}
	if (in->keep_raw) {	/* append: the bytes before are kept for the check */
		GROW(in->raw, in->raw_cap, in->raw_len + IN_CHUNK);
		size_t n = read_raw(in, in->raw + in->raw_len, IN_CHUNK);

		in->raw_len += n;
		return n;
	}
	in->raw_len = read_raw(in, in->raw, IN_CHUNK);
	in->raw_off = 0;
	return in->raw_len;
}

tr_input *
tr_input_open(const char *path)
{
	tr_input *in = tr_input_try_open(path);

	if (!in)
		tr_die(TR_EXIT_INPUT, "%s: %s", path, strerror(errno));
	return in;
}

static void decoder_init(tr_input *in);

/* A zstd skippable frame's magic number (0x184D2A50 to 0x184D2A5F, little
 * endian): pzstd writes one before each frame, zstd then skips them. */
static int
is_skippable(const char *p)
{
	return ((unsigned char)p[0] & 0xf0) == 0x50 && memcmp(p + 1, "\x2a\x4d\x18", 3) == 0;
}
static void tr_input_close_decoder(tr_input *in);

tr_input *
tr_input_try_open(const char *path)
{
	int fd = 0;

	if (path && strcmp(path, "-") != 0 && (fd = open(path, O_RDONLY)) < 0)
		return NULL;
	return tr_input_fdopen(fd, fd ? path : "<stdin>");
}

tr_input *
tr_input_fdopen(int fd, const char *name)
{
	static const unsigned char magic[4] = {0x28, 0xb5, 0x2f, 0xfd};
	tr_input *in = xcalloc(1, sizeof *in);

	in->fd = fd;
	in->name = xstrdup(name);
	in->raw = xmalloc(IN_CHUNK);
	in->raw_cap = IN_CHUNK;
	in->left = UINT64_MAX;
	in->good = UINT64_MAX;
	/* Fill until the magic numbers can be told (a pipe may deliver less):
	 * eight bytes, for the framed zstd of the
	 * OpenTelemetry Collector's file exporter: a 4-byte big-endian length,
	 * then a frame. */
	while (in->raw_len < 8 && !in->raw_eof)
		in->raw_len += read_raw(in, in->raw + in->raw_len, IN_CHUNK - in->raw_len);
	if (in->raw_len >= 4 && (memcmp(in->raw, magic, 4) == 0 || is_skippable(in->raw)))
		in->zstd = ZSTD;
	else if (in->raw_len >= 8 && memcmp(in->raw + 4, magic, 4) == 0 && in->raw[0] == 0)
		in->zstd = ZSTD_FRAMED;	/* a first frame under 16 MiB: no text starts with NUL */
	else if (in->raw_len >= 2 && (unsigned char)in->raw[0] == 0x1f && (unsigned char)in->raw[1] == 0x8b)
		in->zstd = GZIP;
	in->zstd_done = in->zstd == ZSTD_FRAMED;	/* no frame is open before the first length */
	struct stat st;

	in->keep_raw = in->zstd && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode));
	decoder_init(in);
	in->lineno = 0;
	return in;
}

static void
decoder_init(tr_input *in)
{
	if (in->zstd == ZSTD || in->zstd == ZSTD_FRAMED) {
		in->dctx = ZSTD_createDCtx();
		if (!in->dctx)
			tr_die(TR_EXIT_SYSTEM, "out of memory");
	} else if (in->zstd == GZIP) {
		in->gz = xcalloc(1, sizeof *in->gz);
		/* 16 + MAX_WBITS: a gzip header and trailer around the deflate data. */
		if (inflateInit2(in->gz, 16 + MAX_WBITS) != Z_OK)
			tr_die(TR_EXIT_SYSTEM, "out of memory");
	}
}

int
tr_path_is_dir(const char *path)
{
	struct stat st;

	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *
tr_path_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

int64_t
tr_regular_file_size(const char *path)
{
	struct stat st;

	if (strcmp(path, "-") == 0 || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	return (int64_t)st.st_size;
}

tr_input *
tr_input_open_range(const char *path, uint64_t off, uint64_t len)
{
	tr_input *in = xcalloc(1, sizeof *in);

	if ((in->fd = open(path, O_RDONLY)) < 0 || lseek(in->fd, (off_t)off, SEEK_SET) < 0)
		tr_die(TR_EXIT_INPUT, "%s: %s", path, strerror(errno));
	in->name = xstrdup(path);
	in->raw = xmalloc(IN_CHUNK);
	in->raw_cap = IN_CHUNK;
	in->left = len;
	in->good = UINT64_MAX;
	return in;
}

const char *
tr_input_error(const tr_input *in)
{
	return in->err[0] ? in->err : NULL;
}

char *
tr_input_spool(const char *path)
{
	const char *dir = getenv("TMPDIR");
	size_t n = (dir && *dir ? strlen(dir) : 4) + 32;
	char *tmp = xmalloc(n);
	tr_input *in = tr_input_open(path);
	int fd;

	snprintf(tmp, n, "%s/tr-spool.XXXXXX", dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(tmp)) < 0)
		tr_die(TR_EXIT_SYSTEM, "%s: cannot create a temporary file: %s", tmp, strerror(errno));
	/* Where the open file can be opened again through /proc, it is removed
	 * at once: nothing is left however the run ends, SIGKILL included. */
	int unnamed = access("/proc/self/fd", X_OK) == 0 && unlink(tmp) == 0;

	if (!unnamed)
		tr_tmpfile_hold(tmp);
	while (raw_fill(in) > 0) {
		for (const char *p = in->raw + in->raw_off, *end = in->raw + in->raw_len; p < end;) {
			ssize_t w = write(fd, p, (size_t)(end - p));

			if (w < 0 && errno != EINTR)
				tr_die(TR_EXIT_SYSTEM, "%s: write error: %s", tmp, strerror(errno));
			p += w > 0 ? w : 0;
		}
		in->raw_off = in->raw_len;
	}
	tr_input_close(in);
	if (unnamed) {	/* kept open to the end of the run: each opening reads from the start */
		snprintf(tmp, n, "/proc/self/fd/%d", fd);
		return tmp;
	}
	close(fd);
	return tmp;
}

const char *
tr_input_stdin_again(void)
{
	static const char path[] = "/dev/stdin";
	struct stat in, again;
	off_t at = lseek(0, 0, SEEK_CUR);
	int fd;

	if (at != 0 || fstat(0, &in) < 0 || !S_ISREG(in.st_mode) || (fd = open(path, O_RDONLY)) < 0)
		return NULL;
	/* Where opening it duplicates fd 0 (not Linux), the two share one
	 * offset: moving fd 0 to the end moves the new one too. */
	if (fstat(fd, &again) == 0 && again.st_dev == in.st_dev && again.st_ino == in.st_ino &&
	    lseek(0, 0, SEEK_END) >= 0 && lseek(fd, 0, SEEK_CUR) == 0) {
		close(fd);
		return path;
	}
	lseek(0, at, SEEK_SET);
	close(fd);
	return NULL;
}

void
tr_inputs_twice(tr_inputs *in, char **files, int nfiles)
{
	static char *dash[] = {"-"};

	if (!nfiles) {
		files = dash;
		nfiles = 1;
	}
	in->n = nfiles;
	in->files = xcalloc((size_t)nfiles, sizeof *in->files);
	in->names = xcalloc((size_t)nfiles, sizeof *in->names);
	in->spooled = xcalloc((size_t)nfiles, sizeof *in->spooled);
	for (int i = 0; i < nfiles; i++) {
		int is_stdin = strcmp(files[i], "-") == 0;
		const char *again = is_stdin ? tr_input_stdin_again() : NULL;
		struct stat st;

		/* a missing, unreadable or directory input is read as it is: the
		 * reader tells it, in input order, as bad input */
		if (again)
			in->files[i] = (char *)again;
		else if (is_stdin || (stat(files[i], &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) &&
				      access(files[i], R_OK) == 0))
			in->files[i] = in->spooled[i] = tr_input_spool(files[i]);
		else
			in->files[i] = files[i];
		if (is_stdin)
			in->names[i] = "<stdin>";
		else if (in->spooled[i])
			in->names[i] = files[i];
	}
}

void
tr_inputs_free(tr_inputs *in)
{
	for (int i = 0; i < in->n; i++)
		if (in->spooled[i]) {
			unlink(in->spooled[i]);
			tr_tmpfile_release(in->spooled[i]);
			free(in->spooled[i]);
		}
	free(in->files);
	free(in->names);
	free(in->spooled);
	memset(in, 0, sizeof *in);
}

int
tr_input_report(const tr_input *in, const char *name)
{
	if (!in->err[0])
		return 0;
	tr_warn("%s: %s", name ? name : in->name, in->err);
	return -1;
}

const char *
tr_input_name(const tr_input *in)
{
	return in->name;
}

int
tr_input_is_zstd(const tr_input *in)
{
	return in->zstd == ZSTD || in->zstd == ZSTD_FRAMED;
}

const char *
tr_input_compression(const tr_input *in)
{
	static const char *const names[] = {NULL, "zstd", "zstd, length-prefixed frames", "gzip"};

	return names[in->zstd];
}

uint64_t
tr_input_lineno(const tr_input *in)
{
	return in->lineno;
}

uint64_t
tr_input_bytes(const tr_input *in)
{
	return in->consumed;
}

static size_t plain_read(tr_input *in, void *buf, size_t n);

/* Compressed bytes of the input used so far. */
static uint64_t
raw_used(const tr_input *in)
{
	return in->consumed - (in->raw_len - in->raw_off);
}

/* A member (gzip) or frame (zstd) ended and passed its checks, out bytes
 * into the current read: what was decoded so far is good. */
static void
member_end(tr_input *in, size_t out)
{
	in->member_good = in->decoded + out;
	in->member_start = raw_used(in);
}

/* ZSTD_FRAMED: read the length before the next frame. Returns 0 at a clean
 * end of input, -1 after setting err. */
static int
next_frame(tr_input *in)
{
	uint64_t len = 0;

	for (int i = 0; i < 4; i++) {
		if (!raw_fill(in)) {
			if (i)
				snprintf(in->err, sizeof in->err, "truncated frame length");
			return i ? -1 : 0;
		}
		len = len << 8 | (unsigned char)in->raw[in->raw_off++];
	}
	if (!in->zstd_done) {
		snprintf(in->err, sizeof in->err, "a zstd frame is longer than its length prefix");
		return -1;
	}
	in->frame_left = len;
	return 1;
}

static size_t
zstd_read(tr_input *in, void *buf, size_t n)
{
	ZSTD_outBuffer out = {buf, n, 0};

	while (out.pos == 0) {
		if (in->err[0])
			return 0;
		if (in->zstd == ZSTD_FRAMED && !in->frame_left) {
			int r = next_frame(in);

			if (r < 0)
				return 0;
			if (r == 0)
				return 0;	/* ended between frames: clean */
			continue;
		}
		if (!raw_fill(in)) {
			/* Not fatal here: what was decoded is whole, the caller decides. */
			if (!in->zstd_done || in->frame_left)
				snprintf(in->err, sizeof in->err, "truncated zstd stream");
			return 0;
		}
		size_t avail = in->raw_len - in->raw_off;

		if (in->zstd == ZSTD_FRAMED && avail > in->frame_left)
			avail = (size_t)in->frame_left;
		ZSTD_inBuffer zin = {in->raw + in->raw_off, avail, 0};
		size_t r = ZSTD_decompressStream(in->dctx, &out, &zin);

		if (ZSTD_isError(r)) {
			snprintf(in->err, sizeof in->err, "zstd: %s", ZSTD_getErrorName(r));
			return 0;
		}
		in->raw_off += zin.pos;
		if (in->zstd == ZSTD_FRAMED)
			in->frame_left -= zin.pos;
		in->zstd_done = r == 0;
		if (in->zstd_done)
			member_end(in, out.pos);
		if (in->zstd == ZSTD_FRAMED && !in->frame_left && !in->zstd_done) {
			snprintf(in->err, sizeof in->err, "a zstd frame is longer than its length prefix");
			return 0;
		}
	}
	return out.pos;
}

/* gzip, possibly several members one after the other (as cat makes them). */
static size_t
gzip_read(tr_input *in, void *buf, size_t n)
{
	z_stream *z = in->gz;

	z->next_out = (unsigned char *)buf;
	z->avail_out = (unsigned)(n > UINT32_MAX ? UINT32_MAX : n);
	while (z->next_out == (unsigned char *)buf) {
		if (in->err[0])
			return 0;
		if (!raw_fill(in)) {
			if (!in->zstd_done)
				snprintf(in->err, sizeof in->err, "truncated gzip stream");
			return 0;
		}
		if (in->zstd_done) {
			inflateReset(z);	/* another member follows */
			in->zstd_done = 0;
		}
		z->next_in = (unsigned char *)in->raw + in->raw_off;
		z->avail_in = (unsigned)(in->raw_len - in->raw_off);
		int r = inflate(z, Z_NO_FLUSH);

		in->raw_off = in->raw_len - z->avail_in;
		if (r == Z_STREAM_END) {
			in->zstd_done = 1;
			member_end(in, (size_t)((char *)z->next_out - (char *)buf));
		}
		else if (r != Z_OK && r != Z_BUF_ERROR) {
			if (z->msg)
				snprintf(in->err, sizeof in->err, "gzip: %s", z->msg);
			else
				snprintf(in->err, sizeof in->err, "gzip: corrupt data");
			return 0;
		}
	}
	return (size_t)((char *)z->next_out - (char *)buf);
}

static size_t
decoded_read(tr_input *in, void *buf, size_t n)
{
	size_t got;

	if (in->decoded >= in->good) {
		if (!in->err[0])
			memcpy(in->err, in->bad, sizeof in->err);
		return 0;
	}
	if (n > in->good - in->decoded)
		n = (size_t)(in->good - in->decoded);
	if (in->zstd == GZIP)
		got = gzip_read(in, buf, n);
	else
		got = in->zstd ? zstd_read(in, buf, n) : plain_read(in, buf, n);
	in->decoded += got;
	return got;
}

/* A pipe's bytes, those kept and the rest, into an unlinked temporary file
 * that the input reads on from where it was: -1 with err set when the
 * start is gone. */
static int
spool_pipe(tr_input *in)
{
	const char *dir = getenv("TMPDIR");
	char tmp[4096];
	int fd;

	if (in->raw_dropped) {
		snprintf(in->err, sizeof in->err, "too much read before its check");
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s/tr-check.XXXXXX", dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(tmp)) < 0)
		tr_die(TR_EXIT_SYSTEM, "%s: cannot create a temporary file: %s", tmp, strerror(errno));
	unlink(tmp);
	for (;;) {
		for (const char *p = in->raw, *end = in->raw + in->raw_len; p < end;) {
			ssize_t w = write(fd, p, (size_t)(end - p));

			if (w < 0 && errno != EINTR)
				tr_die(TR_EXIT_SYSTEM, "%s: write error: %s", tmp, strerror(errno));
			p += w > 0 ? w : 0;
		}
		if (in->raw_eof)
			break;
		in->raw_off = in->raw_len = 0;	/* the kept bytes are in the file now */
		raw_fill(in);
	}
	return fd;
}

int
tr_input_check(tr_input *in)
{
	char *scratch;
	off_t start = 0;
	int fd = in->fd;

	if (!in->zstd || in->checked)
		return 0;
	in->checked = 1;
	if (in->keep_raw || in->raw_dropped) {
		size_t off = in->raw_off, len = in->raw_len;

		in->keep_raw = 0;
		if ((fd = spool_pipe(in)) < 0)
			return -1;
		if (in->fd > 0)
			close(in->fd);
		/* raw held the file's first len bytes, as it does again */
		if (pread(fd, in->raw, len, 0) != (ssize_t)len || lseek(fd, (off_t)len, SEEK_SET) < 0)
			tr_die(TR_EXIT_SYSTEM, "%s: cannot read its copy back: %s", in->name, strerror(errno));
		in->fd = fd;
		in->raw_off = off;
		in->raw_len = len;
		in->consumed = len;
		in->raw_eof = 0;
	} else if ((start = lseek(fd, 0, SEEK_CUR)) < 0 ||
		   (start -= (off_t)in->consumed) < 0)
		return 0;	/* not seekable after all: nothing to check against */
	tr_input c = {.name = in->name, .fd = fd, .zstd = in->zstd, .pread_only = 1,
		      .pos = (uint64_t)start, .left = UINT64_MAX, .good = UINT64_MAX,
		      .zstd_done = in->zstd == ZSTD_FRAMED, .raw_cap = IN_CHUNK};

	c.raw = xmalloc(IN_CHUNK);
	scratch = xmalloc(IN_CHUNK);
	decoder_init(&c);
	while (decoded_read(&c, scratch, IN_CHUNK))
		;
	free(scratch);
	if (c.err[0]) {
		const char *part = in->zstd == GZIP ? "member" : "frame";

		in->good = c.member_good;
		snprintf(in->err, sizeof in->err, "%.160s: byte %llu, in the %s from byte %llu: nothing from "
			 "there on is read", c.err, (unsigned long long)raw_used(&c),
			 part, (unsigned long long)c.member_start);
		memcpy(in->bad, in->err, sizeof in->bad);	/* told once reading gets there */
		in->err[0] = '\0';
	}
	c.fd = -1;
	tr_input_close_decoder(&c);
	if (in->good == UINT64_MAX)
		return 0;
	/* Bytes peeked at past the good ones are dropped; the input's own
	 * decoder may have failed there too: this message is the one told. */
	if (in->decoded > in->good) {
		uint64_t over = in->decoded - in->good;

		in->buf_len -= over < in->buf_len - in->buf_off ? (size_t)over : in->buf_len - in->buf_off;
		in->decoded = in->good;
	}
	if (in->err[0] || in->decoded == in->good)
		memcpy(in->err, in->bad, sizeof in->err);
	return -1;
}

static size_t
plain_read(tr_input *in, void *buf, size_t n)
{
	/* nothing to decode, nothing left in raw: straight into buf, no copy */
	if (in->raw_off == in->raw_len && !in->raw_eof && n >= IN_CHUNK)
		return read_raw(in, buf, n);
	size_t have = raw_fill(in);

	if (have > n)
		have = n;
	memcpy(buf, in->raw + in->raw_off, have);
	in->raw_off += have;
	return have;
}

size_t
tr_input_read(tr_input *in, void *buf, size_t n)
{
	size_t have;

	/* Bytes already decoded for line reading come first. */
	if (in->buf_off < in->buf_len) {
		have = in->buf_len - in->buf_off;
		if (have > n)
			have = n;
		memcpy(buf, in->buf + in->buf_off, have);
		in->buf_off += have;
		return have;
	}
	return decoded_read(in, buf, n);
}

void
tr_input_slurp(tr_input *in, strbuf *b)
{
	size_t n;

	do {
		sb_reserve(b, IN_CHUNK);
		n = tr_input_read(in, b->s + b->len, IN_CHUNK);
		b->len += n;
		b->s[b->len] = '\0';
	} while (n);
}

/* Decode more behind the unread bytes of buf, moved to its front. */
static void
buf_more(tr_input *in)
{
	size_t avail = in->buf_len - in->buf_off;

	if (in->buf_off) {
		memmove(in->buf, in->buf + in->buf_off, avail);
		in->buf_len = avail;
		in->buf_off = 0;
	}
	if (in->buf_cap - in->buf_len < IN_CHUNK)
		GROW(in->buf, in->buf_cap, in->buf_len + IN_CHUNK + 1);
	size_t n = decoded_read(in, in->buf + in->buf_len, IN_CHUNK);
	if (n == 0)
		in->eof = 1;
	in->buf_len += n;
}

const char *
tr_input_peek(tr_input *in, size_t want, size_t *len)
{
	while (in->buf_len - in->buf_off < want && !in->eof)
		buf_more(in);
	*len = in->buf_len - in->buf_off;
	return in->buf ? in->buf + in->buf_off : "";
}

char *
tr_input_line(tr_input *in, size_t *len)
{
	char *nl;

	for (;;) {
		size_t avail = in->buf_len - in->buf_off;

		nl = avail ? memchr(in->buf + in->buf_off, '\n', avail) : NULL;
		if (nl || in->eof)
			break;
		buf_more(in);	/* the partial line to the front, more behind it */
	}
	/* A line the input broke off inside (a cut zstd frame) is not a line:
	 * read as one, a cut trace id would end its group early. */
	if (!nl && in->err[0])
		in->buf_off = in->buf_len;

	size_t avail = in->buf_len - in->buf_off;

	if (!avail && in->eof)
		return NULL;
	char *line = in->buf + in->buf_off;
	in->line_cut = !nl;
	if (nl) {
		*len = (size_t)(nl - line);
		*nl = '\0';
		in->buf_off += *len + 1;
	} else {
		/* Last line without LF: terminate it in place (buf always has a spare byte). */
		*len = avail;
		line[avail] = '\0';
		in->buf_off = in->buf_len;
	}
	in->lineno++;
	return line;
}

int
tr_input_line_cut(const tr_input *in)
{
	return in->line_cut;
}

/* What an input holds besides its name, the check's reader's too. */
static void
tr_input_close_decoder(tr_input *in)
{
	if (in->fd > 0)
		close(in->fd);
	ZSTD_freeDCtx(in->dctx);
	if (in->gz) {
		inflateEnd(in->gz);
		free(in->gz);
	}
	free(in->raw);
	free(in->buf);
}

void
tr_input_close(tr_input *in)
{
	if (!in)
		return;
	tr_input_close_decoder(in);
	free(in->name);
	free(in);
}

#define OUT_CHUNK (256 * 1024)

struct tr_output {
	int fd;
	int unnamed;		/* a file with no name yet (O_TMPFILE), named at the commit */
	char *path, *tmp;
	char *buf;
	size_t len;
	ZSTD_CCtx *cctx;
	char *zbuf;
	size_t zcap;
};

/* Temporary files not yet committed or removed (an output on its way, an
 * input spooled to be read twice): removed if the program dies first, so an
 * interrupted or failed run leaves nothing behind. */
enum { MAX_PENDING = 1040 };	/* tr-ingest --split: up to 1000 outputs at once */
static char *volatile pending[MAX_PENDING];	/* read by the signal handler */

static void
remove_pending(void)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i])
			unlink(pending[i]);
}

/* Interrupted (Ctrl-C, kill): remove the temporary files, then die of the
 * same signal so the caller sees what happened. unlink is async-signal-safe. */
static void
on_signal(int sig)
{
	remove_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

void
tr_tmpfile_hold(char *path)
{
	static int installed;

	if (!installed) {
		installed = 1;
		atexit(remove_pending);
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
	}
	for (int i = 0; i < MAX_PENDING; i++)
		if (!pending[i]) {
			pending[i] = path;
			return;
		}
	tr_die(TR_EXIT_SYSTEM, "%s: too many temporary files at once", path);
}

void
tr_tmpfile_release(const char *path)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i] == path)
			pending[i] = NULL;
}

static void
out_raw(tr_output *o, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(o->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int e = errno;

			tr_output_abort(o);
			if (e == EPIPE)	/* SIGPIPE was ignored by the caller: stop quietly */
				exit(TR_EXIT_SYSTEM);
			tr_die(TR_EXIT_SYSTEM, "%s: write error: %s", o->path ? o->path : "<stdout>", strerror(e));
		}
		p += w;
		n -= (size_t)w;
	}
}

static void
out_compress(tr_output *o, const char *p, size_t n, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = {p, n, 0};
	size_t r;

	do {
		ZSTD_outBuffer out = {o->zbuf, o->zcap, 0};

		r = ZSTD_compressStream2(o->cctx, &out, &in, mode);
		if (ZSTD_isError(r))
			tr_die(TR_EXIT_SYSTEM, "zstd: %s", ZSTD_getErrorName(r));
		out_raw(o, o->zbuf, out.pos);
	} while (mode == ZSTD_e_end ? r != 0 : in.pos < in.size);
}

#if defined(__linux__) && !defined(F_SETPIPE_SZ)
#define F_SETPIPE_SZ 1031	/* linux/fcntl.h: F_LINUX_SPECIFIC_BASE + 7 */
#endif

/* A pipe holds 64 KiB by default. A tool whose output comes in bursts
 * (tr-pag writes the windows a step of its input completes) then waits at
 * each burst for the next tool to read all of it, and the two take turns
 * instead of running side by side; 1 MiB, Linux's limit for users, lets
 * them overlap. Elsewhere, or when refused, the pipe stays as it is. */
static void
widen_pipe(int fd)
{
#ifdef __linux__
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
	(void)fd;
#endif
}

/* The file a path names: a symbolic link is followed (to its target, made
 * if the link dangles), so that renaming into place keeps the link. */
static char *
link_target(const char *path)
{
	char *real = realpath(path, NULL), link[4096];
	ssize_t n;

	if (real)
		return real;
	if ((n = readlink(path, link, sizeof link - 1)) < 0 || n == (ssize_t)sizeof link - 1)
		return xstrdup(path);
	link[n] = '\0';
	const char *slash = strrchr(path, '/');
	if (link[0] == '/' || !slash)
		return xstrdup(link);
	strbuf b = {0};
	sb_add(&b, path, (size_t)(slash - path + 1));
	sb_adds(&b, link);
	return b.s;
}

/* The temporary file takes the mode (and, when allowed, the owner) of the
 * file it replaces; a new file gets 0666 less the umask, not mkstemp's 0600. */
static void
keep_mode(int fd, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0) {
		/* the owner too where allowed (root); elsewhere the writer owns it */
		if (fchown(fd, st.st_uid, st.st_gid) < 0)
			errno = 0;
		fchmod(fd, st.st_mode & 07777);
		return;
	}
	mode_t um = umask(0);

	umask(um);
	fchmod(fd, 0666 & ~um);
}

/* A file with no name in the directory of path, to be named at the commit
 * (name_unnamed): a run killed before leaves nothing, not even with
 * SIGKILL. -1 where the system cannot (no O_TMPFILE, no /proc to name it
 * through, a file system without it): a named temporary file then. */
static int
open_unnamed(const char *path)
{
#if defined(__linux__) && defined(O_TMPFILE)
	const char *slash = strrchr(path, '/');
	char *dir = xstrdup(slash ? path : ".");

	if (slash)
		dir[slash == path ? 1 : slash - path] = '\0';
	int fd = access("/proc/self/fd", X_OK) == 0 ? open(dir, O_TMPFILE | O_WRONLY, 0600) : -1;

	free(dir);
	return fd;
#else
	(void)path;
	return -1;
#endif
}

/* Give the unnamed file a temporary name beside path, to be renamed over
 * it. */
static void
name_unnamed(tr_output *o)
{
	char proc[64];
	size_t n = strlen(o->path) + 32;

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
	o->tmp = xmalloc(n);
	for (unsigned i = 0;; i++) {
		snprintf(o->tmp, n, "%s.tmp%ld.%u", o->path, (long)getpid(), i);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0)
			break;
		if (errno != EEXIST || i > 1000)
			tr_die(TR_EXIT_SYSTEM, "%s: %s", o->path, strerror(errno));
	}
	o->unnamed = 0;
	tr_tmpfile_hold(o->tmp);
}

tr_output *
tr_output_open(const char *path, int zstd_level)
{
	tr_output *o = xcalloc(1, sizeof *o);

	o->buf = xmalloc(OUT_CHUNK);
	struct stat st;

	if (path && strcmp(path, "-") != 0 && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A device or FIFO is written in place: renaming over it would replace it. */
		o->fd = open(path, O_WRONLY | O_TRUNC);
		if (o->fd < 0)
			tr_die(TR_EXIT_SYSTEM, "%s: %s", path, strerror(errno));
		o->path = xstrdup(path);
	} else if (path && strcmp(path, "-") != 0) {
		o->path = link_target(path);
		if ((o->fd = open_unnamed(o->path)) >= 0)
			o->unnamed = 1;
		else {
			size_t n = strlen(o->path) + 16;
			o->tmp = xmalloc(n);
			snprintf(o->tmp, n, "%s.tmpXXXXXX", o->path);
			o->fd = mkstemp(o->tmp);
			if (o->fd < 0)
				tr_die(TR_EXIT_SYSTEM, "%s: %s", path, strerror(errno));
			tr_tmpfile_hold(o->tmp);
		}
		keep_mode(o->fd, o->path);
	} else {
		o->fd = 1;
		widen_pipe(o->fd);
	}
	if (zstd_level) {
		o->cctx = ZSTD_createCCtx();
		ZSTD_CCtx_setParameter(o->cctx, ZSTD_c_compressionLevel, zstd_level);
		o->zcap = ZSTD_CStreamOutSize();
		o->zbuf = xmalloc(o->zcap);
	}
	return o;
}

tr_output *
tr_output_fdopen(int fd, const char *name)
{
	tr_output *o = xcalloc(1, sizeof *o);

	o->buf = xmalloc(OUT_CHUNK);
	o->fd = fd;
	o->path = xstrdup(name);
	return o;
}

void
tr_output_flush(tr_output *o)
{
	if (!o->len)
		return;
	if (o->cctx)
		out_compress(o, o->buf, o->len, ZSTD_e_continue);
	else
		out_raw(o, o->buf, o->len);
	o->len = 0;
}

void
tr_output_write(tr_output *o, const void *p, size_t n)
{
	if (!n)
		return;
	if (o->len + n > OUT_CHUNK) {
		tr_output_flush(o);
		if (n > OUT_CHUNK) {
			if (o->cctx)
				out_compress(o, p, n, ZSTD_e_continue);
			else
				out_raw(o, p, n);
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void
tr_output_puts(tr_output *o, const char *s)
{
	tr_output_write(o, s, strlen(s));
}

void
tr_output_sb(tr_output *o, const strbuf *b)
{
	tr_output_write(o, b->s, b->len);
}

void
tr_output_spill(tr_output *o, strbuf *b)
{
	if (b->len < TR_SPILL_BYTES)
		return;
	tr_output_sb(o, b);
	sb_clear(b);
}

static void
output_free(tr_output *o)
{
	ZSTD_freeCCtx(o->cctx);
	free(o->zbuf);
	free(o->buf);
	free(o->path);
	free(o->tmp);
	free(o);
}

void
tr_output_close(tr_output *o)
{
	tr_output_flush(o);
	if (o->cctx)
		out_compress(o, "", 0, ZSTD_e_end);
	if (o->tmp || o->unnamed) {
		if (fsync(o->fd) < 0 && errno != EINVAL)
			tr_die(TR_EXIT_SYSTEM, "%s: %s", o->path, strerror(errno));
		if (o->unnamed)
			name_unnamed(o);
		if (close(o->fd) < 0 || rename(o->tmp, o->path) < 0) {
			int e = errno;

			tr_die(TR_EXIT_SYSTEM, "%s: %s", o->path, strerror(e));
		}
		tr_tmpfile_release(o->tmp);
	} else if (o->fd > 2 && close(o->fd) < 0)
		tr_die(TR_EXIT_SYSTEM, "%s: %s", o->path ? o->path : "output", strerror(errno));
	output_free(o);
}

void
tr_output_end(tr_output *o, int complete)
{
	if (complete || !(o->tmp || o->unnamed))
		tr_output_close(o);
	else
		tr_output_discard(o);
}

void
tr_output_abort(tr_output *o)
{
	if (o->unnamed) {
		close(o->fd);	/* the file goes with its last descriptor */
		o->unnamed = 0;
	}
	if (o->tmp) {
		close(o->fd);
		unlink(o->tmp);
		tr_tmpfile_release(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
}

void
tr_output_discard(tr_output *o)
{
	int tmp = o->tmp || o->unnamed;

	tr_output_abort(o);
	if (!tmp && o->fd > 2)
		close(o->fd);
	output_free(o);
}
