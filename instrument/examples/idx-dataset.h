/*
 * Image classification data for the tutorial 5 model: a loader of the
 * gzipped IDX files of MNIST-style data sets (Fashion-MNIST as Debian's
 * dataset-fashion-mnist package installs it) and a small synthetic
 * 10-class problem for tests. Nothing here prints or exits: a failing
 * call returns a negative IDX_ERR_* code and writes a one-line message
 * naming the file and the problem into the caller's buffer.
 *
 * IDX (LeCun's format): a big-endian header of a magic number
 * 0x000008NN (0x08: unsigned bytes; NN: the number of dimensions) and one
 * 32-bit size per dimension, then the elements row-major. Image files
 * have three dimensions (count, rows, cols), label files one (count).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Images of the data sets this loader accepts are 28x28 pixels. */
#define IDX_ROWS 28
#define IDX_COLS 28
#define IDX_PIXELS (IDX_ROWS * IDX_COLS)
/* Labels are 0 .. IDX_CLASSES - 1. */
#define IDX_CLASSES 10
/* The most items a file may declare; larger headers are refused before
 * anything is allocated (MNIST-style sets hold tens of thousands). */
#define IDX_MAX_ITEMS 10000000u
/* The IDX magic numbers of unsigned-byte files of 3 and 1 dimensions. */
#define IDX_MAGIC_IMAGES 0x00000803u
#define IDX_MAGIC_LABELS 0x00000801u

/* Where Debian's dataset-fashion-mnist package installs the files. */
#define IDX_FASHION_MNIST_DIR "/usr/share/datasets/fashion-mnist"

typedef enum idx_error_code {
	IDX_OK = 0,
	IDX_ERR_INVALID_ARGUMENT = -1, /* a bad argument from the caller */
	IDX_ERR_NOT_FOUND = -2,        /* a file does not exist */
	IDX_ERR_IO = -3,               /* a file could not be opened or read */
	IDX_ERR_NOT_GZIP = -4,         /* a file is not gzip-compressed */
	IDX_ERR_FORMAT = -5,           /* bad magic, dimensions, counts or labels */
	IDX_ERR_TRUNCATED = -6,        /* a file ends before its header says */
	IDX_ERR_MISMATCH = -7,         /* image and label files disagree on the count */
	IDX_ERR_NO_MEMORY = -8         /* the host ran out of memory */
} idx_error_code;

/* A labelled set of 28x28 grey-scale images. */
typedef struct idx_dataset {
	size_t count;     /* images (and labels) held */
	float *pixels;    /* count * IDX_PIXELS, row-major per image, in [0, 1] */
	uint32_t *labels; /* count, each in [0, IDX_CLASSES) */
} idx_dataset;

/*
 * Loads the first `limit` items (0: all of them) of a pair of gzipped IDX
 * files into `out`, which the caller frees with idx_dataset_free(). Every
 * header field is checked (magic, 28x28 images, counts equal in both files
 * and at most IDX_MAX_ITEMS, labels below IDX_CLASSES) and the files must
 * hold exactly the bytes their headers promise. Memory grows with the data
 * actually read, so a lying header cannot cause a huge allocation.
 *
 * Returns IDX_OK, or a negative idx_error_code with `out` zeroed and a
 * message in `err` (`err_size` bytes; may be NULL) such as
 *   "DIR/train-images-idx3-ubyte.gz: truncated: expected 47040000 bytes
 *    of pixels, got 1024".
 */
int idx_dataset_load(idx_dataset *out, const char *images_path, const char *labels_path,
                     size_t limit, char *err, size_t err_size);

/*
 * Loads the training set ("train-*") or the test set ("t10k-*") of an
 * MNIST-style directory `dir` (NULL: IDX_FASHION_MNIST_DIR), as
 * idx_dataset_load. A missing file's message says how to install it.
 */
int idx_dataset_load_dir(idx_dataset *out, const char *dir, bool train, size_t limit, char *err,
                         size_t err_size);

/*
 * Fills `out` with `count` items of a synthetic 10-class problem that a
 * linear classifier can learn: each class has a random prototype image
 * (drawn from `seed`), and an item is its class's prototype blurred by
 * noise and clamped to [0, 1]. Items and labels are drawn from `seed` and
 * `split` (use different splits for training and test sets of one
 * problem). The same arguments always give the same data.
 * Returns IDX_OK or IDX_ERR_INVALID_ARGUMENT / IDX_ERR_NO_MEMORY.
 */
int idx_dataset_synthetic(idx_dataset *out, size_t count, uint64_t seed, unsigned split,
                          char *err, size_t err_size);

/* Frees what a dataset holds and zeroes it; NULL is ignored. */
void idx_dataset_free(idx_dataset *set);
