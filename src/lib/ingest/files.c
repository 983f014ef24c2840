/* files.c - the inputs of a run: directories expanded to the trace
 * files under them, and many small files converted on worker threads.
 *
 * CRISP's users and the Jaeger API's keep one trace per file, thousands of
 * them; one trace per file gives the element pool (parallel.c) nothing
 * to share out. So with -j N small files are converted whole, each by a
 * worker with a context of its own that writes into the file's buffers; the
 * main thread writes the buffers (output and messages) strictly in input
 * order and stops where one thread would have stopped, so the bytes are those
 * of -j 1. A large file still goes through the element pool, on its own. */
#include "ingest/crew.h"
#include "ingest/drive.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Files at most this large are converted whole by one worker. */
#define SMALL_FILE (8u << 20)

static const char *const trace_suffixes[] = {
	".json", ".jsonl", ".ndjson", ".json.gz", ".jsonl.gz", ".ndjson.gz",
	".json.zst", ".jsonl.zst", ".ndjson.zst", ".json.zstd", ".jsonl.zstd",
};

static int
is_trace_file(const char *name)
{
	size_t n = strlen(name);

	if (name[0] == '.')
		return 0;	/* hidden files and editors' leftovers */
	for (size_t i = 0; i < sizeof trace_suffixes / sizeof *trace_suffixes; i++) {
		size_t k = strlen(trace_suffixes[i]);

		if (n > k && strcmp(name + n - k, trace_suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
push(ingest_list *l, char *path)
{
	GROW(l->paths, l->cap, l->n + 1);
	l->paths[l->n++] = path;
}

static char *
join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = xmalloc(a + b + 2);

	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + 1, name, b + 1);
	if (a && dir[a - 1] == '/')
		memmove(p + a, p + a + 1, b + 1);
	return p;
}

/* What a file that is not a regular one is, for the note that skips it. */
static const char *
file_kind(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "a special file";
}

/* The trace files under top, subdirectories included, sorted by path as
 * `find top | sort` lists them (LC_ALL=C). A stack of directories still to
 * read stands for recursion. As find does, a symbolic link to a directory
 * is not followed (a link back up would loop); one to a file is read.
 * Only regular files are read: a FIFO or a device among them could block
 * the run or never end, so it is skipped with a note. */
static void
expand_dir(ingest_list *l, const char *top)
{
	ingest_list stack = {0};
	size_t first = l->n;

	push(&stack, xstrdup(top));
	while (stack.n) {
		char *dir = stack.paths[--stack.n];
		DIR *d = opendir(dir);
		struct dirent *e;
		struct stat st;

		if (!d)
			tr_die(TR_EXIT_INPUT, "%s: %s", dir, strerror(errno));
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;	/* ., .., hidden files and editors' leftovers */
			char *p = join(dir, e->d_name);

			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				push(&stack, p);
			else if (is_trace_file(e->d_name) && (stat(p, &st) != 0 || S_ISREG(st.st_mode)))
				push(l, p);	/* a dangling link too: opening it says why */
			else {
				if (is_trace_file(e->d_name) && !S_ISDIR(st.st_mode))
					tr_warn("%s: %s, not a regular file: skipped", p, file_kind(st.st_mode));
				free(p);
			}
		}
		closedir(d);
		free(dir);
	}
	if (l->n > first)
		qsort(l->paths + first, l->n - first, sizeof *l->paths, cmp_str);
	free(stack.paths);
}

int
ingest_list_add(ingest_list *l, const char *path)
{
	struct stat st;
	size_t before = l->n;

	if (strcmp(path, "-") == 0 || stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		push(l, xstrdup(path));	/* opening it says what is wrong */
		return 0;
	}
	expand_dir(l, path);
	if (l->n == before) {
		tr_warn("%s: no trace files under it (names ending in .json, .jsonl or .ndjson, "
			"optionally .gz or .zst)", path);
		return -1;
	}
	return 0;
}

void
ingest_list_free(ingest_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	memset(l, 0, sizeof *l);
}

/* ---- small files on worker threads ---- */

typedef struct file_job {
	const char *path;
	strbuf out, msg;
	ig_marks marks;		/* where each trace ends in out, and msg then */
	int status;
	ingest_stats delta;
	uint64_t bytes;
} file_job;

typedef struct file_pool {
	ingest *main;
	ig_file_fn *one_file;
	ig_crew crew;
	file_job *jobs;
} file_pool;

static void
convert_file(ingest *w, void *pool, size_t i)
{
	file_job *j = &((file_pool *)pool)->jobs[i];
	ingest_stats before = w->stats;
	uint64_t bytes0 = w->bytes_before;

	w->sink = &j->out;
	w->sink_msg = &j->msg;
	w->marks = &j->marks;
	j->marks.n = 0;
	tr_warn_to(&j->msg);
	j->status = ((file_pool *)pool)->one_file(w, j->path);
	tr_warn_to(NULL);
	ig_stats_diff(&j->delta, &w->stats, &before);
	j->bytes = w->bytes_before - bytes0;
}

static file_pool *
file_pool_new(ingest *g, int threads, ig_file_fn *one_file)
{
	file_pool *p = xcalloc(1, sizeof *p);
	size_t n = (size_t)threads * 4;

	p->main = g;
	p->one_file = one_file;
	p->jobs = xcalloc(n, sizeof *p->jobs);
	ig_crew_start(&p->crew, g, threads, n, convert_file, p);
	return p;
}

/* Wait for the oldest job, then write its output and messages, or drop
 * them once a failure has stopped the run (without -k). */
static void
drain_one(file_pool *p, int *stopped, int *failed)
{
	ingest *g = p->main;
	file_job *j = &p->jobs[ig_crew_oldest(&p->crew)];

	if (!*stopped) {
		/* Messages and traces interleaved as one thread writes them, so
		 * that what writing a trace says comes in its place. */
		size_t out = 0, msg = 0;

		ig_stats_add(&g->stats, &j->delta);
		for (size_t i = 0; i < j->marks.n; i++) {
			if (j->marks.v[i].msg > msg)
				fwrite(j->msg.s + msg, 1, j->marks.v[i].msg - msg, stderr);
			ig_emit(g, j->path, j->out.s + out, j->marks.v[i].out - out);
			out = j->marks.v[i].out;
			msg = j->marks.v[i].msg;
		}
		if (j->msg.len > msg)
			fwrite(j->msg.s + msg, 1, j->msg.len - msg, stderr);
		g->bytes_before += j->bytes;
		tr_progress_tick(&g->progress, g->bytes_before, g->stats.traces);
		if (j->status < 0) {
			*failed = 1;
			if (!g->opts.keep_going)
				*stopped = 1;
		}
	}
	sb_clear(&j->out);
	sb_clear(&j->msg);
	ig_crew_pop(&p->crew);
}

static void
file_pool_drain(file_pool *p, int *stopped, int *failed)
{
	while (p->crew.head != p->crew.tail)
		drain_one(p, stopped, failed);
}

static void
file_pool_submit(file_pool *p, const char *path)
{
	p->jobs[p->crew.tail % p->crew.njobs].path = path;
	ig_crew_put(&p->crew, 1);
}

static void
file_pool_free(file_pool *p)
{
	ig_crew_stop(&p->crew);
	for (size_t i = 0; i < p->crew.njobs; i++) {
		sb_free(&p->jobs[i].out);
		sb_free(&p->jobs[i].msg);
		free(p->jobs[i].marks.v);
	}
	free(p->jobs);
	free(p);
}

static int
is_small_file(const char *path)
{
	int64_t size = tr_regular_file_size(path);

	return size >= 0 && size <= (int64_t)SMALL_FILE;
}

int
ig_files_run(ingest *g, const ingest_list *l, ig_file_fn *one_file)
{
	file_pool *p = NULL;
	int failed = 0, stopped = 0;

	tr_progress_set_inputs(&g->progress, l->paths, l->n);
	if (g->opts.threads > 1 && l->n > 1)
		p = file_pool_new(g, g->opts.threads, one_file);
	for (size_t i = 0; i < l->n && !stopped; i++) {
		if (p && is_small_file(l->paths[i])) {
			if (p->crew.tail - p->crew.head == p->crew.njobs)
				drain_one(p, &stopped, &failed);
			if (!stopped)
				file_pool_submit(p, l->paths[i]);
			continue;
		}
		if (p)
			file_pool_drain(p, &stopped, &failed);
		if (stopped)
			break;
		if (one_file(g, l->paths[i]) < 0) {
			failed = 1;
			if (!g->opts.keep_going)
				stopped = 1;
		}
	}
	if (p) {
		file_pool_drain(p, &stopped, &failed);
		file_pool_free(p);
	}
	return failed ? -1 : 0;
}
