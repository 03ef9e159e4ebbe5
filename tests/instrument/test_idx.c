/*
 * Tests of the tutorial 5 data loader (instrument/examples/idx-dataset.c):
 * small gzipped IDX files written into a fresh temporary directory load
 * with the right pixels and labels, and every kind of bad file is refused
 * with its own code and a message naming the file; the synthetic set is
 * deterministic.
 */
#include "test-util.h"

#include "../../instrument/examples/idx-dataset.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

/* Per-test state: the temporary directory and the two file paths. */
typedef struct fixture {
	char *dir;
	char images[512];
	char labels[512];
	char err[512];
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->dir = tsi_test_mkdtemp();
	snprintf(fx->images, sizeof(fx->images), "%s/train-images-idx3-ubyte.gz", fx->dir);
	snprintf(fx->labels, sizeof(fx->labels), "%s/train-labels-idx1-ubyte.gz", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;

	tsi_test_rmtree(fx->dir);
	free(fx);
	return 0;
}

/* Big-endian 32-bit value into b[0..4). */
static void put_be32(unsigned char *b, uint32_t v)
{
	b[0] = (unsigned char)(v >> 24);
	b[1] = (unsigned char)(v >> 16);
	b[2] = (unsigned char)(v >> 8);
	b[3] = (unsigned char)v;
}

/* Writes a gzipped IDX file: `magic`, `n_dims` dimensions, then `len`
 * payload bytes (which need not agree with the dimensions). */
static void write_idx(const char *path, uint32_t magic, const uint32_t *dims, size_t n_dims,
                      const unsigned char *payload, size_t len)
{
	unsigned char head[16];
	gzFile gz = gzopen(path, "wb");

	assert_non_null(gz);
	put_be32(head, magic);
	for (size_t d = 0; d < n_dims; d++)
		put_be32(head + 4 + 4 * d, dims[d]);
	assert_int_equal(gzwrite(gz, head, (unsigned)(4 + 4 * n_dims)), (int)(4 + 4 * n_dims));
	if (len)
		assert_int_equal(gzwrite(gz, payload, (unsigned)len), (int)len);
	assert_int_equal(gzclose(gz), Z_OK);
}

/* The pixel byte of image i, pixel p in the files the tests write. */
static unsigned char pixel_byte(size_t i, size_t p)
{
	return (unsigned char)((i * 37 + p * 11) % 256);
}

/* Writes `n_images` 28x28 images (header count `image_count`) and
 * `n_labels` labels (header count `label_count`) of a simple pattern. */
static void write_pair(const fixture *fx, uint32_t image_count, size_t n_images,
                       uint32_t label_count, size_t n_labels)
{
	unsigned char *pixels = malloc(n_images * IDX_PIXELS + 1);
	unsigned char *labels = malloc(n_labels + 1);
	uint32_t image_dims[3] = {image_count, IDX_ROWS, IDX_COLS};

	assert_non_null(pixels);
	assert_non_null(labels);
	for (size_t i = 0; i < n_images; i++)
		for (size_t p = 0; p < IDX_PIXELS; p++)
			pixels[i * IDX_PIXELS + p] = pixel_byte(i, p);
	for (size_t i = 0; i < n_labels; i++)
		labels[i] = (unsigned char)((i * 3 + 1) % IDX_CLASSES);
	write_idx(fx->images, IDX_MAGIC_IMAGES, image_dims, 3, pixels, n_images * IDX_PIXELS);
	write_idx(fx->labels, IDX_MAGIC_LABELS, &label_count, 1, labels, n_labels);
	free(pixels);
	free(labels);
}

/* Writes `len` bytes to `path` as they are (no compression). */
static void write_raw(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A valid pair loads with every pixel scaled to [0, 1] and every label
 * as written; a limit loads only the first items. */
static void test_load_valid(void **state)
{
	fixture *fx = *state;
	idx_dataset set;

	write_pair(fx, 3, 3, 3, 3);
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_OK);
	assert_int_equal(set.count, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(set.labels[i], (i * 3 + 1) % IDX_CLASSES);
		for (size_t p = 0; p < IDX_PIXELS; p++)
			assert_close(set.pixels[i * IDX_PIXELS + p], pixel_byte(i, p) / 255.0, 1e-7);
	}
	idx_dataset_free(&set);
	assert_null(set.pixels);
	assert_int_equal(set.count, 0);

	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 2, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_OK);
	assert_int_equal(set.count, 2);
	assert_close(set.pixels[IDX_PIXELS + 5], pixel_byte(1, 5) / 255.0, 1e-7);
	idx_dataset_free(&set);

	/* The directory form finds the same files by their standard names. */
	assert_int_equal(idx_dataset_load_dir(&set, fx->dir, true, 0, fx->err, sizeof(fx->err)),
	                 IDX_OK);
	assert_int_equal(set.count, 3);
	assert_int_equal(set.labels[2], 7);
	idx_dataset_free(&set);
	idx_dataset_free(NULL);
}

