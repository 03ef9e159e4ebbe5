/*
 * The device side of the tutorial 5 model (logistic regression on
 * 28x28 images, see tut5_ml.c): the graph and its three programs, and the
 * connection of its streams to host buffers. tut5_ml.c runs it; the
 * integration tests build the same model to check its profile. Building
 * and connecting end the program through example-util's helpers on any
 * failure, as the example's own code does.
 */
#pragma once

#include "idx-dataset.h"

#include <tilescope/ipu.h>

/* The engine programs of the model, in the order of tut5_model.progs. */
enum { TUT5_PROG_INIT = 0, TUT5_PROG_EPOCH, TUT5_PROG_TEST, TUT5_N_PROGS };

/* The device side of one batch size: the tensors a program step reads
 * and writes, and the names of its streams. */
typedef struct tut5_batch_graph {
	size_t rows;          /* images per batch */
	tsi_tensor *x;        /* [rows, 784] FLOAT */
	tsi_tensor *labels;   /* [rows] UNSIGNED_INT */
	tsi_tensor *probs;    /* [rows, 10] FLOAT, the softmax */
	tsi_tensor *correct;  /* scalar UNSIGNED_INT, the batch's correct answers */
	char images_stream[64];
	char labels_stream[64];
} tut5_batch_graph;

/* The model as built: its parameters, programs and per-batch graphs. */
typedef struct tut5_model {
	size_t batch;          /* images per batch */
	size_t train_batches;  /* batches per epoch (program TUT5_PROG_EPOCH) */
	size_t test_batches;   /* full test batches */
	size_t tail;           /* test images in the last, smaller batch (0: none) */
	tsi_tensor *w;         /* [784, 10] FLOAT */
	tsi_tensor *b;         /* [10] FLOAT */
	/* Scalar UNSIGNED_INT: the correct answers of the epoch and of the
	 * test set, summed on the device batch by batch and sent to the host
	 * once at the end of the program (streams "train_correct" and
	 * "test_correct"). */
	tsi_tensor *train_correct;
	tsi_tensor *test_correct;
	tsi_program *progs[TUT5_N_PROGS];
	tut5_batch_graph train, test, test_tail;
} tut5_model;

/* Host memory the model's streams read and write. The caller owns it;
 * losses holds train_batches entries. */
typedef struct tut5_host {
	const idx_dataset *train;
	const idx_dataset *test;
	float *losses;           /* the loss of each training batch, summed over its images */
	uint32_t *train_correct; /* one value: the correct answers of the last epoch */
	uint32_t *test_correct;  /* one value: the correct answers on the test set */
} tut5_host;

/*
 * Adds the ops libraries' codelets, the parameters and the three
 * programs (TUT5_PROG_INIT: random weights and zero bias; TUT5_PROG_EPOCH:
 * a Repeat of `train_batches` gradient steps on batches of `batch`
 * images at `learning_rate`; TUT5_PROG_TEST: the correct answers on
 * `test_images` test images in batches of `batch`, the last one smaller)
 * to `graph`, filling `m`. Exits through ex_fail on any failure.
 */
void tut5_model_build(tut5_model *m, tsi_graph *graph, size_t batch, double learning_rate,
                      size_t train_batches, size_t test_images);

/* Connects every stream of the model's loaded `engine` to `host`: the
 * data sets as circular buffers, results into the host arrays. Exits
 * through ex_fail on any failure. */
void tut5_model_connect(const tut5_model *m, tsi_engine *engine, const tut5_host *host);
