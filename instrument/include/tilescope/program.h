/*
 * Control programs: Sequence, Execute, Repeat, RepeatWhileTrue/False, If,
 * Switch, Copy (tensor, stream, remote buffer), Call of function programs,
 * Sync, WriteUndef and PrintTensor. Programs belong to the graph they are
 * made in and may be used in several places (a tree that shares nodes).
 * Every constructor returns NULL on error (recorded in the graph) and
 * returns NULL quietly when given a NULL child.
 */
#pragma once

#include "vertex.h"

TSB_BEGIN_DECLS

typedef struct tsi_program tsi_program;
typedef struct tsi_function tsi_function;

typedef enum tsi_program_kind {
	TSI_PROG_SEQUENCE = 0,
	TSI_PROG_EXECUTE,
	TSI_PROG_REPEAT,
	TSI_PROG_REPEAT_WHILE_TRUE,
	TSI_PROG_REPEAT_WHILE_FALSE,
	TSI_PROG_IF,
	TSI_PROG_SWITCH,
	TSI_PROG_COPY,             /* tensor to tensor */
	TSI_PROG_STREAM_TO_TENSOR, /* host-to-device stream copy */
	TSI_PROG_TENSOR_TO_STREAM, /* device-to-host stream copy */
	TSI_PROG_REMOTE_TO_TENSOR,
	TSI_PROG_TENSOR_TO_REMOTE,
	TSI_PROG_CALL,
	TSI_PROG_SYNC,
	TSI_PROG_WRITE_UNDEF,
	TSI_PROG_PRINT_TENSOR,
	TSI_PROG_COLLECTIVE,       /* a cross-replica collective (tilescope/gcl.h) */
	TSI_PROG_KIND_COUNT
} tsi_program_kind;

/* An empty sequence named `name` (may be NULL); add steps with
 * tsi_sequence_add(). */
TSI_API tsi_program *tsi_prog_sequence(tsi_graph *graph, const char *name);
/* Appends `step` to a sequence. Returns TSI_OK or a negative code. */
TSI_API int tsi_sequence_add(tsi_program *seq, tsi_program *step);
/* Runs every vertex of `cs` (one BSP superstep). */
TSI_API tsi_program *tsi_prog_execute(tsi_graph *graph, tsi_compute_set *cs);
/* Runs `body` `count` times. */
TSI_API tsi_program *tsi_prog_repeat(tsi_graph *graph, uint64_t count, tsi_program *body);
/* Runs `cond`, then while the scalar `predicate` is true (nonzero) runs
 * `body` and `cond` again. */
TSI_API tsi_program *tsi_prog_repeat_while_true(tsi_graph *graph, tsi_program *cond,
                                                const tsi_tensor *predicate, tsi_program *body);
/* Same, looping while `predicate` is false (zero). */
TSI_API tsi_program *tsi_prog_repeat_while_false(tsi_graph *graph, tsi_program *cond,
                                                 const tsi_tensor *predicate, tsi_program *body);
/* Runs `then_body` when the scalar `predicate` is nonzero, else
 * `else_body` (may be NULL: nothing). */
TSI_API tsi_program *tsi_prog_if(tsi_graph *graph, const tsi_tensor *predicate,
                                 tsi_program *then_body, tsi_program *else_body);
/* Runs the case whose value equals the scalar integer `control`, else
 * `default_body` (may be NULL). Add cases with tsi_switch_add_case(). */
TSI_API tsi_program *tsi_prog_switch(tsi_graph *graph, const tsi_tensor *control,
                                     tsi_program *default_body);
TSI_API int tsi_switch_add_case(tsi_program *sw, int64_t value, tsi_program *body);
/* Copies `src` to `dst` (same type and element count). */
TSI_API tsi_program *tsi_prog_copy(tsi_graph *graph, const tsi_tensor *src, const tsi_tensor *dst);
/* Copies the next `numel` elements of a host-to-device stream into `dst`. */
TSI_API tsi_program *tsi_prog_copy_from_stream(tsi_graph *graph, tsi_stream *stream,
                                               const tsi_tensor *dst);
/* Copies `src` into a device-to-host stream. */
TSI_API tsi_program *tsi_prog_copy_to_stream(tsi_graph *graph, const tsi_tensor *src,
                                             tsi_stream *stream);
/* Copies row `*offset` of a remote buffer into `dst`. `offset` is a scalar
 * UNSIGNED_INT or INT tensor read at run time, or NULL for row 0. */
TSI_API tsi_program *tsi_prog_copy_from_remote(tsi_graph *graph, tsi_remote_buffer *buffer,
                                               const tsi_tensor *dst, const tsi_tensor *offset);
/* Copies `src` into row `*offset` of a remote buffer (NULL: row 0). */
TSI_API tsi_program *tsi_prog_copy_to_remote(tsi_graph *graph, const tsi_tensor *src,
                                             tsi_remote_buffer *buffer, const tsi_tensor *offset);
/* Makes `body` a function program that may be called from many places
 * (its code exists once on the device). */
TSI_API tsi_function *tsi_graph_add_function(tsi_graph *graph, tsi_program *body);
TSI_API tsi_program *tsi_prog_call(tsi_graph *graph, tsi_function *fn);
TSI_API tsi_program *tsi_prog_sync(tsi_graph *graph, tsi_sync_type type);
/* Marks the contents of `t` as undefined from here (ends its liveness). */
TSI_API tsi_program *tsi_prog_write_undef(tsi_graph *graph, const tsi_tensor *t);
/* Prints "title: {...}" in Poplar's layout when run. */
TSI_API tsi_program *tsi_prog_print_tensor(tsi_graph *graph, const char *title,
                                           const tsi_tensor *t);

/* Names a program (shown in profiles), prefixed with the path of the
 * model's debug contexts open when the program was made (debug.h);
 * returns `prog`. */
TSI_API tsi_program *tsi_program_set_name(tsi_program *prog, const char *name);
TSI_API const char *tsi_program_name(const tsi_program *prog);
TSI_API tsi_program_kind tsi_program_get_kind(const tsi_program *prog);
/* Poplar's type name of a program kind ("Sequence", "Execute", ...). */
TSI_API const char *tsi_program_kind_name(tsi_program_kind kind);

TSB_END_DECLS