/* An image file with a label file's magic (or any other) is refused. */
static void test_wrong_magic(void **state)
{
	fixture *fx = *state;
	uint32_t dims[3] = {1, IDX_ROWS, IDX_COLS};
	unsigned char pixels[IDX_PIXELS] = {0};
	idx_dataset set;
	int rc;

	write_pair(fx, 1, 1, 1, 1);
	write_idx(fx->images, 0x00000801, dims, 3, pixels, sizeof(pixels));
	rc = idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err, sizeof(fx->err));
	assert_int_equal(rc, IDX_ERR_FORMAT);
	assert_null(set.pixels);
	assert_non_null(strstr(fx->err, fx->images));
	assert_non_null(strstr(fx->err, "bad magic number 0x00000801, expected 0x00000803"));

	/* Swapped arguments: the label file is refused as images. */
	write_pair(fx, 1, 1, 1, 1);
	rc = idx_dataset_load(&set, fx->labels, fx->images, 0, fx->err, sizeof(fx->err));
	assert_int_equal(rc, IDX_ERR_FORMAT);
	assert_non_null(strstr(fx->err, fx->labels));
	assert_non_null(strstr(fx->err, "bad magic number 0x00000801, expected 0x00000803"));

	/* A label file with an image file's magic. */
	write_idx(fx->labels, IDX_MAGIC_IMAGES, dims, 3, pixels, sizeof(pixels));
	rc = idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err, sizeof(fx->err));
	assert_int_equal(rc, IDX_ERR_FORMAT);
	assert_non_null(strstr(fx->err, "bad magic number 0x00000803, expected 0x00000801"));
}

/* Images that are not 28x28 are refused. */
static void test_wrong_dims(void **state)
{
	fixture *fx = *state;
	uint32_t dims[3] = {1, 28, 27};
	unsigned char pixels[28 * 27] = {0};
	idx_dataset set;

	write_pair(fx, 1, 1, 1, 1);
	write_idx(fx->images, IDX_MAGIC_IMAGES, dims, 3, pixels, sizeof(pixels));
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_ERR_FORMAT);
	assert_non_null(strstr(fx->err, "28x27 pixels, expected 28x28"));
}

/* Fewer pixels than the header declares: the message gives both counts. */
static void test_truncated_payload(void **state)
{
	fixture *fx = *state;
	char want[600];
	idx_dataset set;

	write_pair(fx, 5, 2, 5, 5);
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_ERR_TRUNCATED);
	snprintf(want, sizeof(want), "%s: truncated: expected %d bytes of pixels, got %d",
	         fx->images, 5 * IDX_PIXELS, 2 * IDX_PIXELS);
	assert_string_equal(fx->err, want);
	assert_null(set.pixels);
	assert_null(set.labels);

	/* Loading only the items that are there works. */
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 2, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_OK);
	assert_int_equal(set.count, 2);
	idx_dataset_free(&set);

	/* A header cut short. */
	{
		gzFile gz = gzopen(fx->labels, "wb");
		assert_non_null(gz);
		assert_int_equal(gzwrite(gz, "\0\0\x08\x01\0\0", 6), 6);
		assert_int_equal(gzclose(gz), Z_OK);
	}
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_ERR_TRUNCATED);
	assert_non_null(strstr(fx->err, "expected a 8-byte IDX header, got 6 bytes"));
}

/* A gzip stream cut in the middle (a partial download) reads as truncated. */
static void test_truncated_gzip(void **state)
{
	fixture *fx = *state;
	idx_dataset set;
	FILE *f;
	long size;

	write_pair(fx, 40, 40, 40, 40);
	f = fopen(fx->images, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	assert_int_equal(fclose(f), 0);
	assert_true(size > 100);
	assert_int_equal(truncate(fx->images, size / 2), 0);

	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_ERR_TRUNCATED);
	assert_non_null(strstr(fx->err, "truncated: expected 31360 bytes of pixels, got "));
}

/* Data after the declared items means the header is wrong. */
static void test_trailing_data(void **state)
{
	fixture *fx = *state;
	idx_dataset set;

	write_pair(fx, 2, 3, 2, 2);
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_ERR_FORMAT);
	assert_non_null(strstr(fx->err, "more data than its header declares"));
	assert_non_null(strstr(fx->err, fx->images));
}

/* Image and label files of different counts are refused before any
 * payload is read. */
