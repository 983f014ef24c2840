/* hb.h - tr-infer's happens-before edges read back, for the analyses that
 * otherwise guess from timing which sibling a span waited for (tr-cp,
 * tr-temporal): the IE records tr-infer --reformat writes after each trace,
 * or a model file (tr-infer's TSV table). A span is matched to the model's
 * events by its nameID (the fields of --name, as tr-infer names it), and a
 * model file's edge holds in a trace only where the trace agrees (every
 * occurrence of its first event before every one of its second), the rule
 * --reformat applies. One reader of both, shared by the tools. */
#ifndef TR_INFER_HB_H
#define TR_INFER_HB_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace.h"

typedef struct hb_model hb_model;

/* fields: a --name list ("service,operation"), NULL for the default.
 * NULL when the list is not one. */
hb_model *hb_new(const char *fields);
void hb_free(hb_model *m);
/* Read a model file (tr-infer's TSV output, with or without -a's pass
 * column). Returns -1 after saying "file:line: what" (bad input). */
int hb_load(hb_model *m, const char *path);

/* Bind m to trace t: its spans' names, and its edges: the trace's IE
 * records when it has some, else the model file's. Returns 1 when edges
 * apply, 0 when none, -1 after saying which IE record names an event no
 * span of t has (bad input). */
int hb_bind(hb_model *m, const tr_trace *t);
/* The bound trace's contents moved to t (tr_trace_swap): read them there. */
void hb_moved(hb_model *m, const tr_trace *t);
/* After hb_bind gave 1: the model names span i (else the timing guess
 * stays for it). */
int hb_known(const hb_model *m, int32_t i);
/* After hb_bind gave 1: the model puts span a's end, or one of its log
 * events (NAME@X, tr-infer --events logs), before span b's start, and t
 * agrees. */
int hb_before(const hb_model *m, int32_t a, int32_t b);
/* After hb_bind gave 1: the edges name log events: a predecessor may end
 * after the span that waits for it starts. */
int hb_logs(const hb_model *m);

/* Over the whole run: traces bound with IE records, with the model file;
 * whether any span matched a model file's event; for the message when
 * none did, the closest span name met to the model's first event. */
typedef struct hb_counts {
	size_t traces_ie, traces_model;
	int model_matched;
	const char *model_first, *closest;
} hb_counts;
void hb_get_counts(const hb_model *m, hb_counts *c);
/* The options of the tools that read the edges: --model FILE and --name
 * FIELDS; hb_option takes one into *model or *name, 0 when opt is none. */
enum { HB_OPT_MODEL = 0x1100, HB_OPT_NAME };
#define HB_LONGOPTS {"model", required_argument, NULL, HB_OPT_MODEL}, \
	{"name", required_argument, NULL, HB_OPT_NAME}
#define HB_USAGE \
	"      --model FILE        tr-infer's model: siblings wait for their model\n" \
	"                          predecessors (IE records in the input are used too)\n" \
	"      --name FIELDS       the model's nameID fields (default service,operation)\n"
int hb_option(const char **model, const char **name, int opt, const char *arg);
/* The model file given, or NULL. */
const char *hb_model_path(const hb_model *m);

#endif