static void test_count_mismatch(void **state)
{
	fixture *fx = *state;
	char want[1200];
	idx_dataset set;

	write_pair(fx, 3, 3, 4, 4);
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_ERR_MISMATCH);
	snprintf(want, sizeof(want), "%s holds 3 images but %s holds 4 labels", fx->images,
	         fx->labels);
	assert_string_equal(fx->err, want);
}

/* A label that is not a class is refused, naming the item. */
static void test_bad_label(void **state)
{
	fixture *fx = *state;
	uint32_t count = 2;
	const unsigned char labels[2] = {4, 12};
	idx_dataset set;

	write_pair(fx, 2, 2, 2, 2);
	write_idx(fx->labels, IDX_MAGIC_LABELS, &count, 1, labels, 2);
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_ERR_FORMAT);
	assert_non_null(strstr(fx->err, "label 12 of item 1 is not a class"));
}

/* A plain file (an uncompressed download, or garbage) and an empty file
 * are not gzip; corrupt compressed data is an error too. */
static void test_not_gzip(void **state)
{
	fixture *fx = *state;
	const char garbage[] = "<html>404 Not Found</html>";
	idx_dataset set;
	FILE *f;

	write_pair(fx, 1, 1, 1, 1);
	write_raw(fx->images, garbage, sizeof(garbage));
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_ERR_NOT_GZIP);
	assert_non_null(strstr(fx->err, fx->images));
	assert_non_null(strstr(fx->err, "not a gzip file"));

	write_raw(fx->images, "", 0);
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_ERR_NOT_GZIP);

	/* The gzip magic followed by garbage: zlib's complaint is passed on. */
	write_pair(fx, 1, 1, 1, 1);
	f = fopen(fx->images, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 12, SEEK_SET), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(fputc(0xff, f), 0xff);
	assert_int_equal(fclose(f), 0);
	assert_true(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                             sizeof(fx->err)) < 0);
	assert_non_null(strstr(fx->err, fx->images));
	assert_null(set.pixels);
}

/* A missing file says which one and how to get the data set. */
static void test_missing_file(void **state)
{
	fixture *fx = *state;
	char want[600];
	idx_dataset set;

	assert_int_equal(idx_dataset_load_dir(&set, fx->dir, false, 0, fx->err, sizeof(fx->err)),
	                 IDX_ERR_NOT_FOUND);
	snprintf(want, sizeof(want),
	         "%s/t10k-images-idx3-ubyte.gz: not found (install the Debian package "
	         "dataset-fashion-mnist or pass --data-dir)",
	         fx->dir);
	assert_string_equal(fx->err, want);

	/* Images present, labels missing. */
	write_pair(fx, 1, 1, 1, 1);
	assert_int_equal(remove(fx->labels), 0);
	assert_int_equal(idx_dataset_load_dir(&set, fx->dir, true, 0, fx->err, sizeof(fx->err)),
	                 IDX_ERR_NOT_FOUND);
	assert_non_null(strstr(fx->err, "train-labels-idx1-ubyte.gz: not found"));
	assert_non_null(strstr(fx->err, "dataset-fashion-mnist"));

	/* A directory where a file should be. */
	assert_int_equal(idx_dataset_load(&set, fx->dir, fx->images, 0, fx->err, sizeof(fx->err)),
	                 IDX_ERR_IO);
	assert_non_null(strstr(fx->err, "not a regular file"));
}

/*
 * Headers that claim absurd counts. Above IDX_MAX_ITEMS the header alone
 * is refused. Just below it, with all the labels present, the image file
 * promises 7.8 GB of pixels and holds 100 bytes: the loader must report it
 * truncated having allocated only about what it read. Without a sanitizer
 * (which reserves terabytes of address space itself) the address space is
 * limited to 512 MiB more than in use, so an allocation sized from the
 * header would fail as IDX_ERR_NO_MEMORY instead.
 */
static void test_absurd_counts(void **state)
{
	fixture *fx = *state;
	uint32_t huge = 0xffffffffu, big = IDX_MAX_ITEMS - 1;
	uint32_t dims[3] = {IDX_MAX_ITEMS - 1, IDX_ROWS, IDX_COLS};
	unsigned char few[100] = {0};
	unsigned char *labels = calloc(big, 1);
	char want[600];
	idx_dataset set;
	int rc;

	assert_non_null(labels);
	write_pair(fx, 1, 1, 1, 1);
	write_idx(fx->labels, IDX_MAGIC_LABELS, &huge, 1, few, sizeof(few));
	assert_int_equal(idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err,
	                                  sizeof(fx->err)),
	                 IDX_ERR_FORMAT);
	assert_non_null(strstr(fx->err, "declares 4294967295 labels, more than the 10000000"));

	write_idx(fx->labels, IDX_MAGIC_LABELS, &big, 1, labels, big);
	free(labels);
	write_idx(fx->images, IDX_MAGIC_IMAGES, dims, 3, few, sizeof(few));
#if defined(__SANITIZE_ADDRESS__)
	rc = idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err, sizeof(fx->err));
#else
	{
		struct rlimit old, lim;
		unsigned long pages = 0;
		FILE *statm = fopen("/proc/self/statm", "r");

		assert_non_null(statm);
		assert_int_equal(fscanf(statm, "%lu", &pages), 1);
		assert_int_equal(fclose(statm), 0);
		assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
		lim = old;
		lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)512 << 20);
		if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < lim.rlim_cur)
			lim.rlim_cur = old.rlim_cur;
		assert_int_equal(setrlimit(RLIMIT_AS, &lim), 0);
		rc = idx_dataset_load(&set, fx->images, fx->labels, 0, fx->err, sizeof(fx->err));
		assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
	}
#endif
	snprintf(want, sizeof(want), "%s: truncated: expected %zu bytes of pixels, got 100",
	         fx->images, (size_t)big * IDX_PIXELS);
	assert_string_equal(fx->err, want);
	assert_int_equal(rc, IDX_ERR_TRUNCATED);
	assert_null(set.pixels);
}

/* The same arguments give the same set; another split or seed another
 * one; every pixel is in [0, 1], every label a class, every class used. */
static void test_synthetic(void **state)
{
	fixture *fx = *state;
	idx_dataset a, b, c, d;
	size_t per_class[IDX_CLASSES] = {0};

	assert_int_equal(idx_dataset_synthetic(&a, 500, 42, 0, fx->err, sizeof(fx->err)), IDX_OK);
	assert_int_equal(idx_dataset_synthetic(&b, 500, 42, 0, fx->err, sizeof(fx->err)), IDX_OK);
	assert_int_equal(idx_dataset_synthetic(&c, 500, 42, 1, fx->err, sizeof(fx->err)), IDX_OK);
	assert_int_equal(idx_dataset_synthetic(&d, 500, 43, 0, fx->err, sizeof(fx->err)), IDX_OK);
	assert_int_equal(a.count, 500);
	assert_memory_equal(a.pixels, b.pixels, 500 * IDX_PIXELS * sizeof(float));
	assert_memory_equal(a.labels, b.labels, 500 * sizeof(uint32_t));
	assert_memory_not_equal(a.pixels, c.pixels, 500 * IDX_PIXELS * sizeof(float));
	assert_memory_not_equal(a.pixels, d.pixels, 500 * IDX_PIXELS * sizeof(float));
	for (size_t i = 0; i < 500 * IDX_PIXELS; i++)
		assert_true(a.pixels[i] >= 0.0f && a.pixels[i] <= 1.0f);
	for (size_t i = 0; i < 500; i++) {
		assert_true(a.labels[i] < IDX_CLASSES);
		per_class[a.labels[i]]++;
	}
	for (size_t k = 0; k < IDX_CLASSES; k++)
		assert_true(per_class[k] > 20);

	/* Splits share the prototypes: the mean images of class 0 in both
	 * splits are much closer than those of classes 0 and 1. */
	{
		double m_a0[IDX_PIXELS] = {0}, m_c0[IDX_PIXELS] = {0}, m_c1[IDX_PIXELS] = {0};
		double same = 0, other = 0;
		size_t na0 = 0, nc0 = 0, nc1 = 0;

		for (size_t i = 0; i < 500; i++) {
			for (size_t p = 0; p < IDX_PIXELS; p++) {
				if (a.labels[i] == 0)
					m_a0[p] += a.pixels[i * IDX_PIXELS + p];
				if (c.labels[i] == 0)
					m_c0[p] += c.pixels[i * IDX_PIXELS + p];
				if (c.labels[i] == 1)
					m_c1[p] += c.pixels[i * IDX_PIXELS + p];
			}
			na0 += a.labels[i] == 0;
			nc0 += c.labels[i] == 0;
			nc1 += c.labels[i] == 1;
		}
		for (size_t p = 0; p < IDX_PIXELS; p++) {
			same += fabs(m_a0[p] / (double)na0 - m_c0[p] / (double)nc0);
			other += fabs(m_a0[p] / (double)na0 - m_c1[p] / (double)nc1);
		}
		assert_true(same * 2 < other);
	}

	idx_dataset_free(&d);
	assert_int_equal(idx_dataset_synthetic(&d, 0, 42, 0, fx->err, sizeof(fx->err)),
	                 IDX_ERR_INVALID_ARGUMENT);
	assert_null(d.pixels);
	idx_dataset_free(&a);
	idx_dataset_free(&b);
	idx_dataset_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_load_valid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_magic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_dims, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_payload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_gzip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trailing_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_count_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_label, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_gzip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absurd_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_synthetic, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
